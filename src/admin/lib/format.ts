// Import-free by design (see its header): the admin bundle shares the payment
// provider's ISO 4217 table instead of trusting the browser's CLDR data.
import { currencyExponent } from "../../utils/currency-exponents"
import type { ChargebackStatus, DisputeCaseOutcome, DisputeResponseStatus, ProofRequestStatus } from "./types"

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

// ---------------------------------------------------------------------------
// Processor cases (Worldpay's chargeback cases)
// ---------------------------------------------------------------------------

/**
 * Today as `YYYY-MM-DD` in UTC: the day the backend compares a case's
 * reply-by day with before it sends anything (so the buttons here agree with
 * what the server will accept, whatever the admin's time zone).
 */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10)
}

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/

function dayToUtc(day: string): number | null {
  const match = DAY_PATTERN.exec(day)
  if (!match) {
    return null
  }
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  return Number.isNaN(time) ? null : time
}

/**
 * A processor's calendar day (`YYYY-MM-DD`), e.g. "10 Mar 2025". Formatted in
 * UTC: `new Date("2025-03-10")` is midnight UTC, which a browser west of
 * Greenwich would otherwise show as 9 March.
 */
export function formatDay(day: string | null | undefined, locale?: string): string {
  const time = day ? dayToUtc(day) : null
  return time === null ? (day ?? "–") || "–" : new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" }).format(time)
}

/** Whole days from `from` to `to`, both `YYYY-MM-DD`; null when either is not a day. */
export function daysBetween(from: string, to: string): number | null {
  const a = dayToUtc(from)
  const b = dayToUtc(to)
  return a === null || b === null ? null : Math.round((b - a) / DAY_MS)
}

export type ReplyByView = { label: string; color: BadgeColor; days: number }

/**
 * The countdown to a case's reply-by day: "3 days left", "1 day left", "due
 * today", "passed". The day itself is still open (the backend refuses only
 * after it), so "due today" is the last chance, not too late.
 */
export function replyByCountdown(replyBy: string | null | undefined, today: string = todayUtc()): ReplyByView | null {
  const days = replyBy ? daysBetween(today, replyBy) : null
  if (days === null) {
    return null
  }
  if (days < 0) {
    return { label: "passed", color: "red", days }
  }
  if (days === 0) {
    return { label: "due today", color: "red", days }
  }
  return { label: days === 1 ? "1 day left" : `${days} days left`, color: days <= DUE_SOON_DAYS ? "orange" : "grey", days }
}

/** "worldpay" → "Worldpay": the processor named as a merchant knows it. */
export function gatewayDisplayName(gateway: string | null | undefined): string {
  const name = (gateway ?? "").trim()
  if (!name) {
    return "the processor"
  }
  return name.charAt(0).toUpperCase() + name.slice(1)
}

const RESPONSE_STATUS_LABELS: Record<DisputeResponseStatus, Label> = {
  none: { label: "Not answered", color: "grey", description: "Nothing was sent to the processor yet." },
  representing: {
    label: "Sending evidence",
    color: "blue",
    description: "The evidence pack is being uploaded to the case and the chargeback represented.",
  },
  represented: {
    label: "Evidence sent",
    color: "green",
    description: "The evidence pack is on the case and the chargeback was represented; the card network decides next.",
  },
  accepting: { label: "Accepting liability", color: "blue", description: "The acceptance is being sent to the processor." },
  liability_accepted: {
    label: "Liability accepted",
    color: "orange",
    description: "The chargeback was accepted: the disputed amount stays with the cardholder.",
  },
  expired: {
    label: "Expired",
    color: "red",
    description: "The reply-by day passed without an answer; the processor takes nothing more on this case.",
  },
}

/** Our answer to a case, in plain words. */
export function responseStatusLabel(status: string): Label {
  return statusLabel(RESPONSE_STATUS_LABELS, status)
}

/** The card network's decision on a case. */
export function caseOutcomeLabel(outcome: DisputeCaseOutcome | string | null | undefined): Label {
  if (outcome === "won") {
    return { label: "Won", color: "green", description: "Decided in your favour: the money comes back." }
  }
  if (outcome === "lost") {
    return { label: "Lost", color: "red", description: "Decided for the cardholder." }
  }
  return outcome
    ? { label: humanize(outcome), color: "grey", description: "" }
    : { label: "Not decided yet", color: "grey", description: "The card network has not decided." }
}

/**
 * Worldpay's activity types in a merchant's words. The processor's own term
 * stays visible next to it (it is what its portal and support use); a type
 * not listed here is shown as the processor wrote it.
 */
const ACTIVITY_LABELS: Record<string, string> = {
  "assign to merchant": "Chargeback assigned to you",
  "merchant represent": "Evidence sent: chargeback represented",
  "merchant respond": "Response sent",
  "merchant accepts liability": "Liability accepted",
  "merchant requests arbitration": "Arbitration requested",
  "assign to user": "Assigned to a user",
  "add note": "Note added",
  "case won": "Won: decided in your favour",
  "case lost": "Lost: decided for the cardholder",
  "reply period expired": "Reply period expired without an answer",
}

export function activityTypeLabel(type: string): string {
  const key = type.trim().replace(/\s+/g, " ").toLowerCase()
  return ACTIVITY_LABELS[key] ?? (type.trim() || "Activity")
}

/** Final queues: the case is closed at the processor, whoever bears the loss. */
const QUEUE_LABELS: Record<string, string> = {
  "merchant assumed": "Closed: the chargeback stands against you",
  "network assumed": "Closed: the card network bears it",
}

/** Whose move it is, in plain words, with the processor's own queue name beside it. */
export function queueView(
  queue: string | null | undefined,
  awaitingMerchant: boolean,
  gateway: string | null | undefined
): { label: string; processorQueue: string | null } {
  const processorQueue = queue?.trim() || null
  if (awaitingMerchant) {
    return { label: "Waiting for you", processorQueue }
  }
  const final = processorQueue ? QUEUE_LABELS[processorQueue.toLowerCase()] : undefined
  if (final) {
    return { label: final, processorQueue }
  }
  return { label: processorQueue ? `With ${gatewayDisplayName(gateway)}` : "Unknown", processorQueue }
}

const CARD_TYPES: Record<string, string> = { VI: "Visa", MC: "Mastercard", AX: "American Express", DI: "Discover" }

/** "Visa •••• 0123" from cnpAPI's card type code and the last four digits. */
export function cardLabel(type: string | null | undefined, last4: string | null | undefined): string {
  const brand = type ? (CARD_TYPES[type.toUpperCase()] ?? type) : null
  return [brand, last4 ? `•••• ${last4}` : null].filter(Boolean).join(" ") || "–"
}

/**
 * An integer amount in the currency's minor unit as a decimal string in major
 * units ("1999", USD → "19.99"), by moving the decimal point in the digits:
 * exact, with no float division.
 */
export function minorToMajor(minor: number | string, currencyCode: string): string | null {
  const text = typeof minor === "number" ? (Number.isSafeInteger(minor) ? String(minor) : "") : minor.trim()
  const match = /^(-?)(\d+)$/.exec(text)
  if (!match) {
    return null
  }
  const decimals = currencyDecimals(currencyCode)
  if (decimals === 0) {
    return `${match[1]}${match[2]}`
  }
  const digits = match[2].padStart(decimals + 1, "0")
  return `${match[1]}${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}

/** A minor-unit amount with its currency, through the same formatting as every other amount. */
export function formatMinorMoney(minor: number | string, currencyCode: string, locale?: string): string {
  const major = minorToMajor(minor, currencyCode)
  return major === null ? "–" : formatMoney(major, currencyCode, locale)
}

/** "412 KB", "1.8 MB": a file's size the way a download dialog says it. */
export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined || !Number.isFinite(bytes) || bytes < 0) {
    return "–"
  }
  if (bytes < 1024) {
    return `${bytes} B`
  }
  if (bytes < 1024 * 1024) {
    return `${Math.round(bytes / 1024)} KB`
  }
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** The auto-respond policy in plain words. */
export function autoRespondLabel(policy: string | null | undefined): string {
  switch (policy) {
    case "off":
      return "Off: an admin answers each case"
    case "represent-valid":
      return "Sends the evidence when a scan is worth disputing; an admin decides the rest"
    case "represent-valid-accept-invalid":
      return "Sends the evidence when a scan is worth disputing, accepts liability when every scan is likely true fraud"
    default:
      return policy ? humanize(policy) : "–"
  }
}
