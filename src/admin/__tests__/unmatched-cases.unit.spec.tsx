/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { fireEvent, screen, waitFor, within } from "@testing-library/react"
import DisputesPage from "../routes/disputes/page"
import { formatDay } from "../lib/format"
import type { DisputeCase } from "../lib/types"
import { disputeCase, list, utcDay } from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const CASES = "/admin/servicescan/cases"
const LIST = "/admin/servicescan/chargebacks"
const HEALTH = "/admin/servicescan/health"
const IMPORT = "/admin/servicescan/cases/import"

function health(dispute_gateway: { name: string } | null = { name: "worldpay" }) {
  return {
    health: {
      ok: true,
      keys: { secret_key: true },
      service: { reachable: true },
      configuration_error: null,
      polling: { stopped: false, counts: {} },
      dispute_gateway,
      auto_respond: "off",
    },
  }
}

/** A case that matched no payment: a phone order taken outside the storefront. */
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
    reason_code: "10.4",
    reason_description: "Other Fraud - Card Absent Environment",
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

/** The list requests of the view (the tab's own count asks for one row). */
const viewCalls = () => api.callsTo("GET", CASES).filter((call) => call.url.searchParams.get("limit") === "20")
const location = () => screen.getByTestId("location").textContent
/** The DataTable's body rows (its header row has no cells). */
const caseRows = async () => {
  const table = await screen.findByRole("table", { name: "Unmatched cases" })
  await waitFor(() => expect(within(table).queryAllByRole("cell").length).toBeGreaterThan(0))
  return within(table)
    .getAllByRole("row")
    .filter((row) => within(row).queryAllByRole("cell").length > 0)
}

describe("Unmatched cases", () => {
  it("is a tab of the Disputes page with the number waiting, and its state in the URL", async () => {
    api.on("GET", CASES, (call) => ({ body: list([unmatched()], 3, 0, Number(call.url.searchParams.get("limit"))) }))
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?status=lost" })
    const tab = await screen.findByRole("tab", { name: "Unmatched cases 3 waiting" })
    expect(screen.getByRole("tab", { name: "Chargebacks" })).toHaveAttribute("aria-selected", "true")
    // The count asks for the unmatched ones only, one row.
    const [count] = api.callsTo("GET", CASES)
    expect(Object.fromEntries(count.url.searchParams)).toEqual({ status: "unmatched", offset: "0", limit: "1" })

    // Radix selects a tab on mouse down (and on focus, from the keyboard).
    fireEvent.mouseDown(tab)
    await caseRows()
    // The chargeback filters do not follow into the other view.
    expect(location()).toBe("/disputes?view=unmatched")
    expect(Object.fromEntries(viewCalls()[0].url.searchParams)).toEqual({ status: "unmatched", offset: "0", limit: "20" })
  })

  it("shows each case with what the processor knows about it", async () => {
    api.on("GET", CASES, { body: list([unmatched()]) })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched" })
    const [row] = await caseRows()
    expect(within(row).getByText("510000000042")).toBeInTheDocument()
    expect(within(row).getByText("Worldpay · First Chargeback")).toBeInTheDocument()
    expect(within(row).getByText("$15.00")).toBeInTheDocument()
    expect(within(row).getByText("10.4 · Other Fraud - Card Absent Environment")).toBeInTheDocument()
    expect(within(row).getByText(formatDay(utcDay(5)))).toBeInTheDocument()
    expect(within(row).getByText("5 days left")).toBeInTheDocument()
    expect(within(row).getByText("Transaction 900000000000000042")).toBeInTheDocument()
    expect(within(row).getByText("Order ref. phone-77")).toBeInTheDocument()
    expect(
      within(row).getByText("No payment with transaction 900000000000000042 or order reference phone-77")
    ).toBeInTheDocument()
    expect(within(row).getByRole("button", { name: "Assign to order (case 510000000042)" })).toBeInTheDocument()
  })

  it("searches after a pause in typing", async () => {
    api.on("GET", CASES, { body: list([unmatched()]) })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched" })
    await caseRows()
    fireEvent.change(screen.getByRole("searchbox", { name: "Search cases" }), { target: { value: " phone-77 " } })
    await waitFor(() => expect(viewCalls().at(-1)?.url.searchParams.get("q")).toBe("phone-77"))
    expect(location()).toBe("/disputes?view=unmatched&q=phone-77")
  })

  it("sorts and pages through the server, keeping what the URL says and dropping what it cannot sort by", async () => {
    api.on("GET", CASES, (call) => ({ body: list([unmatched()], 45, Number(call.url.searchParams.get("offset"))) }))
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched&order=-reply_by&offset=20" })
    await caseRows()
    expect(Object.fromEntries(viewCalls()[0].url.searchParams)).toEqual({
      status: "unmatched",
      order: "-reply_by",
      offset: "20",
      limit: "20",
    })
    // The DataTable's pages: 45 cases, the second page of three.
    fireEvent.click(screen.getByRole("button", { name: "Next" }))
    await waitFor(() => expect(location()).toBe("/disputes?view=unmatched&order=-reply_by&offset=40"))
    await waitFor(() => expect(viewCalls().at(-1)?.url.searchParams.get("offset")).toBe("40"))

    const second = renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched&order=match_note" })
    await waitFor(() => expect(viewCalls().at(-1)?.url.searchParams.has("order")).toBe(false))
    second.unmount()
  })

  it("says when there is nothing to assign, and when no dispute gateway is configured", async () => {
    api.on("GET", CASES, { body: list([]) })
    const first = renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched" })
    expect(await screen.findByText("No unmatched cases")).toBeInTheDocument()
    expect(screen.getByRole("tab", { name: "Unmatched cases" })).toBeInTheDocument()
    first.unmount()

    api.on("GET", HEALTH, { body: health(null) })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched" })
    expect(await screen.findByText("No dispute gateway configured")).toBeInTheDocument()
  })

  it("shows the server's message when the cases cannot be listed", async () => {
    api.on("GET", CASES, { status: 400, body: { type: "invalid_data", message: "q must be at most 100 characters" } })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched" })
    const alert = await screen.findByRole("alert")
    expect(alert).toHaveTextContent("Could not load the unmatched cases")
    expect(alert).toHaveTextContent("q must be at most 100 characters")
  })
})

describe("Assign to order", () => {
  async function openDrawer() {
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes?view=unmatched" })
    const [row] = await caseRows()
    fireEvent.click(within(row).getByRole("button", { name: /Assign to order/ }))
    return await screen.findByRole("dialog", { name: "Assign to order" })
  }

  it("checks the order id before sending", async () => {
    api.on("GET", CASES, { body: list([unmatched()]) })
    const drawer = await openDrawer()
    // The case's data, to find the order by.
    expect(drawer).toHaveTextContent("phone-77")
    expect(drawer).toHaveTextContent("900000000000000042")
    const field = within(drawer).getByRole("textbox", { name: "Order ID" })
    const submit = within(drawer).getByRole("button", { name: "Assign to order" })

    fireEvent.click(submit)
    expect(await within(drawer).findByRole("alert")).toHaveTextContent("Enter the order's id (order_…).")
    expect(field).toHaveAttribute("aria-invalid", "true")

    fireEvent.change(field, { target: { value: "#1042" } })
    fireEvent.click(submit)
    expect(await within(drawer).findByRole("alert")).toHaveTextContent('"#1042" looks like the order\'s display number.')

    fireEvent.change(field, { target: { value: "cart_01ABC" } })
    fireEvent.click(submit)
    expect(await within(drawer).findByRole("alert")).toHaveTextContent('"cart_01ABC" is not an order id.')
    expect(api.callsTo("POST", /\/assign$/)).toHaveLength(0)
  })

  it("shows the server's message when the order is unknown", async () => {
    api.on("GET", CASES, { body: list([unmatched()]) })
    api.on("POST", `${CASES}/sscase_02/assign`, {
      status: 404,
      body: { type: "not_found", message: "Order id not found: order_01NOPE" },
    })
    const drawer = await openDrawer()
    fireEvent.change(within(drawer).getByRole("textbox", { name: "Order ID" }), { target: { value: "order_01NOPE" } })
    fireEvent.click(within(drawer).getByRole("button", { name: "Assign to order" }))
    await waitFor(() => expect(within(drawer).getByRole("alert")).toHaveTextContent("Order id not found: order_01NOPE"))
    expect(screen.getByRole("dialog", { name: "Assign to order" })).toBeInTheDocument()
  })

  it("assigns the case, then the list no longer has it", async () => {
    let assigned = false
    api.on("GET", CASES, () => ({ body: assigned ? list([]) : list([unmatched()]) }))
    api.on("POST", `${CASES}/sscase_02/assign`, () => {
      assigned = true
      return { body: { dispute_case: unmatched({ status: "matched", order_id: "order_01" }), chargeback_id: "chbk_02" } }
    })
    const drawer = await openDrawer()
    fireEvent.change(within(drawer).getByRole("textbox", { name: "Order ID" }), { target: { value: " order_01 " } })
    fireEvent.click(within(drawer).getByRole("button", { name: "Assign to order" }))

    expect(await screen.findByText("Case 510000000042 assigned")).toBeInTheDocument()
    expect(api.callsTo("POST", `${CASES}/sscase_02/assign`)[0].body).toEqual({ order_id: "order_01" })
    expect(await screen.findByText("No unmatched cases")).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole("dialog", { name: "Assign to order" })).not.toBeInTheDocument())
  })
})

describe("Import now", () => {
  it("runs the import and says what it found", async () => {
    api.on("GET", CASES, { body: list([]) })
    api.on("POST", IMPORT, {
      body: {
        import: { days: [utcDay(-1), utcDay(0)], cases: 3, new_cases: 2, matched: 2, unmatched: 1, chargebacks_recorded: 2, errors: [] },
      },
    })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
    await screen.findByText("No chargebacks yet")
    const before = api.callsTo("GET", LIST).length
    fireEvent.click(screen.getByRole("button", { name: "Import now" }))
    expect(await screen.findByText("Imported 3 cases")).toBeInTheDocument()
    expect(
      screen.getByText("2 new, 2 matched to orders, 1 unmatched (see Unmatched cases), 2 chargebacks recorded.")
    ).toBeInTheDocument()
    expect(api.callsTo("POST", IMPORT)).toHaveLength(1)
    // New chargebacks show up without a reload.
    await waitFor(() => expect(api.callsTo("GET", LIST).length).toBeGreaterThan(before))
  })

  it("says when the processor had nothing new, and names it", async () => {
    api.on("GET", CASES, { body: list([]) })
    api.on("POST", IMPORT, {
      body: { import: { days: [utcDay(0)], cases: 0, new_cases: 0, matched: 0, unmatched: 0, chargebacks_recorded: 0, errors: [] } },
    })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
    await screen.findByText("No chargebacks yet")
    await waitFor(() => expect(api.callsTo("GET", HEALTH).length).toBeGreaterThan(0))
    fireEvent.click(screen.getByRole("button", { name: "Import now" }))
    expect(await screen.findByText("Up to date")).toBeInTheDocument()
    expect(screen.getByText("Worldpay reported no case changes since the last import.")).toBeInTheDocument()
  })

  it("reports cases that could not be imported", async () => {
    api.on("GET", CASES, { body: list([]) })
    api.on("POST", IMPORT, {
      body: {
        import: {
          cases: 2,
          new_cases: 1,
          matched: 1,
          unmatched: 0,
          chargebacks_recorded: 1,
          errors: ["Case 510000000043: currency XXX is not supported", "Case 510000000044: amount missing"],
        },
      },
    })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
    fireEvent.click(await screen.findByRole("button", { name: "Import now" }))
    expect(await screen.findByText("Imported with 2 errors")).toBeInTheDocument()
    expect(
      screen.getByText("Case 510000000043: currency XXX is not supported (and 1 more; see the server log)")
    ).toBeInTheDocument()
  })

  it.each([
    [400, "No dispute gateway is configured (the servicescan module's disputeGateway option)"],
    [409, "An import is already running"],
  ])("shows the server's message on %i", async (status, message) => {
    api.on("GET", CASES, { body: list([]) })
    api.on("POST", IMPORT, { status, body: { type: status === 409 ? "conflict" : "not_allowed", message } })
    renderAdmin(<DisputesPage />, { path: "/disputes", url: "/disputes" })
    fireEvent.click(await screen.findByRole("button", { name: "Import now" }))
    expect(await screen.findByText("Import failed")).toBeInTheDocument()
    expect(screen.getByText(message)).toBeInTheDocument()
  })
})
