import { keepPreviousData, useQuery } from "@tanstack/react-query"
import type { DisputeAnalytics, DisputeAnalyticsFigures } from "../../modules/servicescan/types"
import { sdk } from "./sdk"

export type { DisputeAnalytics, DisputeAnalyticsFigures }

/** What the analytics page asks for: months `YYYY-MM` (UTC) and a currency; all optional (the server has defaults). */
export type AnalyticsQuery = { from?: string; to?: string; currency_code?: string }

/** The most months the route answers at once (the server's `MAX_ANALYTICS_MONTHS`). */
export const MAX_MONTHS = 36

/** `GET /admin/servicescan/analytics`. */
export function useDisputeAnalytics(query: AnalyticsQuery) {
  const params: Record<string, string> = {}
  for (const [key, value] of Object.entries(query)) {
    if (value) {
      params[key] = value
    }
  }
  return useQuery({
    queryKey: ["servicescan", "analytics", params],
    queryFn: async () => (await sdk.client.fetch<{ analytics: DisputeAnalytics }>("/admin/servicescan/analytics", { query: params })).analytics,
    // Switching the range keeps the last figures on screen until the new ones arrive.
    placeholderData: keepPreviousData,
    retry: false,
  })
}

/** The `YYYY-MM` month `by` months after `month`. */
export function shiftMonth(month: string, by: number): string {
  const [year, m] = month.split("-").map(Number)
  const date = new Date(Date.UTC(year, m - 1 + by, 1))
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, "0")}`
}

/** This month, UTC, as `YYYY-MM`. */
export function currentMonth(now: Date = new Date()): string {
  return `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`
}

/** The months a picker offers: the last `count`, newest first. */
export function recentMonths(count = MAX_MONTHS, now: Date = new Date()): string[] {
  const last = currentMonth(now)
  return Array.from({ length: count }, (_, index) => shiftMonth(last, -index))
}

/** "Mar 2026" in the admin's language; the month is a UTC calendar month. */
export function formatMonth(month: string, locale?: string): string {
  const [year, m] = month.split("-").map(Number)
  return new Intl.DateTimeFormat(locale, { month: "short", year: "numeric", timeZone: "UTC" }).format(new Date(Date.UTC(year, m - 1, 1)))
}

/**
 * A fraction as a percentage with up to two decimals ("0.9 %" in the
 * admin's language); null (nothing to divide by) as the caller's word.
 */
export function formatPercent(value: number | null, locale?: string, none = "–"): string {
  if (value === null || !Number.isFinite(value)) {
    return none
  }
  return new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 2 }).format(value)
}

/** Whether a range holds nothing to show: no plugin order and no chargeback. */
export function isEmptyRange(analytics: DisputeAnalytics): boolean {
  return analytics.totals.orders === 0 && analytics.totals.chargebacks === 0
}
