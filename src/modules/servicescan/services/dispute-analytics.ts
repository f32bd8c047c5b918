import type { Context } from "@medusajs/framework/types"
import { MathBN, MedusaError } from "@medusajs/framework/utils"
import { currencyExponent } from "../../../processors/money"
import { RESOLVED_OPTIONS, ResolvedServiceScanModuleOptions, WithResolvedOptions } from "../options"
import type { ChargebackMonthRow, DisputeAnalyticsSqlRepository, OrderMonthRow } from "../repositories/dispute-analytics"
import type { DisputeAnalytics, DisputeAnalyticsFigures } from "../types"

type InjectedDependencies = WithResolvedOptions & {
  disputeAnalyticsSqlRepository: DisputeAnalyticsSqlRepository
}

/** Days ahead (today included) in which a pending chargeback's reply-by day counts as due soon. */
export const DUE_SOON_DAYS = 7
/** The most months one analytics read spans: the admin's longest range is two years. */
export const MAX_ANALYTICS_MONTHS = 36

const DAY_MS = 24 * 60 * 60 * 1000

/** `YYYY-MM` months from `from` to `to`, both included. */
export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = []
  let [year, month] = from.split("-").map(Number)
  const [endYear, endMonth] = to.split("-").map(Number)
  while (year < endYear || (year === endYear && month <= endMonth)) {
    months.push(`${year}-${String(month).padStart(2, "0")}`)
    month += 1
    if (month > 12) {
      month = 1
      year += 1
    }
  }
  return months
}

/** The first instant (UTC) of a month, `offset` months after `month`. */
function monthStart(month: string, offset = 0): Date {
  const [year, m] = month.split("-").map(Number)
  return new Date(Date.UTC(year, m - 1 + offset, 1))
}

/** A percent option (0.9) in basis points (90): the thresholds are compared in integers, never as floats. */
function basisPoints(percent: number): number {
  return Math.round(percent * 100)
}

/**
 * The admin's dispute analytics (docs/disputes.md, "Analytics"): the SQL
 * counts and sums by month (repositories/dispute-analytics.ts); this service
 * fills the months without data, derives the ratios and compares them with
 * the card networks' lines of the `monitoring` option.
 */
export class DisputeAnalyticsService {
  protected readonly sql_: DisputeAnalyticsSqlRepository
  protected readonly monitoring_: ResolvedServiceScanModuleOptions["monitoring"]

  constructor(dependencies: InjectedDependencies) {
    this.sql_ = dependencies.disputeAnalyticsSqlRepository
    this.monitoring_ = dependencies[RESOLVED_OPTIONS].monitoring
  }

  /**
   * The figures of each month from `from` to `to` (`YYYY-MM`, UTC, at most
   * {@link MAX_ANALYTICS_MONTHS}) in `currency` (default: the most used one),
   * and their totals. `now` sets "today" for the due-soon count.
   */
  async read(input: { from: string; to: string; currency?: string; now?: Date }, sharedContext: Context): Promise<DisputeAnalytics> {
    const months = monthsBetween(input.from, input.to)
    if (!months.length || months.length > MAX_ANALYTICS_MONTHS) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, `to: the range must span 1 to ${MAX_ANALYTICS_MONTHS} months (from ${input.from})`)
    }
    const currencies = await this.sql_.currencies(sharedContext)
    const currency = (input.currency ?? currencies[0] ?? "usd").toLowerCase()
    const now = input.now ?? new Date()
    const day = (date: Date) => date.toISOString().slice(0, 10)
    const [chargebackRows, orderRows] = await Promise.all([
      this.sql_.chargebacksByMonth(
        { currency, from: input.from, to: input.to, today: day(now), dueUntil: day(new Date(now.getTime() + DUE_SOON_DAYS * DAY_MS)) },
        sharedContext
      ),
      this.sql_.ordersByMonth(
        { currency, start: monthStart(input.from), end: monthStart(input.to, 1) },
        sharedContext
      ),
    ])
    const chargebacksOf = new Map(chargebackRows.map((row) => [row.month, row]))
    const ordersOf = new Map(orderRows.map((row) => [row.month, row]))
    const exponent = currencyExponent(currency)
    const figures = months.map((month) => ({ month, ...this.figures(chargebacksOf.get(month), ordersOf.get(month), exponent) }))
    return {
      currency,
      currencies: currencies.includes(currency) ? currencies : [...currencies, currency],
      from: input.from,
      to: input.to,
      due_window_days: DUE_SOON_DAYS,
      thresholds: {
        visa_ratio: basisPoints(this.monitoring_.visaRatioPercent) / 10_000,
        mastercard_ratio: basisPoints(this.monitoring_.mastercardRatioPercent) / 10_000,
        mastercard_min_chargebacks: this.monitoring_.mastercardMinChargebacks,
      },
      months: figures,
      totals: this.figures(sumChargebacks(chargebackRows), sumOrders(orderRows), exponent),
    }
  }

  private figures(chargebacks: ChargebackMonthRow | undefined, orders: OrderMonthRow | undefined, exponent: number): DisputeAnalyticsFigures {
    const cb = chargebacks ?? emptyChargebacks("")
    const placed = orders?.orders ?? 0
    const decided = cb.won + cb.lost
    // chargebacks ÷ orders ≥ bps ÷ 10 000, in integers: 9 of 1 000 is exactly at Visa's 0.9 %.
    const atOrOver = (bps: number) => placed > 0 && cb.chargebacks * 10_000 >= placed * bps
    const money = (value: string) => MathBN.convert(value).toFixed(exponent)
    return {
      orders: placed,
      orders_with_scan: orders?.orders_with_scan ?? 0,
      scan_share: placed ? (orders?.orders_with_scan ?? 0) / placed : null,
      chargebacks: cb.chargebacks,
      chargeback_ratio: placed ? cb.chargebacks / placed : null,
      won: cb.won,
      lost: cb.lost,
      closed: cb.closed,
      pending: cb.pending,
      win_rate: decided ? cb.won / decided : null,
      recovered: money(cb.recovered),
      lost_amount: money(cb.lost_amount),
      at_stake: money(cb.at_stake),
      due_soon: cb.due_soon,
      verdicts: { valid: cb.scans_valid, invalid: cb.scans_invalid, unjudged: cb.scans_unjudged },
      visa_exceeded: atOrOver(basisPoints(this.monitoring_.visaRatioPercent)),
      mastercard_exceeded:
        atOrOver(basisPoints(this.monitoring_.mastercardRatioPercent)) && cb.chargebacks >= this.monitoring_.mastercardMinChargebacks,
    }
  }
}

/** A month with no chargebacks, as the repository would answer it. */
export function emptyChargebacks(month: string): ChargebackMonthRow {
  return {
    month,
    chargebacks: 0,
    won: 0,
    lost: 0,
    closed: 0,
    pending: 0,
    recovered: "0",
    lost_amount: "0",
    at_stake: "0",
    due_soon: 0,
    scans_valid: 0,
    scans_invalid: 0,
    scans_unjudged: 0,
  }
}

function sumChargebacks(rows: ChargebackMonthRow[]): ChargebackMonthRow {
  const total = emptyChargebacks("")
  const add = (a: string, b: string) => MathBN.add(a, b).toFixed()
  for (const row of rows) {
    total.chargebacks += row.chargebacks
    total.won += row.won
    total.lost += row.lost
    total.closed += row.closed
    total.pending += row.pending
    total.recovered = add(total.recovered, row.recovered)
    total.lost_amount = add(total.lost_amount, row.lost_amount)
    total.at_stake = add(total.at_stake, row.at_stake)
    total.due_soon += row.due_soon
    total.scans_valid += row.scans_valid
    total.scans_invalid += row.scans_invalid
    total.scans_unjudged += row.scans_unjudged
  }
  return total
}

function sumOrders(rows: OrderMonthRow[]): OrderMonthRow {
  return rows.reduce((total, row) => ({ ...total, orders: total.orders + row.orders, orders_with_scan: total.orders_with_scan + row.orders_with_scan }), {
    month: "",
    orders: 0,
    orders_with_scan: 0,
  })
}
