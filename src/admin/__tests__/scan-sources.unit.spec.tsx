/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { screen, within } from "@testing-library/react"
import type { AdminOrder } from "@medusajs/framework/types"
import DisputeDetailPage from "../routes/disputes/[id]/page"
import OrderChargebacksWidget from "../widgets/order-chargebacks"
import { chargeback, INVALID_SCAN, list, proofRequest, VALID_SCAN } from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const LIST = "/admin/servicescan/chargebacks"

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
})
afterEach(() => {
  api.restore()
})

/**
 * A chargeback on an order paid with a saved card: its evidence is the scan made when the card
 * was saved (order #12) and a scan of an earlier payment with the same card whose order number
 * is unknown (the order is gone), next to a scan of its own.
 */
const savedCardChargeback = () =>
  chargeback({
    order_id: "order_02",
    proof_requests: [
      proofRequest({
        scans: [
          { id: "ssev_1", scan_id: VALID_SCAN, ground_truth: "valid", image_url: null },
          { id: "ssev_2", scan_id: INVALID_SCAN, ground_truth: "invalid", image_url: null },
          { id: "ssev_3", scan_id: "3f0c9a7e-52d1-4c8b-9e6a-0b7d1c2e4f58", ground_truth: "valid", image_url: null },
        ],
      }),
    ],
    scan_sources: [
      // The server answers ids as stored; the match is case-blind.
      { scan_id: VALID_SCAN.toUpperCase(), order_id: "order_01", order_display_id: 12 },
      { scan_id: INVALID_SCAN, order_id: "order_00", order_display_id: null },
    ],
  })

const rowOf = (scanId: string) => screen.getAllByTestId("scan-row").find((row) => within(row).queryByText(scanId))!

function expectSources() {
  const borrowed = within(rowOf(VALID_SCAN)).getByTestId("scan-source")
  expect(borrowed).toHaveTextContent("Scanned for order #12, with the same saved card.")
  expect(within(borrowed).getByRole("link", { name: "order #12" })).toHaveAttribute("href", "/orders/order_01")

  const gone = within(rowOf(INVALID_SCAN)).getByTestId("scan-source")
  expect(gone).toHaveTextContent("Scanned for order order_00, with the same saved card.")
  expect(within(gone).getByRole("link", { name: "order order_00" })).toHaveAttribute("href", "/orders/order_00")

  // The disputed order's own scan says nothing about another order.
  expect(within(rowOf("3f0c9a7e-52d1-4c8b-9e6a-0b7d1c2e4f58")).queryByTestId("scan-source")).toBeNull()
  expect(screen.getAllByTestId("scan-source")).toHaveLength(2)
}

describe("where a chargeback's borrowed scans came from", () => {
  it("shows each borrowed scan's earlier order in the order widget", async () => {
    api.on("GET", LIST, { body: list([savedCardChargeback()]) })
    const order = { id: "order_02", currency_code: "eur", total: 49.99, payment_collections: [] } as unknown as AdminOrder
    renderAdmin(<OrderChargebacksWidget data={order} />)
    await screen.findByRole("heading", { name: "Chargeback dp_1001" })
    expectSources()
  })

  it("shows them on the dispute page", async () => {
    api.on("GET", `${LIST}/chbk_01`, { body: { chargeback: savedCardChargeback() } })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01" })
    await screen.findByRole("heading", { level: 1, name: "Chargeback dp_1001" })
    expectSources()
    // Read from the chargeback itself: no request of its own.
    expect(api.calls.map((call) => call.url.pathname)).toEqual([`${LIST}/chbk_01`])
  })

  it("shows nothing of the kind for a chargeback without borrowed scans", async () => {
    api.on("GET", `${LIST}/chbk_01`, { body: { chargeback: chargeback() } })
    renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01" })
    await screen.findByRole("heading", { level: 1, name: "Chargeback dp_1001" })
    expect(screen.getAllByTestId("scan-row").length).toBeGreaterThan(0)
    expect(screen.queryByTestId("scan-source")).toBeNull()
  })
})
