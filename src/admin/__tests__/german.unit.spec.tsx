/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { act, fireEvent, screen, within } from "@testing-library/react"
import DisputeDetailPage from "../routes/disputes/[id]/page"
import ServiceScanSettingsPage from "../routes/settings/servicescan/page"
import { caseChargeback, CASE_ID } from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const DETAIL = "/admin/servicescan/chargebacks/chbk_01"
const HEALTH = "/admin/servicescan/health"

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
})
afterEach(() => {
  api.restore()
})

/** English words of these pages that must not survive the switch to German. */
const ENGLISH = /Send evidence|Accept liability|Reply by|Our answer|Waiting for you|days left|Activity at|Configuration|Reachable|proof request|every 3 hours|Check again/

describe("the admin in German", () => {
  it("shows the case panel and the chargeback in German", async () => {
    api.on("GET", DETAIL, { body: { chargeback: caseChargeback() } })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01", language: "de" })

    expect(await screen.findByRole("heading", { level: 2, name: `Worldpay-Fall ${CASE_ID}` })).toBeInTheDocument()
    const panel = within(screen.getByTestId("dispute-case"))
    const fact = (label: string) => panel.getByText(label).closest("div")!.querySelector("dd")!
    expect(fact("Zyklus")).toHaveTextContent("First Chargeback")
    expect(fact("Grundkategorie")).toHaveTextContent("Betrug")
    expect(within(fact("Antwort bis")).getByTestId("reply-by-countdown")).toHaveTextContent("noch 3 Tage")
    expect(fact("Warteschlange")).toHaveTextContent("Wartet auf Sie (Merchant)")
    expect(fact("Unsere Antwort")).toHaveTextContent("Nicht beantwortet")
    expect(fact("Entscheidung des Kartennetzwerks")).toHaveTextContent("Noch nicht entschieden")
    expect(panel.getByTestId("response-status")).toHaveTextContent("Nicht beantwortet")
    expect(panel.getByText("Aktivität bei Worldpay")).toBeInTheDocument()
    // The processor's own activity type stays beside our German reading of it.
    expect(panel.getByText("Rückbuchung Ihnen zugewiesen")).toBeInTheDocument()
    expect(panel.getByText("Assign To Merchant")).toBeInTheDocument()
    // The proof request and its scan, and the pack's download link.
    expect(screen.getAllByText("Nachweisanfrage").length).toBeGreaterThan(0)
    expect(screen.getAllByText("Anfechtbar").length).toBeGreaterThan(0)
    expect(panel.getByRole("link", { name: "Belegpaket herunterladen" })).toBeInTheDocument()
    // The chargeback's own status line follows the language too.
    expect(screen.getByText(/bereit zum Senden an den Zahlungsanbieter/)).toBeInTheDocument()

    // The confirmation speaks German, and cancelling it sends nothing.
    await act(async () => {
      fireEvent.click(panel.getByRole("button", { name: "Belege an Worldpay senden" }))
    })
    const prompt = await screen.findByRole("alertdialog")
    expect(within(prompt).getByText("Belege an Worldpay senden?")).toBeInTheDocument()
    expect(within(prompt).getByText(new RegExp(`zu Fall ${CASE_ID} hochgeladen`))).toBeInTheDocument()
    await act(async () => {
      fireEvent.click(within(prompt).getByRole("button", { name: "Abbrechen" }))
    })
    expect(api.callsTo("POST", `${DETAIL}/respond`)).toHaveLength(0)
    expect(panel.getByRole("button", { name: "Haftung übernehmen" })).toBeEnabled()

    expect(screen.getByTestId("dispute-case").textContent).not.toMatch(ENGLISH)
  })

  it("explains in German why an answer is not possible", async () => {
    api.on("GET", DETAIL, { body: { chargeback: caseChargeback({ awaiting_merchant: false, queue: "Vantiv" }) } })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01", language: "de" })
    const button = await screen.findByRole("button", { name: "Belege an Worldpay senden" })
    expect(button).toBeDisabled()
    expect(button).toHaveAccessibleDescription("Worldpay wartet nicht auf Ihre Antwort (der Fall liegt in der Warteschlange „Vantiv“).")
  })

  it("shows the settings page in German", async () => {
    api.on("GET", HEALTH, {
      body: {
        health: {
          ok: true,
          keys: { secret_key: true, webhook_secret: false },
          service: { base_url: "https://disputes.servicescan.example", reachable: true, latency_ms: 87.4 },
          configuration_error: null,
          polling: {
            stopped: false,
            interval_ms: 3 * 60 * 60 * 1000,
            last_poll_at: "2025-03-01T08:00:00.000Z",
            pending_count: 7,
            counts: { pending: 5, complete: 40 },
            needs_attention_count: 1,
          },
          archive_images: true,
        },
      },
    })
    const { container } = renderAdmin(<ServiceScanSettingsPage />, { language: "de" })
    expect(await screen.findByText("Erreichbar")).toBeInTheDocument()
    expect(screen.getByRole("heading", { name: "Konfiguration" })).toBeInTheDocument()
    expect(screen.getByText("Geheimer Disputes-Schlüssel").nextElementSibling).toHaveTextContent("Konfiguriert")
    expect(screen.getByText("Webhook-Geheimnis für Rückbuchungen").nextElementSibling).toHaveTextContent("Fehlt")
    expect(screen.getByText("7 Nachweisanfragen")).toBeInTheDocument()
    expect(screen.getByText("alle 3 Stunden")).toBeInTheDocument()
    expect(screen.getByText("Läuft")).toBeInTheDocument()
    expect(screen.getByText(/^1 Nachweisanfrage: die Antwort von ServiceScan/)).toBeInTheDocument()
    expect(screen.getByText("Ausstehend: 5 · Abgeschlossen: 40")).toBeInTheDocument()
    expect(screen.getByText("An: Bilder werden in den Dateispeicher des Shops kopiert")).toBeInTheDocument()
    expect(screen.getByRole("button", { name: "Erneut prüfen" })).toBeInTheDocument()
    expect(container.textContent).not.toMatch(ENGLISH)
  })

  it("gives the configuration advice in German", async () => {
    api.on("GET", HEALTH, {
      body: {
        health: {
          ok: false,
          keys: { secret_key: true },
          service: { reachable: false, error: "Forbidden" },
          configuration_error: { message: "ServiceScan refused the configured credentials.", status: 403, at: "2025-03-01T08:00:00.000Z" },
          polling: { stopped: true },
        },
      },
    })
    renderAdmin(<ServiceScanSettingsPage />, { language: "de" })
    expect(await screen.findByText(/ServiceScan hat den geheimen Schlüssel abgelehnt/)).toBeInTheDocument()
    expect(screen.getByText(/^Die Abfrage ist angehalten:/)).toHaveTextContent("(HTTP 403)")
    expect(screen.getByText("Angehalten")).toBeInTheDocument()
  })
})
