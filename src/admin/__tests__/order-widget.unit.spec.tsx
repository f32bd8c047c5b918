/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { fireEvent, screen, waitFor, within } from "@testing-library/react"
import type { AdminOrder } from "@medusajs/framework/types"
import OrderChargebacksWidget, { config } from "../widgets/order-chargebacks"
import { chargeback, list, VALID_SCAN } from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const LIST = "/admin/servicescan/chargebacks"

/** The part of the dashboard's order the widget reads; the rest is irrelevant here. */
const order = {
  id: "order_01",
  currency_code: "eur",
  total: 49.99,
  payment_collections: [
    {
      payments: [
        { id: "pay_1", provider_id: "pp_servicescan_servicescan", data: { scan_id: VALID_SCAN, form_id: VALID_SCAN } },
        { id: "pay_2", provider_id: "pp_system_default", data: {} },
      ],
    },
  ],
} as unknown as AdminOrder

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
})
afterEach(() => {
  api.restore()
})

it("is registered in the order page's main column", () => {
  expect(config.zone).toBe("order.details")
})

it("asks for this order's chargebacks with their evidence", async () => {
  api.on("GET", LIST, { body: list([chargeback()]) })
  renderAdmin(<OrderChargebacksWidget data={order} />)
  await screen.findByRole("heading", { name: "Chargeback dp_1001" })
  const [call] = api.callsTo("GET", LIST)
  expect(call.url.searchParams.get("order_id")).toBe("order_01")
  const fields = call.url.searchParams.get("fields") ?? ""
  expect(fields.split(",")).toEqual(
    expect.arrayContaining(["+proof_requests.status", "+proof_requests.scans.scan_id", "+proof_requests.scans.ground_truth"])
  )
  // Evidence, amount and the way to the dispute page.
  expect(screen.getByText("€49.99")).toBeInTheDocument()
  expect(screen.getByText("Worth disputing")).toBeInTheDocument()
  expect(screen.getByRole("link", { name: /open in disputes/i })).toHaveAttribute("href", "/disputes/chbk_01")
})

it("shows a loading skeleton, then the order's payment scan ids", async () => {
  api.on("GET", LIST, { body: list([]) })
  renderAdmin(<OrderChargebacksWidget data={order} />)
  expect(screen.getByRole("status", { name: "Loading chargebacks" })).toBeInTheDocument()
  const scanIds = await screen.findByRole("list", { name: "Scan ids of this order's payments" })
  expect(within(scanIds).getAllByRole("listitem")).toHaveLength(1)
  expect(within(scanIds).getByText(VALID_SCAN)).toBeInTheDocument()
})

it("without chargebacks, says so and offers to record one", async () => {
  api.on("GET", LIST, { body: list([]) })
  renderAdmin(<OrderChargebacksWidget data={order} />)
  expect(await screen.findByText("No chargebacks")).toBeInTheDocument()
  expect(screen.getByRole("button", { name: "Record chargeback" })).toBeInTheDocument()
})

it("records a chargeback: checks the form, then sends it with an exact amount", async () => {
  api.on("GET", LIST, { body: list([]) })
  api.on("POST", LIST, { status: 201, body: { chargeback: chargeback(), created: true } })
  renderAdmin(<OrderChargebacksWidget data={order} />)
  fireEvent.click(await screen.findByRole("button", { name: "Record chargeback" }))

  const dialog = await screen.findByRole("dialog", { name: "Record chargeback" })
  // The order's currency is fixed and its total is the starting amount.
  expect(within(dialog).getByRole("textbox", { name: "Currency" })).toHaveValue("EUR")
  expect(within(dialog).getByRole("textbox", { name: "Currency" })).toHaveAttribute("readonly")
  expect(within(dialog).getByRole("textbox", { name: "Disputed amount" })).toHaveValue("49.99")
  expect(within(dialog).queryByRole("textbox", { name: "Order ID" })).not.toBeInTheDocument()

  // Missing dispute id and a euro amount with three decimals: both named, nothing sent.
  fireEvent.change(within(dialog).getByRole("textbox", { name: "Disputed amount" }), { target: { value: "12.345" } })
  fireEvent.click(within(dialog).getByRole("button", { name: "Record chargeback" }))
  expect(await within(dialog).findByText("EUR amounts have at most 2 decimals.")).toBeInTheDocument()
  expect(within(dialog).getByText(/Enter the processor's dispute id/)).toBeInTheDocument()
  expect(api.callsTo("POST", LIST)).toHaveLength(0)

  fireEvent.change(within(dialog).getByRole("textbox", { name: "Disputed amount" }), { target: { value: "12,30" } })
  fireEvent.change(within(dialog).getByRole("textbox", { name: "Processor dispute ID" }), { target: { value: " dp_2002 " } })
  fireEvent.change(within(dialog).getByRole("textbox", { name: "Reason (optional)" }), { target: { value: "Not received" } })
  fireEvent.change(within(dialog).getByLabelText(/Respond by/), { target: { value: "2025-04-30" } })
  fireEvent.click(within(dialog).getByRole("button", { name: "Record chargeback" }))

  expect(await screen.findByText("Chargeback recorded")).toBeInTheDocument()
  const [call] = api.callsTo("POST", LIST)
  expect(call.body).toEqual({
    order_id: "order_01",
    external_id: "dp_2002",
    amount: "12.30",
    currency_code: "eur",
    reason: "Not received",
    due_by: new Date(2025, 3, 30, 23, 59, 59, 999).toISOString(),
  })
  // The list is refetched after the change.
  await waitFor(() => expect(api.callsTo("GET", LIST).length).toBeGreaterThan(1))
})

it("starts from the order's total in the currency's ISO 4217 decimals, which HUF has two of", async () => {
  // V8's CLDR data says HUF has no decimals; the payment provider counts it in fillér.
  api.on("GET", LIST, { body: list([]) })
  api.on("POST", LIST, { status: 201, body: { chargeback: chargeback({ currency_code: "huf" }), created: true } })
  renderAdmin(<OrderChargebacksWidget data={{ ...order, currency_code: "huf", total: 12345.5 } as AdminOrder} />)
  fireEvent.click(await screen.findByRole("button", { name: "Record chargeback" }))
  const dialog = await screen.findByRole("dialog", { name: "Record chargeback" })
  expect(within(dialog).getByRole("textbox", { name: "Disputed amount" })).toHaveValue("12345.50")
  fireEvent.change(within(dialog).getByRole("textbox", { name: "Processor dispute ID" }), { target: { value: "dp_huf" } })
  fireEvent.click(within(dialog).getByRole("button", { name: "Record chargeback" }))
  expect(await screen.findByText("Chargeback recorded")).toBeInTheDocument()
  expect(api.callsTo("POST", LIST)[0].body).toMatchObject({ amount: "12345.50", currency_code: "huf" })
})

it("says when the dispute id was already recorded", async () => {
  api.on("GET", LIST, { body: list([]) })
  api.on("POST", LIST, { status: 200, body: { chargeback: chargeback(), created: false } })
  renderAdmin(<OrderChargebacksWidget data={order} />)
  fireEvent.click(await screen.findByRole("button", { name: "Record chargeback" }))
  const dialog = await screen.findByRole("dialog", { name: "Record chargeback" })
  fireEvent.change(within(dialog).getByRole("textbox", { name: "Processor dispute ID" }), { target: { value: "dp_1001" } })
  fireEvent.click(within(dialog).getByRole("button", { name: "Record chargeback" }))
  expect(await screen.findByText("Already recorded")).toBeInTheDocument()
})

it("shows the server's message when loading fails", async () => {
  api.on("GET", LIST, { status: 500, body: { type: "unknown_error", message: "Database is unavailable" } })
  renderAdmin(<OrderChargebacksWidget data={order} />)
  const alert = await screen.findByRole("alert")
  expect(alert).toHaveTextContent("Could not load this order's chargebacks")
  expect(alert).toHaveTextContent("Database is unavailable")
  api.on("GET", LIST, { body: list([]) })
  fireEvent.click(within(alert).getByRole("button", { name: "Try again" }))
  expect(await screen.findByText("No chargebacks")).toBeInTheDocument()
})

it("shows the server's validation message when recording is refused", async () => {
  api.on("GET", LIST, { body: list([]) })
  api.on("POST", LIST, {
    status: 400,
    body: { type: "invalid_data", message: "Order order_01 has no payment in eur" },
  })
  renderAdmin(<OrderChargebacksWidget data={order} />)
  fireEvent.click(await screen.findByRole("button", { name: "Record chargeback" }))
  const dialog = await screen.findByRole("dialog", { name: "Record chargeback" })
  fireEvent.change(within(dialog).getByRole("textbox", { name: "Processor dispute ID" }), { target: { value: "dp_3" } })
  fireEvent.click(within(dialog).getByRole("button", { name: "Record chargeback" }))
  await waitFor(() =>
    expect(within(dialog).getByRole("alert")).toHaveTextContent("Order order_01 has no payment in eur")
  )
})
