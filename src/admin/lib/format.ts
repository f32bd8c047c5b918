// Import-free by design (see their headers): the admin bundle shares the
// payment provider's ISO 4217 table instead of trusting the browser's CLDR
// data, the server's card brands, and the module's words for its statuses.
import { cardBrandName } from "../../lib/card-brands"
import { currencyExponent } from "../../lib/currency-exponents"
import {
  CHARGEBACK_STATUS_MEANINGS,
  DISPUTE_CASE_OUTCOME_MEANINGS,
  DISPUTE_RESPONSE_STATUS_MEANINGS,
  PROOF_REQUEST_STATUS_MEANINGS,
} from "../../modules/servicescan/lifecycle/status-meanings"
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

// ---------------------------------------------------------------------------
// Deadlines: one model for a chargeback's `due_by` and a case's reply-by day
// ---------------------------------------------------------------------------

/** How pressing a response deadline is; processors give days, and a missed one loses the dispute. */
export type DueUrgency = "none" | "ok" | "soon" | "today" | "overdue"

/** Within this many days a deadline is flagged; evidence packs take a day or two to assemble. */
export const DUE_SOON_DAYS = 3

/**
 * A deadline as the admin weighs it: whole calendar days from today to its
 * day, and how pressing that is. Both kinds of deadline come down to this;
 * they differ only in how their day is counted (see {@link deadlineAt} and
 * {@link deadlineOnDay}).
 */
export type Deadline = { days: number; urgency: Exclude<DueUrgency, "none">; color: BadgeColor }

/** Past and close deadlines stand out; one that is far enough stays quiet. */
const URGENCY_COLORS: Record<Deadline["urgency"], BadgeColor> = { overdue: "red", today: "red", soon: "orange", ok: "grey" }

/** The one rule: past is overdue, the day itself is today, then soon for {@link DUE_SOON_DAYS} days. */
function deadline(days: number, passed: boolean): Deadline {
  const urgency = passed ? "overdue" : days <= 0 ? "today" : days <= DUE_SOON_DAYS ? "soon" : "ok"
  return { days, urgency, color: URGENCY_COLORS[urgency] }
}

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

/**
 * A deadline at an instant (a chargeback's `due_by`), counted in the admin's
 * own calendar days; it has passed once the instant has, even on its day.
 */
export function deadlineAt(dueBy: string | Date | null | undefined, now: Date = new Date()): Deadline | null {
  const date = toDate(dueBy)
  return date ? deadline(calendarDaysUntil(date, now), date.getTime() < now.getTime()) : null
}

/** How pressing a chargeback's `due_by` is, "none" without one: {@link deadlineAt}'s urgency. */
export function dueUrgency(dueBy: string | Date | null | undefined, now: Date = new Date()): DueUrgency {
  return deadlineAt(dueBy, now)?.urgency ?? "none"
}

/** "today", "tomorrow", "in 3 days", "2 days ago": a deadline in calendar days. */
export function formatDueDays(dueBy: string | Date, now: Date = new Date(), locale?: string): string {
  return new Intl.RelativeTimeFormat(locale, { numeric: "auto" }).format(calendarDaysUntil(dueBy, now), "day")
}

type Label = { label: string; color: BadgeColor; description: string }

/** A badge's words and colour; what the status means comes from the module (lifecycle/status-meanings.ts). */
type Badge = Omit<Label, "description">

/** A status's label from its table, with the module's meaning; one the UI does not know yet is still shown, in plain words. */
function statusLabel(badges: Record<string, Badge>, meanings: Readonly<Record<string, string>>, status: string): Label {
  // An own-property check, so a status like "constructor" never reads the prototype.
  return Object.prototype.hasOwnProperty.call(badges, status)
    ? { ...badges[status], description: meanings[status] }
    : { label: humanize(status), color: "grey", description: "" }
}

const CHARGEBACK_STATUS_BADGES: Record<ChargebackStatus, Badge> = {
  open: { label: "Open", color: "grey" },
  evidence_pending: { label: "Evidence pending", color: "blue" },
  evidence_ready: { label: "Evidence ready", color: "green" },
  no_evidence: { label: "No evidence", color: "orange" },
  won: { label: "Won", color: "green" },
  lost: { label: "Lost", color: "red" },
  closed: { label: "Closed", color: "grey" },
}

export function chargebackStatusLabel(status: string): Label {
  return statusLabel(CHARGEBACK_STATUS_BADGES, CHARGEBACK_STATUS_MEANINGS, status)
}

const PROOF_REQUEST_STATUS_BADGES: Record<ProofRequestStatus, Badge> = {
  to_submit: { label: "Queued", color: "orange" },
  submitting: { label: "Unconfirmed", color: "orange" },
  pending: { label: "Pending", color: "blue" },
  complete: { label: "Complete", color: "green" },
  failed: { label: "Failed", color: "red" },
}

export function proofRequestStatusLabel(status: string): Label {
  return statusLabel(PROOF_REQUEST_STATUS_BADGES, PROOF_REQUEST_STATUS_MEANINGS, status)
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

/**
 * A deadline on a processor's day (a case's reply-by day, `YYYY-MM-DD`),
 * counted in UTC days as the backend counts them. The day itself is still
 * open (the backend refuses only after it), so it has passed only the day after.
 */
export function deadlineOnDay(day: string | null | undefined, today: string = todayUtc()): Deadline | null {
  const days = day ? daysBetween(today, day) : null
  return days === null ? null : deadline(days, days < 0)
}

export type ReplyByView = { label: string; color: BadgeColor; days: number }

/**
 * The countdown to a case's reply-by day: "3 days left", "1 day left", "due
 * today", "passed". "Due today" is the last chance, not too late.
 */
export function replyByCountdown(replyBy: string | null | undefined, today: string = todayUtc()): ReplyByView | null {
  const view = deadlineOnDay(replyBy, today)
  if (!view) {
    return null
  }
  const { days, urgency, color } = view
  const label = urgency === "overdue" ? "passed" : urgency === "today" ? "due today" : days === 1 ? "1 day left" : `${days} days left`
  return { label, color, days }
}

/** "worldpay" → "Worldpay": the processor named as a merchant knows it. */
export function gatewayDisplayName(gateway: string | null | undefined): string {
  const name = (gateway ?? "").trim()
  if (!name) {
    return "the processor"
  }
  return name.charAt(0).toUpperCase() + name.slice(1)
}

const RESPONSE_STATUS_BADGES: Record<DisputeResponseStatus, Badge> = {
  none: { label: "Not answered", color: "grey" },
  representing: { label: "Sending evidence", color: "blue" },
  represented: { label: "Evidence sent", color: "green" },
  accepting: { label: "Accepting liability", color: "blue" },
  liability_accepted: { label: "Liability accepted", color: "orange" },
  expired: { label: "Expired", color: "red" },
}

/** Our answer to a case, in plain words. */
export function responseStatusLabel(status: string): Label {
  return statusLabel(RESPONSE_STATUS_BADGES, DISPUTE_RESPONSE_STATUS_MEANINGS, status)
}

const CASE_OUTCOME_BADGES: Record<DisputeCaseOutcome, Badge> = {
  won: { label: "Won", color: "green" },
  lost: { label: "Lost", color: "red" },
}

/** The card network's decision on a case. */
export function caseOutcomeLabel(outcome: DisputeCaseOutcome | string | null | undefined): Label {
  return outcome
    ? statusLabel(CASE_OUTCOME_BADGES, DISPUTE_CASE_OUTCOME_MEANINGS, outcome)
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

/** "Visa •••• 0123" from cnpAPI's card type code and the last four digits; brands from the server's one table. */
export function cardLabel(type: string | null | undefined, last4: string | null | undefined): string {
  const brand = type ? (cardBrandName(type) ?? type) : null
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
