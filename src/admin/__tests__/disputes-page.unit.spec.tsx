/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { fireEvent, screen, waitFor, within } from "@testing-library/react"
import DisputesPage, { config } from "../routes/disputes/page"
import DisputeDetailPage, { handle as detailHandle } from "../routes/disputes/[id]/page"
import type { UIMatch } from "react-router-dom"
import type { Chargeback } from "../lib/types"
import { chargeback, disputeCase, list, proofRequest } from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const LIST = "/admin/servicescan/chargebacks"
const HEALTH = "/admin/servicescan/health"

const healthy = {
  health: {
    ok: true,
    keys: { secret_key: true, webhook_secret: true },
    service: { base_url: "https://disputes.example", reachable: true, latency_ms: 42 },
    configuration_error: null,
    polling: { stopped: false, interval_ms: 10_800_000, last_poll_at: null, pending_count: 0, counts: {} },
    archive_images: true,
  },
}

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
  api.on("GET", HEALTH, { body: healthy })
  // The Unmatched cases tab's count (specs of that view: unmatched-cases.unit.spec.tsx).
  api.on("GET", "/admin/servicescan/cases", { body: list([]) })
})
afterEach(() => {
  api.restore()
})

const lastListQuery = () => {
  const calls = api.callsTo("GET", LIST)
  return calls[calls.length - 1].url.searchParams
}

const location = () => screen.getByTestId("location").textContent

it("has a sidebar entry with an icon, its label a key of the plugin's translations", () => {
  expect(config.label).toBe("menu.disputes")
  expect(config.translationNs).toBe("servicescan")
  expect(config.icon).toBeDefined()
})

it("turns the URL's filters, search, sort and page into the list request", async () => {
  api.on("GET", LIST, { body: list([chargeback()], 45, 20) })
  const dueBy = encodeURIComponent(JSON.stringify({ $gte: new Date(2025, 3, 1).toISOString(), $lte: new Date(2025, 3, 30).toISOString() }))
  renderAdmin(<DisputesPage />, {
    path: "/disputes",
    url: `/disputes?status=evidence_ready,no_evidence&due_by=${dueBy}&q=dp_1&offset=20&order=-due_by`,
  })
  await screen.findByText("dp_1001")
  const query = lastListQuery()
  expect(query.get("status")).toBe("evidence_ready,no_evidence")
  // From the start of 1 April to the end of 30 April, in the admin's time zone.
  expect(query.get("due_after")).toBe(new Date(2025, 3, 1).toISOString())
  expect(query.get("due_before")).toBe(new Date(2025, 4, 1).toISOString())
  expect(query.get("q")).toBe("dp_1")
  expect(query.get("offset")).toBe("20")
  expect(query.get("limit")).toBe("20")
  expect(query.get("order")).toBe("-due_by")
  expect(query.get("fields")).toContain("+proof_requests.scans.ground_truth")
  expect(query.get("fields")).toContain("+dispute_case.response_status")
  // The DataTable shows the URL's state: the search, and a chip per filter.
  expect(screen.getByRole("searchbox", { name: "Search chargebacks" })).toHaveValue("dp_1")
  expect(screen.getAllByText("Status").length).toBeGreaterThan(0)
})

it("leaves out empty and malformed filters", async () => {
  api.on("GET", LIST, { body: list([chargeback()]) })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?status=bogus&q=&due_by=%7Bnot-json&order=password" })
  await screen.findByText("dp_1001")
  const query = lastListQuery()
  expect([...query.keys()].sort()).toEqual(["fields", "limit", "offset"])
  expect(query.get("offset")).toBe("0")
})

it("searches after a pause in typing and goes back to the first page", async () => {
  api.on("GET", LIST, { body: list([chargeback()], 45) })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?offset=20" })
  await screen.findByText("dp_1001")
  const before = api.callsTo("GET", LIST).length
  fireEvent.change(screen.getByRole("searchbox", { name: "Search chargebacks" }), { target: { value: "  #1001 " } })
  // Not on every keystroke.
  expect(api.callsTo("GET", LIST)).toHaveLength(before)
  await waitFor(() => expect(lastListQuery().get("q")).toBe("#1001"))
  expect(lastListQuery().get("offset")).toBe("0")
  expect(location()).toBe("/disputes?q=%231001")
})

it("names the table and the DataTable's icon buttons for screen readers", async () => {
  api.on("GET", LIST, { body: list([chargeback()]) })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  const table = await screen.findByRole("table", { name: "Chargebacks" })
  expect(within(table).getAllByRole("row")).toHaveLength(2)
  expect(screen.getByRole("button", { name: "Add filter" })).toBeInTheDocument()
  expect(screen.getByRole("button", { name: "Sort" })).toBeInTheDocument()
  expect(screen.getByRole("button", { name: "Columns" })).toBeInTheDocument()
})

it("sorts through the column header, server-side", async () => {
  api.on("GET", LIST, { body: list([chargeback()]) })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  const table = await screen.findByRole("table", { name: "Chargebacks" })
  fireEvent.click(within(table).getByText("Respond by"))
  await waitFor(() => expect(lastListQuery().get("order")).toMatch(/^-?due_by$/))
  expect(location()).toMatch(/order=-?due_by/)
})

it("pages with offset and limit, and shows the total", async () => {
  api.on("GET", LIST, (call) => {
    const offset = Number(call.url.searchParams.get("offset"))
    return { body: list([chargeback({ id: `chbk_${offset}`, external_id: `dp_page_${offset}` })], 45, offset) }
  })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  await screen.findByText("dp_page_0")
  expect(screen.getByText(/of 45 results/)).toBeInTheDocument()
  fireEvent.click(screen.getByRole("button", { name: "Next" }))
  await screen.findByText("dp_page_20")
  expect(lastListQuery().get("offset")).toBe("20")
  expect(location()).toBe("/disputes?offset=20")
  fireEvent.click(screen.getByRole("button", { name: "Prev" }))
  await screen.findByText("dp_page_0")
  expect(location()).toBe("/disputes")
})

it("shows each order as #display_id with its customer, linking to the order, and opens the dispute on click", async () => {
  api.on("GET", LIST, {
    body: list([
      chargeback({
        status: "evidence_pending",
        proof_requests: [proofRequest({ status: "pending", scans: [] })],
      }),
      chargeback({
        id: "chbk_02",
        external_id: "dp_guest",
        order_id: "order_02",
        order: { id: "order_02", display_id: 1002, email: "guest@example.com", customer_name: null },
      }),
      chargeback({ id: "chbk_03", external_id: "dp_gone", order_id: "order_03", order: null }),
    ]),
  })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  const table = await screen.findByRole("table", { name: "Chargebacks" })
  const [, first, second, third] = within(table).getAllByRole("row")
  expect(within(first).getByRole("link", { name: "Order #1001" })).toHaveAttribute("href", "/orders/order_01")
  expect(within(first).getByText("Ada Lovelace")).toBeInTheDocument()
  expect(within(first).queryByText("order_01")).not.toBeInTheDocument()
  expect(within(first).getByRole("link", { name: "dp_1001" })).toHaveAttribute("href", "/disputes/chbk_01")
  expect(within(first).getByText("€49.99")).toBeInTheDocument()
  expect(within(first).getByText("Evidence pending")).toBeInTheDocument()
  expect(within(first).getByText("awaiting ServiceScan")).toBeInTheDocument()
  // A guest: the order's email.
  expect(within(second).getByRole("link", { name: "Order #1002" })).toBeInTheDocument()
  expect(within(second).getByText("guest@example.com")).toBeInTheDocument()
  // An order deleted since: its id, and says so.
  expect(within(third).getByRole("link", { name: "Order order_03" })).toBeInTheDocument()
  expect(within(third).getByText("Order deleted")).toBeInTheDocument()
  fireEvent.click(within(first).getByText("Fraudulent transaction"))
  expect(location()).toBe("/disputes/chbk_01")
})

it("shows a represented chargeback as Represented, not Evidence ready", async () => {
  api.on("GET", LIST, {
    body: list([
      chargeback({ dispute_case: { id: "sscase_1", response_status: "represented", outcome: null } as Chargeback["dispute_case"] }),
    ]),
  })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  const table = await screen.findByRole("table", { name: "Chargebacks" })
  expect(within(table).getByText("Represented")).toBeInTheDocument()
  expect(within(table).queryByText("Evidence ready")).not.toBeInTheDocument()
})

it("summarises each row's evidence in the merchant's words", async () => {
  api.on("GET", LIST, { body: list([chargeback()]) })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  expect(await screen.findByText("1 worth disputing · 2 likely true fraud")).toBeInTheDocument()
})

it("shows a loading state until the list arrives", async () => {
  const answer = gate()
  api.on("GET", LIST, async () => {
    await answer.promise
    return { body: list([chargeback()]) }
  })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  expect(await screen.findByText("Loading chargebacks")).toHaveAttribute("role", "status")
  answer.open()
  await screen.findByText("dp_1001")
  expect(screen.queryByText("Loading chargebacks")).not.toBeInTheDocument()
})

it("has an empty state, and another one when filters match nothing", async () => {
  api.on("GET", LIST, { body: list([]) })
  const first = renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  expect(await screen.findByText("No chargebacks yet")).toBeInTheDocument()
  first.unmount()

  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?status=lost&q=zzz" })
  expect(await screen.findByText("No chargebacks match")).toBeInTheDocument()
  fireEvent.click(screen.getByRole("button", { name: "Clear all" }))
  await waitFor(() => expect(location()).toBe("/disputes?q=zzz"))
})

it("shows the server's message when the list fails", async () => {
  api.on("GET", LIST, {
    status: 400,
    body: { type: "invalid_data", message: "Invalid request: due_before must be an ISO 8601 date-time" },
  })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  const alert = await screen.findByRole("alert")
  expect(alert).toHaveTextContent("Could not load chargebacks")
  expect(alert).toHaveTextContent("Invalid request: due_before must be an ISO 8601 date-time")
})

it("speaks German when the admin's language is German", async () => {
  api.on("GET", LIST, {
    body: list([
      chargeback({ dispute_case: { id: "sscase_1", response_status: "represented", outcome: null } as Chargeback["dispute_case"] }),
    ]),
  })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes", language: "de" })
  expect(await screen.findByRole("heading", { level: 1, name: "Streitfälle" })).toBeInTheDocument()
  const table = await screen.findByRole("table", { name: "Rückbuchungen" })
  expect(within(table).getByText("Widersprochen")).toBeInTheDocument()
  expect(within(table).getByText("Antwort bis")).toBeInTheDocument()
  expect(screen.getByRole("link", { name: "Bestellung #1001" })).toBeInTheDocument()
  expect(screen.getByRole("searchbox", { name: "Rückbuchungen durchsuchen" })).toHaveAttribute(
    "placeholder",
    "Streitfall-ID, Bestell-Nr. oder Grund"
  )
})

it("warns when polling stopped on a configuration error", async () => {
  api.on("GET", LIST, { body: list([]) })
  api.on("GET", HEALTH, {
    body: {
      health: {
        ...healthy.health,
        configuration_error: { status: 403, message: "Invalid API key provided", at: "2025-03-01T00:00:00.000Z" },
      },
    },
  })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  expect(await screen.findByText("Evidence collection is stopped")).toBeInTheDocument()
  expect(screen.getByText(/Invalid API key provided/)).toBeInTheDocument()
  expect(screen.getByRole("link", { name: "See what to do" })).toHaveAttribute("href", "/settings/servicescan")
})

describe("dispute page", () => {
  it("shows one chargeback's evidence with the way to its order", async () => {
    api.on("GET", `${LIST}/chbk_01`, { body: { chargeback: chargeback() } })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01" })
    expect(await screen.findByRole("heading", { level: 1, name: "Chargeback dp_1001" })).toBeInTheDocument()
    expect(screen.getByRole("link", { name: "Order #1001" })).toHaveAttribute("href", "/orders/order_01")
    expect(screen.getByText("Ada Lovelace")).toBeInTheDocument()
    expect(screen.getByText("Worth disputing")).toBeInTheDocument()
  })

  it("reads Represented at the top when its case was represented, as the case panel says", async () => {
    api.on("GET", `${LIST}/chbk_01`, {
      body: {
        chargeback: chargeback({
          dispute_case: disputeCase({ response_status: "represented", represented_at: "2025-03-05T10:00:00.000Z" }),
        }),
      },
    })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01" })
    const heading = await screen.findByRole("heading", { level: 1, name: "Chargeback dp_1001" })
    const header = heading.parentElement as HTMLElement
    expect(within(header).getByText("Represented")).toBeInTheDocument()
    expect(within(header).queryByText("Evidence ready")).not.toBeInTheDocument()
    // The case panel below says the same: the evidence was sent.
    expect(within(screen.getByTestId("response-status")).getByText("Evidence sent")).toBeInTheDocument()
  })

  it("names the dispute in the breadcrumb by the processor's id", async () => {
    api.on("GET", `${LIST}/chbk_01`, { body: { chargeback: chargeback() } })
    const match = { params: { id: "chbk_01" } } as unknown as UIMatch
    renderAdmin(<nav>{detailHandle.breadcrumb(match)}</nav>)
    expect(await screen.findByText("dp_1001")).toBeInTheDocument()
  })

  it("says when the chargeback does not exist", async () => {
    api.on("GET", `${LIST}/chbk_missing`, {
      status: 404,
      body: { type: "not_found", message: "Chargeback with id: chbk_missing was not found" },
    })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_missing" })
    const alert = await screen.findByRole("alert")
    expect(alert).toHaveTextContent("Chargeback not found")
    expect(alert).toHaveTextContent("Chargeback with id: chbk_missing was not found")
  })
})

/** A promise the spec resolves when it chooses: a request still in flight. */
function gate() {
  let open = () => {}
  const promise = new Promise<void>((resolve) => {
    open = resolve
  })
  return { promise, open }
}

it("records a chargeback once the list is fresh, without waiting for the health probe", async () => {
  // The health route probes ServiceScan: with the service down, it answers only after a 10 s timeout.
  const healthProbe = gate()
  api.on("GET", HEALTH, async () => {
    if (api.callsTo("GET", HEALTH).length > 1) {
      await healthProbe.promise
    }
    return { body: healthy }
  })
  const listRefetch = gate()
  api.on("GET", LIST, async () => {
    if (api.callsTo("GET", LIST).length > 1) {
      await listRefetch.promise
    }
    return { body: list([]) }
  })
  api.on("POST", LIST, { status: 201, body: { chargeback: chargeback(), created: true } })
  try {
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
    await screen.findByText("No chargebacks yet")
    await waitFor(() => expect(api.callsTo("GET", HEALTH)).toHaveLength(1))

    fireEvent.click(screen.getByRole("button", { name: "Record chargeback" }))
    const dialog = await screen.findByRole("dialog", { name: "Record chargeback" })
    fireEvent.change(within(dialog).getByRole("textbox", { name: "Order ID" }), { target: { value: "order_01" } })
    fireEvent.change(within(dialog).getByRole("textbox", { name: "Processor dispute ID" }), { target: { value: "dp_9" } })
    fireEvent.change(within(dialog).getByRole("textbox", { name: "Disputed amount" }), { target: { value: "10" } })
    fireEvent.change(within(dialog).getByRole("textbox", { name: "Currency" }), { target: { value: "eur" } })
    fireEvent.click(within(dialog).getByRole("button", { name: "Record chargeback" }))

    // Both are refreshed...
    await waitFor(() => expect(api.callsTo("GET", LIST)).toHaveLength(2))
    await waitFor(() => expect(api.callsTo("GET", HEALTH)).toHaveLength(2))
    // ...and the form waits for the list, which the admin sees next...
    expect(screen.queryByText("Chargeback recorded")).not.toBeInTheDocument()
    expect(location()).toBe("/disputes")
    listRefetch.open()
    // ...but not for the health probe, still in flight.
    expect(await screen.findByText("Chargeback recorded")).toBeInTheDocument()
    await waitFor(() => expect(location()).toBe("/disputes/chbk_01"))
    expect(api.callsTo("GET", HEALTH)).toHaveLength(2)
  } finally {
    healthProbe.open()
    listRefetch.open()
  }
})
