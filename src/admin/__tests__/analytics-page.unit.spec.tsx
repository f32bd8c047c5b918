/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { screen, within } from "@testing-library/react"
import DisputeAnalyticsPage from "../routes/disputes/analytics/page"
import type { DisputeAnalytics, DisputeAnalyticsFigures } from "../lib/analytics"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const ANALYTICS = "/admin/servicescan/analytics"

const EMPTY: DisputeAnalyticsFigures = {
  orders: 0,
  orders_with_scan: 0,
  scan_share: null,
  chargebacks: 0,
  chargeback_ratio: null,
  won: 0,
  lost: 0,
  closed: 0,
  pending: 0,
  win_rate: null,
  recovered: "0.00",
  lost_amount: "0.00",
  at_stake: "0.00",
  due_soon: 0,
  verdicts: { valid: 0, invalid: 0, unjudged: 0 },
  visa_exceeded: false,
  mastercard_exceeded: false,
}

/** What the route answers (src/api/admin/servicescan/analytics/route.ts) for two months. */
function analytics(february: Partial<DisputeAnalyticsFigures> = {}): { analytics: DisputeAnalytics } {
  const feb = { ...EMPTY, ...february }
  return {
    analytics: {
      currency: "usd",
      currencies: ["usd", "eur"],
      from: "2026-01",
      to: "2026-02",
      due_window_days: 7,
      thresholds: { visa_ratio: 0.009, mastercard_ratio: 0.015, mastercard_min_chargebacks: 100 },
      months: [
        { month: "2026-01", ...EMPTY },
        { month: "2026-02", ...feb },
      ],
      totals: feb,
    },
  }
}

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
})
afterEach(() => {
  api.restore()
})

const URL_RANGE = "/disputes/analytics?from=2026-01&to=2026-02&currency_code=usd"

it("asks for the range and currency in the URL, and shows the chart and every figure in a table", async () => {
  api.on("GET", ANALYTICS, {
    body: analytics({ orders: 4, orders_with_scan: 3, scan_share: 0.75, chargebacks: 1, chargeback_ratio: 0.25, won: 1, win_rate: 1, recovered: "25.50", visa_exceeded: true }),
  })
  renderAdmin(<DisputeAnalyticsPage />, { url: URL_RANGE })
  const chart = await screen.findByRole("img", { name: "Chargeback ratio by month, USD" })
  expect(chart).toHaveAccessibleDescription(/against the Visa line at 0.9% and the Mastercard line at 1.5% \(with at least 100 chargebacks\)/)
  const table = screen.getByRole("table", { name: "Dispute figures by month, USD" })
  const row = (label: string) =>
    within(screen.getByRole("rowheader", { name: label }).closest("tr") as HTMLElement)
      .getAllByRole("cell")
      .map((cell) => cell.textContent)
  expect(within(table).getAllByRole("columnheader").map((th) => th.textContent)).toEqual(["Figure", "Jan 2026", "Feb 2026", "Total"])
  expect(row("Chargeback ratio")).toEqual(["n/a", "25%", "25%"])
  expect(row("Recovered")).toEqual(["$0.00", "$25.50", "$25.50"])
  expect(row("Orders with a scan")).toEqual(["n/a", "75%", "75%"])
  expect(row("Over the Visa line")).toEqual(["No", "Yes", "Yes"])
  expect(row("Due in the next 7 days")).toEqual(["0", "0", "0"])
  const [call] = api.callsTo("GET", ANALYTICS)
  expect(Object.fromEntries(call.url.searchParams)).toEqual({ from: "2026-01", to: "2026-02", currency_code: "usd" })
})

it("says so when the range has no orders and no chargebacks", async () => {
  api.on("GET", ANALYTICS, { body: analytics() })
  renderAdmin(<DisputeAnalyticsPage />, { url: URL_RANGE })
  expect(await screen.findByText("No orders or chargebacks in this range")).toBeInTheDocument()
  expect(screen.queryByRole("table")).not.toBeInTheDocument()
})

it("shows the server's message when the route refuses, with a way to try again", async () => {
  api.on("GET", ANALYTICS, { status: 400, body: { type: "invalid_data", message: "Invalid request: to must not be before from" } })
  renderAdmin(<DisputeAnalyticsPage />, { url: URL_RANGE })
  const alert = await screen.findByRole("alert")
  expect(alert).toHaveTextContent("Could not load the analytics")
  expect(alert).toHaveTextContent("to must not be before from")
  expect(within(alert).getByRole("button", { name: "Try again" })).toBeInTheDocument()
})

it("shows a labelled loading state first", async () => {
  api.on("GET", ANALYTICS, () => new Promise(() => undefined))
  renderAdmin(<DisputeAnalyticsPage />, { url: URL_RANGE })
  expect(await screen.findByRole("status", { name: "Loading analytics" })).toBeInTheDocument()
})

it("speaks German through the admin's translations", async () => {
  api.on("GET", ANALYTICS, { body: analytics({ orders: 2, chargebacks: 1, chargeback_ratio: 0.5 }) })
  renderAdmin(<DisputeAnalyticsPage />, { url: URL_RANGE, language: "de" })
  expect(await screen.findByRole("img", { name: "Rückbuchungsquote pro Monat, USD" })).toBeInTheDocument()
  expect(screen.getByRole("table", { name: "Streitfall-Zahlen pro Monat, USD" })).toBeInTheDocument()
})
