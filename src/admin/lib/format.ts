// Import-free by design (see its header): the admin bundle shares the payment
// provider's ISO 4217 table instead of trusting the browser's CLDR data.
import { currencyExponent } from "../../utils/currency-exponents"
import type { ChargebackStatus, ProofRequestStatus } from "./types"

/** The badge colours `@medusajs/ui` offers (StatusBadge and Badge share them). */
export type BadgeColor = "green" | "red" | "blue" | "orange" | "grey" | "purple"

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Money from the admin API, which sends amounts in major units (12.5 is
 * €12.50), shown with the currency's ISO 4217 number of decimals (JPY none,
 * HUF two, KWD three): the ones the payment provider counts in. Intl's own
 * default comes from CLDR, which V8 gives as 0 for HUF, IDR, COP and IQD, so
 * HUF 12,345.50 would show rounded in Chrome and not in Firefox.
 */
export function formatMoney(amount: number | string | null | undefined, currencyCode: string, locale?: string): string {
  const value = typeof amount === "string" ? Number(amount) : amount
  const code = (currencyCode || "").toUpperCase()
  if (value === null || value === undefined || !Number.isFinite(value)) {
    return "–"
  }
  try {
    const decimals = currencyDecimals(code)
    return new Intl.NumberFormat(locale, {
      style: "currency",
      currency: code,
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    }).format(value)
  } catch {
    // An unknown or malformed code makes Intl throw; the merchant still needs the figure.
    return `${value} ${code}`.trim()
  }
}

/**
 * The number of decimals a currency's amounts may have (2 for EUR and HUF, 0
 * for JPY, 3 for KWD): its ISO 4217 exponent, from the same table the payment
 * provider converts to minor units with, so the form, the display and the
 * processor agree in every browser. An unknown code gets 2.
 */
export function currencyDecimals(currencyCode: string): number {
  return currencyExponent(currencyCode)
}

function toDate(value: string | Date | null | undefined): Date | null {
  if (!value) {
    return null
  }
  const date = value instanceof Date ? value : new Date(value)
  return Number.isNaN(date.getTime()) ? null : date
}

/** A calendar date, e.g. "12 Mar 2025". */
export function formatDate(value: string | Date | null | undefined, locale?: string): string {
  const date = toDate(value)
  return date ? new Intl.DateTimeFormat(locale, { dateStyle: "medium" }).format(date) : "–"
}

/** A date and time, e.g. "12 Mar 2025, 14:05". */
export function formatDateTime(value: string | Date | null | undefined, locale?: string): string {
  const date = toDate(value)
  return date ? new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" }).format(date) : "–"
}

/** "in 3 hours", "2 days ago": the largest unit that keeps the number readable. */
export function formatRelative(value: string | Date | null | undefined, now: Date = new Date(), locale?: string): string {
  const date = toDate(value)
  if (!date) {
    return "–"
  }
  const diffMs = date.getTime() - now.getTime()
  const abs = Math.abs(diffMs)
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: "auto" })
  if (abs < 60 * 1000) {
    return rtf.format(Math.round(diffMs / 1000), "second")
  }
  if (abs < 60 * 60 * 1000) {
    return rtf.format(Math.round(diffMs / (60 * 1000)), "minute")
  }
  if (abs < DAY_MS) {
    return rtf.format(Math.round(diffMs / (60 * 60 * 1000)), "hour")
  }
  return rtf.format(Math.round(diffMs / DAY_MS), "day")
}

const EVERY_UNITS: [ms: number, unit: string][] = [
  [60 * 60 * 1000, "hour"],
  [60 * 1000, "minute"],
  [1000, "second"],
]

/**
 * A period in the largest unit it fills: "every 3 hours", "every 90 minutes"
 * is "every 1.5 hours", a 30 s demo setting is "every 30 seconds".
 */
export function formatEvery(ms: number): string {
  for (const [size, unit] of EVERY_UNITS) {
    if (ms >= size) {
      const count = Math.round((ms / size) * 10) / 10
      return count === 1 ? `every ${unit}` : `every ${count} ${unit}s`
    }
  }
  return `every ${Math.round(ms)} ms`
}

/** How pressing a response deadline is; processors give days, and a missed one loses the dispute. */
export type DueUrgency = "none" | "ok" | "soon" | "today" | "overdue"

/** Within this many days a deadline is flagged; evidence packs take a day or two to assemble. */
export const DUE_SOON_DAYS = 3

/**
 * Whole calendar days from today to the deadline's day, in the admin's time
 * zone: a deadline tomorrow at 23:59 is "tomorrow", not "in 2 days" as a
 * rounded 44-hour difference would say.
 */
export function calendarDaysUntil(value: string | Date, now: Date = new Date()): number {
  const date = value instanceof Date ? value : new Date(value)
  const day = (d: Date) => Date.UTC(d.getFullYear(), d.getMonth(), d.getDate())
  return Math.round((day(date) - day(now)) / DAY_MS)
}

export function dueUrgency(dueBy: string | Date | null | undefined, now: Date = new Date()): DueUrgency {
  const date = toDate(dueBy)
  if (!date) {
    return "none"
  }
  if (date.getTime() < now.getTime()) {
    return "overdue"
  }
  const days = calendarDaysUntil(date, now)
  if (days <= 0) {
    return "today"
  }
  return days <= DUE_SOON_DAYS ? "soon" : "ok"
}

/** "today", "tomorrow", "in 3 days", "2 days ago": a deadline in calendar days. */
export function formatDueDays(dueBy: string | Date, now: Date = new Date(), locale?: string): string {
  return new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(calendarDaysUntil(dueBy, now), "day")
}

type Label = { label: string; color: BadgeColor; description: string }

const CHARGEBACK_STATUS_LABELS: Record<ChargebackStatus, Label> = {
  open: { label: "Open", color: "grey", description: "Recorded; evidence collection is starting." },
  evidence_pending: {
    label: "Evidence pending",
    color: "blue",
    description: "The order's card scans were sent to ServiceScan; waiting for its verdict.",
  },
  evidence_ready: {
    label: "Evidence ready",
    color: "green",
    description: "At least one scan is worth disputing: its image is ready to send to the processor.",
  },
  no_evidence: {
    label: "No evidence",
    color: "orange",
    description: "Nothing to send: no scan ids, every scan looks like true fraud, or the request was refused.",
  },
  won: { label: "Won", color: "green", description: "The dispute was decided in the store's favour." },
  lost: { label: "Lost", color: "red", description: "The dispute was decided against the store." },
  closed: { label: "Closed", color: "grey", description: "Closed without a decision (accepted or withdrawn)." },
}

/** A status's label from its table; one the UI does not know yet is still shown, in plain words. */
function statusLabel(labels: Record<string, Label>, status: string): Label {
  return labels[status] ?? { label: humanize(status), color: "grey", description: "" }
}

export function chargebackStatusLabel(status: string): Label {
  return statusLabel(CHARGEBACK_STATUS_LABELS, status)
}

const PROOF_REQUEST_STATUS_LABELS: Record<ProofRequestStatus, Label> = {
  to_submit: {
    label: "Queued",
    color: "orange",
    description: "Not sent yet (the service was unreachable); the poll job sends it.",
  },
  submitting: {
    label: "Unconfirmed",
    color: "orange",
    description:
      "Sent, with no answer recorded yet: in flight, or the service's answer was lost. It is not re-sent automatically, to avoid a duplicate request.",
  },
  pending: { label: "Pending", color: "blue", description: "ServiceScan is processing the scans." },
  complete: { label: "Complete", color: "green", description: "ServiceScan returned a verdict for the scans." },
  failed: { label: "Failed", color: "red", description: "ServiceScan refused the request for good." },
}

export function proofRequestStatusLabel(status: string): Label {
  return statusLabel(PROOF_REQUEST_STATUS_LABELS, status)
}

export type GroundTruthView = {
  /** valid | invalid | unknown, with the real service's `fraud` folded into `invalid`. */
  verdict: "valid" | "invalid" | "unknown"
  label: string
  color: BadgeColor
  description: string
}

/**
 * The merchant's reading of a scan's ground truth. The spec says `invalid`,
 * the real service says `fraud`; both mean the card was used by a fraudster,
 * so the dispute is not worth fighting.
 */
export function groundTruthLabel(groundTruth: string | null | undefined, proofComplete = true): GroundTruthView {
  const value = (groundTruth ?? "").trim().toLowerCase()
  if (value === "valid") {
    return {
      verdict: "valid",
      label: "Worth disputing",
      color: "green",
      description: "The scan supports the cardholder's involvement (for example friendly fraud).",
    }
  }
  if (value === "invalid" || value === "fraud") {
    return {
      verdict: "invalid",
      label: "Likely true fraud",
      color: "red",
      description: "The scan points to actual fraud; disputing is unlikely to succeed. No image is available.",
    }
  }
  return proofComplete
    ? {
        verdict: "unknown",
        label: "Not reported",
        color: "grey",
        description: "ServiceScan returned no verdict for this scan (unknown to it, or another account's).",
      }
    : { verdict: "unknown", label: "Awaiting verdict", color: "grey", description: "ServiceScan has not answered yet." }
}

/** `evidence_pending` → "Evidence pending", for values this build does not know yet. */
export function humanize(value: string): string {
  const text = value.replace(/[_-]+/g, " ").trim()
  return text ? text.charAt(0).toUpperCase() + text.slice(1) : "Unknown"
}

/** A long id shortened for tables; the full value stays in `title`/copy buttons. */
export function shortId(id: string, keep = 8): string {
  return id.length > keep + 1 ? `${id.slice(0, keep)}…` : id
}
