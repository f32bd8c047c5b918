/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react"
import DisputeDetailPage from "../routes/disputes/[id]/page"
import DisputesPage from "../routes/disputes/page"
import type { DisputeCase } from "../lib/types"
import { chargeback, disputeCase, list, utcDay, VALID_SCAN } from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const CASES = "/admin/servicescan/cases"
const LIST = "/admin/servicescan/chargebacks"
const DETAIL = "/admin/servicescan/chargebacks/chbk_01"
const HEALTH = "/admin/servicescan/health"
const IMPORT = "/admin/servicescan/cases/import"

/**
 * English words of the drawers, the Unmatched cases tab, "Import now", the
 * stopped-evidence alert and the scan image viewer, which must not survive the
 * switch to German.
 */
const ENGLISH =
  /Search cases|Reply by|At the processor|Why unmatched|Assign to order|Import now|days left|Transaction \d|Order ref\.|Cancel|Record chargeback|Processor dispute ID|Disputed amount|Respond by|Attach scan ids|Scan ids|will be sent|Download image|Open a larger view|Evidence collection is stopped|See what to do/

function health(configuration_error: { message: string; status: number } | null = null) {
  return {
    health: {
      ok: !configuration_error,
      keys: { secret_key: true },
      service: { reachable: true },
      configuration_error,
      polling: { stopped: Boolean(configuration_error), counts: {} },
      dispute_gateway: { name: "worldpay" },
      auto_respond: "off",
    },
  }
}

function unmatched(overrides: Partial<DisputeCase> = {}): DisputeCase {
  return disputeCase({
    id: "sscase_02",
    case_id: "510000000042",
    status: "unmatched",
    match_note: "No payment with transaction 900000000000000042 or order reference phone-77",
    chargeback_id: null,
    order_id: null,
    amount: 15,
    currency_code: "usd",
    reply_by: utcDay(5),
    processor_transaction_id: "900000000000000042",
    processor_order_id: "phone-77",
    ...overrides,
  })
}

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
  api.on("GET", HEALTH, { body: health() })
  api.on("GET", LIST, { body: list([]) })
})
afterEach(() => {
  api.restore()
})

describe("the admin's drawers and unmatched cases in German", () => {
  it("shows the Unmatched cases table, its assign drawer and the import's report in German", async () => {
    api.on("GET", CASES, { body: list([unmatched()]) })
    api.on("POST", IMPORT, {
      body: { import: { cases: 3, new_cases: 2, matched: 2, unmatched: 1, chargebacks_recorded: 1, errors: [] } },
    })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched", language: "de" })

    const table = await screen.findByRole("table", { name: "Nicht zugeordnete Fälle" })
    await within(table).findByText("510000000042")
    for (const header of ["Fall", "Betrag", "Grund", "Antwort bis", "Beim Zahlungsabwickler", "Warum nicht zugeordnet"]) {
      expect(within(table).getByRole("columnheader", { name: header })).toBeInTheDocument()
    }
    expect(within(table).getByText("noch 5 Tage")).toBeInTheDocument()
    expect(within(table).getByText("Transaktion 900000000000000042")).toBeInTheDocument()
    expect(within(table).getByText("Bestellref. phone-77")).toBeInTheDocument()
    expect(screen.getByRole("searchbox", { name: "Fälle durchsuchen" })).toBeInTheDocument()
    expect(screen.getByRole("tabpanel").textContent).not.toMatch(ENGLISH)

    fireEvent.click(within(table).getByRole("button", { name: "Einer Bestellung zuordnen (Fall 510000000042)" }))
    const drawer = await screen.findByRole("dialog", { name: "Einer Bestellung zuordnen" })
    expect(within(drawer).getByRole("textbox", { name: "Bestell-ID" })).toBeInTheDocument()
    expect(within(drawer).getByText("Bestellreferenz beim Zahlungsabwickler")).toBeInTheDocument()
    expect(within(drawer).getByText(/^Worldpay-Fall 510000000042 passte zu keiner Zahlung/)).toBeInTheDocument()
    expect(within(drawer).getByRole("button", { name: "Abbrechen" })).toBeInTheDocument()
    expect(drawer.textContent).not.toMatch(ENGLISH)
    // The form's own check speaks German too.
    fireEvent.change(within(drawer).getByRole("textbox", { name: "Bestell-ID" }), { target: { value: "#1042" } })
    fireEvent.click(within(drawer).getByRole("button", { name: "Einer Bestellung zuordnen" }))
    expect(await within(drawer).findByRole("alert")).toHaveTextContent(/^„#1042“ sieht nach der Bestellnummer aus\./)
    expect(api.callsTo("POST", /\/assign$/)).toHaveLength(0)
    fireEvent.click(within(drawer).getByRole("button", { name: "Abbrechen" }))
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument())

    fireEvent.click(screen.getByRole("button", { name: "Jetzt importieren" }))
    expect(await screen.findByText("3 Fälle importiert")).toBeInTheDocument()
    expect(
      screen.getByText("2 neu, 2 Bestellungen zugeordnet, 1 nicht zugeordnet (siehe Nicht zugeordnete Fälle), 1 Rückbuchung erfasst.")
    ).toBeInTheDocument()
  })

  it("says in German that there is nothing to assign", async () => {
    api.on("GET", CASES, { body: list([]) })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched", language: "de" })
    expect(await screen.findByText("Keine nicht zugeordneten Fälle")).toBeInTheDocument()
  })

  it("records a chargeback through a German form, and says in German that evidence collection stopped", async () => {
    api.on("GET", HEALTH, { body: health({ message: "ServiceScan refused the configured credentials.", status: 403 }) })
    api.on("GET", CASES, { body: list([]) })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes", language: "de" })
    expect(await screen.findByText("Die Belegsammlung ist angehalten")).toBeInTheDocument()
    expect(screen.getByRole("link", { name: "Was zu tun ist" })).toHaveAttribute("href", "/settings/servicescan")

    fireEvent.click(screen.getByRole("button", { name: "Rückbuchung erfassen" }))
    const drawer = await screen.findByRole("dialog", { name: "Rückbuchung erfassen" })
    for (const label of ["Bestell-ID", "Streitfall-ID des Zahlungsabwicklers", "Strittiger Betrag", "Währung"]) {
      expect(within(drawer).getByRole("textbox", { name: label })).toBeInTheDocument()
    }
    expect(within(drawer).getByRole("textbox", { name: "Grund (optional)" })).toHaveAttribute(
      "placeholder",
      "z. B. Betrügerische Transaktion"
    )
    expect(within(drawer).getByText("Antwort bis")).toBeInTheDocument()
    expect(within(drawer).getByRole("button", { name: "Abbrechen" })).toBeInTheDocument()
    expect(drawer.textContent).not.toMatch(ENGLISH)

    fireEvent.change(within(drawer).getByRole("textbox", { name: "Strittiger Betrag" }), { target: { value: "1,250" } })
    fireEvent.click(within(drawer).getByRole("button", { name: "Rückbuchung erfassen" }))
    expect(await within(drawer).findByText("Geben Sie die ID der Bestellung ein (order_…).")).toBeInTheDocument()
    expect(within(drawer).getByText(/^Das Komma in „1,250“ kann ein Tausendertrennzeichen/)).toBeInTheDocument()
    expect(within(drawer).getByText("Geben Sie einen dreibuchstabigen Währungscode ein, wie EUR.")).toBeInTheDocument()
    expect(api.callsTo("POST", LIST)).toHaveLength(0)
  })

  it("shows the scan image viewer and the attach drawer in German", async () => {
    api.on("GET", DETAIL, { body: { chargeback: chargeback() } })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01", language: "de" })

    const open = await screen.findByRole("button", { name: `Größere Ansicht des Bildes von Scan ${VALID_SCAN} öffnen` })
    expect(within(open).getByRole("img")).toHaveAttribute("alt", `Kartenscan ${VALID_SCAN} (anfechtbar)`)
    expect(screen.getByRole("link", { name: `Bild herunterladen von Scan ${VALID_SCAN}` })).toBeInTheDocument()
    await act(async () => {
      fireEvent.click(open)
    })
    const viewer = await screen.findByRole("dialog", { name: `Scan ${VALID_SCAN}` })
    expect(within(viewer).getByRole("link", { name: "Bild herunterladen" })).toBeInTheDocument()
    expect(viewer.textContent).not.toMatch(ENGLISH)
    fireEvent.keyDown(viewer, { key: "Escape" })
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument())

    const menu = screen.getByRole("button", { name: "Aktionen für Rückbuchung dp_1001" })
    // Radix opens its menu on pointer down (and on Enter from the keyboard).
    fireEvent.keyDown(menu, { key: "Enter" })
    fireEvent.click(await screen.findByRole("menuitem", { name: "Scan-IDs anhängen" }))
    const drawer = await screen.findByRole("dialog", { name: "Scan-IDs anhängen" })
    const field = within(drawer).getByRole("textbox", { name: "Scan-IDs" })
    fireEvent.change(field, { target: { value: `${VALID_SCAN}\n1c9e7a52-8b0d-4e3f-9a6b-2d4c8e1f5b73` } })
    expect(within(drawer).getByText("2 Scan-IDs werden gesendet.")).toBeInTheDocument()
    expect(within(drawer).getByRole("button", { name: "Anhängen und senden" })).toBeInTheDocument()
    expect(drawer.textContent).not.toMatch(ENGLISH)
    fireEvent.change(field, { target: { value: "abc, def" } })
    fireEvent.blur(field)
    expect(await within(drawer).findByRole("alert")).toHaveTextContent(
      '2 Einträge sind keine gültigen Scan-IDs: "abc", "def". Scan-IDs sind UUIDv4'
    )
  })
})
