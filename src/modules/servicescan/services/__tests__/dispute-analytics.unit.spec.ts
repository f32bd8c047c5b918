import { resolveModuleOptions, RESOLVED_OPTIONS } from "../../options"
import type { ChargebackMonthRow, DisputeAnalyticsSqlRepository, OrderMonthRow } from "../../repositories/dispute-analytics"
import { DisputeAnalyticsService, emptyChargebacks, monthsBetween } from "../dispute-analytics"

/**
 * What the analytics service derives from the SQL's monthly rows (the SQL
 * itself is checked on PostgreSQL by integration-tests/http/dispute-analytics.spec.ts):
 * the monitoring lines at their exact boundaries, which would take thousands
 * of seeded orders there, and the `monitoring` option's checks. The rows are
 * handed in as the repository would answer them.
 */
function serviceWith(rows: { chargebacks: Partial<ChargebackMonthRow>[]; orders: OrderMonthRow[] }, monitoring?: object) {
  const chargebacks = rows.chargebacks.map((row) => ({ ...emptyChargebacks("2026-02"), ...row }))
  const repository: Pick<DisputeAnalyticsSqlRepository, "chargebacksByMonth" | "ordersByMonth" | "currencies"> = {
    chargebacksByMonth: async () => chargebacks,
    ordersByMonth: async () => rows.orders,
    currencies: async () => ["usd"],
  }
  return new DisputeAnalyticsService({
    disputeAnalyticsSqlRepository: repository as DisputeAnalyticsSqlRepository,
    [RESOLVED_OPTIONS]: resolveModuleOptions({ baseUrl: "https://disputes.example", ...(monitoring ? { monitoring } : {}) }),
  })
}

const february = async (service: DisputeAnalyticsService) =>
  (await service.read({ from: "2026-02", to: "2026-02", currency: "usd" }, {})).months[0]

describe("dispute analytics", () => {
  it("is at the Visa line with exactly 9 chargebacks in 1,000 orders, under it with 8 (no float rounding)", async () => {
    const at = await february(serviceWith({ chargebacks: [{ chargebacks: 9 }], orders: [{ month: "2026-02", orders: 1000, orders_with_scan: 0 }] }))
    expect(at.chargeback_ratio).toBe(0.009)
    expect(at.visa_exceeded).toBe(true)
    const under = await february(serviceWith({ chargebacks: [{ chargebacks: 8 }], orders: [{ month: "2026-02", orders: 1000, orders_with_scan: 0 }] }))
    expect(under.visa_exceeded).toBe(false)
  })

  it("is over the Mastercard line only at 1.5 % with at least 100 chargebacks", async () => {
    const orders = (count: number) => [{ month: "2026-02", orders: count, orders_with_scan: 0 }]
    expect((await february(serviceWith({ chargebacks: [{ chargebacks: 100 }], orders: orders(6_666) }))).mastercard_exceeded).toBe(true)
    expect((await february(serviceWith({ chargebacks: [{ chargebacks: 100 }], orders: orders(6_667) }))).mastercard_exceeded).toBe(false)
    // 99 of 100 orders is 99 %, but under Mastercard's count.
    expect((await february(serviceWith({ chargebacks: [{ chargebacks: 99 }], orders: orders(100) }))).mastercard_exceeded).toBe(false)
  })

  it("takes its lines from the monitoring option", async () => {
    const service = serviceWith(
      { chargebacks: [{ chargebacks: 5 }], orders: [{ month: "2026-02", orders: 1000, orders_with_scan: 0 }] },
      { visaRatioPercent: 0.5, mastercardRatioPercent: 0.5, mastercardMinChargebacks: 5 }
    )
    const analytics = await service.read({ from: "2026-02", to: "2026-02", currency: "usd" }, {})
    expect(analytics.thresholds).toEqual({ visa_ratio: 0.005, mastercard_ratio: 0.005, mastercard_min_chargebacks: 5 })
    expect(analytics.months[0]).toMatchObject({ visa_exceeded: true, mastercard_exceeded: true })
  })

  it("formats money with the currency's decimals and adds months exactly", async () => {
    const service = serviceWith({
      chargebacks: [
        { month: "2026-01", chargebacks: 1, won: 1, recovered: "0.1" },
        { month: "2026-02", chargebacks: 1, won: 1, recovered: "0.2" },
      ],
      orders: [],
    })
    const analytics = await service.read({ from: "2026-01", to: "2026-02", currency: "usd" }, {})
    expect(analytics.months.map((m) => m.recovered)).toEqual(["0.10", "0.20"])
    // 0.1 + 0.2 in floats is 0.30000000000000004.
    expect(analytics.totals.recovered).toBe("0.30")
    expect(analytics.totals.chargeback_ratio).toBeNull()
  })

  it("lists the months of a range across a year end, and refuses an empty or too long one", async () => {
    expect(monthsBetween("2025-11", "2026-02")).toEqual(["2025-11", "2025-12", "2026-01", "2026-02"])
    const service = serviceWith({ chargebacks: [], orders: [] })
    await expect(service.read({ from: "2026-03", to: "2026-02" }, {})).rejects.toThrow("to: the range must span 1 to 36 months")
    await expect(service.read({ from: "2020-01", to: "2026-02" }, {})).rejects.toThrow("to: the range must span 1 to 36 months")
  })

  it("refuses a monitoring option out of range, naming it", () => {
    expect(() => resolveModuleOptions({ baseUrl: "https://disputes.example", monitoring: { visaRatioPercent: 0 } })).toThrow(
      "monitoring.visaRatioPercent"
    )
    expect(() => resolveModuleOptions({ baseUrl: "https://disputes.example", monitoring: { mastercardMinChargebacks: 1.5 } })).toThrow(
      "monitoring.mastercardMinChargebacks"
    )
  })
})
