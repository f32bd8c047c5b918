import { z } from "@medusajs/framework/zod"
import { MAX_ANALYTICS_MONTHS, monthsBetween } from "../../../../modules/servicescan/services/dispute-analytics"
import { CurrencyCode } from "../validators"

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/

const Month = (field: string) =>
  z
    .string({ error: `${field} must be a month, YYYY-MM` })
    .trim()
    .regex(MONTH, { error: `${field} must be a month, YYYY-MM (e.g. 2026-03)` })
    .refine((value) => Number(value.slice(0, 4)) >= 1970, { error: `${field} must be 1970-01 or later` })

/**
 * `GET /admin/servicescan/analytics`: `from` and `to` months (UTC, both
 * included, at most {@link MAX_ANALYTICS_MONTHS} of them; default: the last
 * six months), `currency_code` (default: the most used one).
 */
export const AdminGetDisputeAnalytics = z
  .object({
    from: Month("from").optional(),
    to: Month("to").optional(),
    currency_code: CurrencyCode.optional(),
  })
  .transform((query) => {
    const now = new Date()
    const current = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`
    const to = query.to ?? current
    const from = query.from ?? shiftMonth(to, -5)
    return { ...query, from, to }
  })
  .superRefine((query, ctx) => {
    if (query.from > query.to) {
      ctx.addIssue({ code: "custom", path: ["to"], message: "to must not be before from" })
    } else if (monthsBetween(query.from, query.to).length > MAX_ANALYTICS_MONTHS) {
      ctx.addIssue({ code: "custom", path: ["to"], message: `to must be at most ${MAX_ANALYTICS_MONTHS} months after from` })
    }
  })
export type AdminGetDisputeAnalyticsType = z.infer<typeof AdminGetDisputeAnalytics>

function shiftMonth(month: string, by: number): string {
  const [year, m] = month.split("-").map(Number)
  const date = new Date(Date.UTC(year, m - 1 + by, 1))
  return `${date.getUTCFullYear()}-${String(date.getUTCMonth() + 1).padStart(2, "0")}`
}
