/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { fireEvent, screen, waitFor, within } from "@testing-library/react"
import DisputesPage, { config } from "../routes/disputes/page"
import DisputeDetailPage, { handle as detailHandle } from "../routes/disputes/[id]/page"
import type { UIMatch } from "react-router-dom"
import { chargeback, list, proofRequest } from "./support/fixtures"
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

it("has a sidebar entry with an icon", () => {
  expect(config.label).toBe("Disputes")
  expect(config.icon).toBeDefined()
})

it("turns the URL's filters into the list request", async () => {
  api.on("GET", LIST, { body: list([chargeback()], 45, 20) })
  renderAdmin(<DisputesPage />, {
    path: "/disputes",
    url: "/disputes?status=evidence_ready&due_before=2025-04-30&q=dp_1&offset=20&sort=due",
  })
  await screen.findByText("dp_1001")
  const query = lastListQuery()
  expect(query.get("status")).toBe("evidence_ready")
  // "On or before 30 April" in the admin's time zone: up to the start of 1 May, local.
  expect(query.get("due_before")).toBe(new Date(2025, 4, 1).toISOString())
  expect(query.get("q")).toBe("dp_1")
  expect(query.get("offset")).toBe("20")
  expect(query.get("limit")).toBe("20")
  expect(query.get("order")).toBe("due_by")
  expect(query.get("fields")).toContain("+proof_requests.scans.ground_truth")
  // The controls show the URL's state.
  expect(screen.getByRole("searchbox", { name: "Search" })).toHaveValue("dp_1")
  expect(screen.getByLabelText("Respond by, on or before")).toHaveValue("2025-04-30")
  expect(screen.getByRole("combobox", { name: "Status" })).toHaveTextContent("Evidence ready")
})

it("leaves out empty filters", async () => {
  api.on("GET", LIST, { body: list([chargeback()]) })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?status=bogus&q=" })
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
  fireEvent.change(screen.getByRole("searchbox", { name: "Search" }), { target: { value: "  order_9 " } })
  // Not on every keystroke.
  expect(api.callsTo("GET", LIST)).toHaveLength(before)
  await waitFor(() => expect(lastListQuery().get("q")).toBe("order_9"))
  expect(lastListQuery().get("offset")).toBe("0")
  expect(location()).toBe("/disputes?q=order_9")
})

it("filters by status and deadline", async () => {
  api.on("GET", LIST, { body: list([chargeback()]) })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  await screen.findByText("dp_1001")

  const status = screen.getByRole("combobox", { name: "Status" })
  status.focus()
  fireEvent.keyDown(status, { key: "Enter" })
  fireEvent.click(await screen.findByRole("option", { name: "No evidence" }))
  await waitFor(() => expect(lastListQuery().get("status")).toBe("no_evidence"))

  fireEvent.change(screen.getByLabelText("Respond by, on or before"), { target: { value: "2025-06-01" } })
  await waitFor(() => expect(lastListQuery().get("due_before")).toBe(new Date(2025, 5, 2).toISOString()))
  expect(lastListQuery().get("status")).toBe("no_evidence")
  expect(location()).toBe("/disputes?status=no_evidence&due_before=2025-06-01")
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

it("links each row to its order and opens the dispute on click", async () => {
  api.on("GET", LIST, {
    body: list([
      chargeback({
        status: "evidence_pending",
        proof_requests: [proofRequest({ status: "pending", scans: [] })],
      }),
    ]),
  })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  const row = (await screen.findAllByTestId("chargeback-row"))[0]
  expect(within(row).getByRole("link", { name: "Order order_01" })).toHaveAttribute("href", "/orders/order_01")
  expect(within(row).getByRole("link", { name: "dp_1001" })).toHaveAttribute("href", "/disputes/chbk_01")
  expect(within(row).getByText("€49.99")).toBeInTheDocument()
  expect(within(row).getByText("Evidence pending")).toBeInTheDocument()
  expect(within(row).getByText("awaiting ServiceScan")).toBeInTheDocument()
  fireEvent.click(within(row).getByText("Fraudulent transaction"))
  expect(location()).toBe("/disputes/chbk_01")
})

it("summarises each row's evidence in the merchant's words", async () => {
  api.on("GET", LIST, { body: list([chargeback()]) })
  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  expect(await screen.findByText("1 worth disputing · 2 likely true fraud")).toBeInTheDocument()
})

it("has an empty state, and another one when filters match nothing", async () => {
  api.on("GET", LIST, { body: list([]) })
  const first = renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
  expect(await screen.findByText("No chargebacks yet")).toBeInTheDocument()
  first.unmount()

  renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?status=lost&q=zzz" })
  expect(await screen.findByText("No chargebacks match")).toBeInTheDocument()
  fireEvent.click(screen.getByRole("button", { name: "Clear filters" }))
  await waitFor(() => expect(location()).toBe("/disputes"))
  expect(screen.getByRole("searchbox", { name: "Search" })).toHaveValue("")
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
    expect(screen.getByRole("link", { name: "order_01" })).toHaveAttribute("href", "/orders/order_01")
    expect(screen.getByText("Worth disputing")).toBeInTheDocument()
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
