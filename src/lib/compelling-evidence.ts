// Import-free on purpose: the admin extension's browser bundle shows the
// verdict's words, so nothing server-side may come in here.

/**
 * Visa Compelling Evidence 3.0 (CE 3.0), for a Visa 10.4 "Other Fraud -
 * Card-Absent Environment" dispute: the issuer takes the liability back when
 * the merchant shows at least two earlier transactions on the same payment
 * credential, each 120 to 365 days before the disputed one and never disputed
 * or reported as fraud, each matching the disputed transaction on at least two
 * of the core data elements (IP address, device id, customer account or login
 * id, shipping address), one of them the IP address or the device id.
 *
 * This file decides it from data a workflow step gathered (the plugin's
 * payment refs and checkout signals, Medusa's orders); the evidence pack and
 * the admin show the answer.
 */

/** The disputed transaction must be at least this many days after each prior one. */
export const CE3_MIN_DAYS = 120
/** ...and at most this many. */
export const CE3_MAX_DAYS = 365
/** How many qualifying prior transactions Visa asks for. */
export const CE3_MIN_PRIORS = 2
/** How many core data elements each prior must share with the disputed transaction. */
export const CE3_MIN_MATCHES = 2

/** Visa's core data elements, in the order the pack lists them. */
export const CE3_ELEMENTS = ["ip_address", "device_id", "customer_account", "shipping_address"] as const
/** One of Visa's core data elements. */
export type Ce3Element = (typeof CE3_ELEMENTS)[number]

/** Each element in words (the pack, the admin). */
export const CE3_ELEMENT_LABELS: Readonly<Record<Ce3Element, string>> = {
  ip_address: "IP address",
  device_id: "Device ID",
  customer_account: "Customer account",
  shipping_address: "Shipping address",
}

/** The elements one of the matches must be (a user id and an address alone do not qualify). */
const STRONG_ELEMENTS: ReadonlySet<Ce3Element> = new Set(["ip_address", "device_id"])

/**
 * Why a case does not qualify, the first rule it fails:
 * - `not_visa_10_4`: CE 3.0 is for Visa 10.4 only (nothing to show);
 * - `no_saved_card`: the disputed payment was not made with a saved card, so no earlier transaction on the same credential is known;
 * - `no_signals`: neither the IP address nor the device id of the disputed checkout was recorded;
 * - `too_few_priors`: fewer than two earlier transactions on the card 120 to 365 days before;
 * - `priors_disputed`: there are, but too few of them were never disputed;
 * - `too_few_matches`: too few undisputed ones match on two elements, one of them IP or device.
 */
export const CE3_REASONS = ["not_visa_10_4", "no_saved_card", "no_signals", "too_few_priors", "priors_disputed", "too_few_matches"] as const
/** The code of why a case does not qualify (the admin translates it). */
export type Ce3Reason = (typeof CE3_REASONS)[number]

/** Each reason in words (the pack; the admin translates by the code). */
export const CE3_REASON_TEXT: Readonly<Record<Ce3Reason, string>> = {
  not_visa_10_4: "Compelling Evidence 3.0 applies to Visa reason code 10.4 only.",
  no_saved_card: "The disputed payment was not made with a saved card, so no earlier transaction on the same card is known.",
  no_signals: "Neither the IP address nor the device ID of the disputed checkout was recorded.",
  too_few_priors: `Fewer than ${CE3_MIN_PRIORS} earlier transactions on the same card were made ${CE3_MIN_DAYS} to ${CE3_MAX_DAYS} days before the disputed one.`,
  priors_disputed: `Fewer than ${CE3_MIN_PRIORS} of the earlier transactions on the same card ${CE3_MIN_DAYS} to ${CE3_MAX_DAYS} days before were never disputed.`,
  too_few_matches: `Fewer than ${CE3_MIN_PRIORS} undisputed earlier transactions match the disputed one on two data elements, one of them the IP address or the device ID.`,
}

/** One transaction as CE 3.0 compares them (the disputed one or an earlier one on the same card). */
export type Ce3Transaction = {
  paymentId: string
  orderId: string
  /** Medusa's order number, when the order was found. */
  displayId: number | null
  /** When the transaction was made, ISO 8601. */
  date: string
  /** Formatted with its currency. */
  amount: string | null
  ipAddress: string | null
  deviceId: string | null
  /** The customer account (a registered customer's id); null for a guest. */
  customerAccount: string | null
  /** The shipping address as `ce3AddressKey` normalises it. */
  shippingAddress: string | null
  /** The shipping address as a person reads it (shown in the pack); the key when absent. */
  shippingAddressText?: string | null
  /** A chargeback or processor case is recorded on its order (priors only). */
  disputed?: boolean
}

/** A prior transaction that counts, and what it matched. */
export type Ce3Prior = {
  paymentId: string
  orderId: string
  displayId: number | null
  date: string
  amount: string | null
  /** Whole days before the disputed transaction (UTC calendar days). */
  daysBefore: number
  matched: Ce3Element[]
  /** The matched values, for the acquirer (the pack shows them; nothing logs them). */
  values: Partial<Record<Ce3Element, string>>
}

/** The decision. */
export type Ce3Result = {
  /** A Visa 10.4 case: CE 3.0 is worth showing at all. */
  applicable: boolean
  qualifies: boolean
  /** The qualifying priors, newest first (every one found, not only two). */
  priors: Ce3Prior[]
  /** Null when it qualifies. */
  reason: Ce3Reason | null
  /** The disputed transaction as compared (the pack shows its elements), when its payment is known. */
  disputed: Ce3Transaction | null
  /** How many earlier transactions each rule left, for the reason's detail. */
  counts: { onCard: number; inWindow: number; undisputed: number; matching: number }
}

/** The input the decision needs. */
export type Ce3Input = {
  reasonCode: string | null | undefined
  /** The card type (cnpAPI's VI, MC, ...; Adyen's brand); null when unknown. */
  cardType: string | null | undefined
  /** The disputed transaction, when its payment is known. */
  disputed: Ce3Transaction | null
  /** The disputed payment's saved-card fingerprint is known. */
  savedCard: boolean
  /** Earlier transactions on the same card (any age; the window is applied here). */
  candidates: readonly Ce3Transaction[]
}

const DAY_MS = 24 * 60 * 60 * 1000
const VISA_TYPES = new Set(["vi", "visa"])

/** Whether CE 3.0 applies to a case: Visa (or an unknown card type) and reason code 10.4. */
export function isCe3Applicable(reasonCode: string | null | undefined, cardType: string | null | undefined): boolean {
  if ((reasonCode ?? "").trim() !== "10.4") return false
  const type = (cardType ?? "").trim().toLowerCase()
  // 10.4 is a Visa code only (the networks' codes do not collide), so an unknown type is Visa.
  return type === "" || VISA_TYPES.has(type)
}

/** Whole UTC calendar days from `earlier` to `later`. */
export function ce3DaysBetween(earlier: string | Date, later: string | Date): number {
  const day = (value: string | Date) => {
    const d = new Date(value)
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
  }
  return Math.round((day(later) - day(earlier)) / DAY_MS)
}

/**
 * A shipping address as compared: street lines, postal code, city and
 * country, lower-cased with spaces and punctuation collapsed; null without a
 * street line (nothing to compare). Names and phone numbers are not part of it.
 */
export function ce3AddressKey(
  address:
    | { address_1?: string | null; address_2?: string | null; postal_code?: string | null; city?: string | null; country_code?: string | null }
    | null
    | undefined
): string | null {
  if (!address?.address_1?.trim()) return null
  const part = (value: string | null | undefined) =>
    (value ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, " ")
      .trim()
  return [address.address_1, address.address_2, address.postal_code, address.city, address.country_code].map(part).join("|")
}

/** The elements two transactions share (a value missing on either side never matches). */
export function ce3Matches(a: Ce3Transaction, b: Ce3Transaction): Ce3Element[] {
  const same = (x: string | null, y: string | null) => x !== null && y !== null && x.trim() !== "" && x.trim() === y.trim()
  const matched: Ce3Element[] = []
  if (same(a.ipAddress, b.ipAddress)) matched.push("ip_address")
  if (same(a.deviceId, b.deviceId)) matched.push("device_id")
  if (same(a.customerAccount, b.customerAccount)) matched.push("customer_account")
  if (same(a.shippingAddress, b.shippingAddress)) matched.push("shipping_address")
  return matched
}

/** Whether a set of matches meets CE 3.0: two elements, one of them IP or device. */
export function ce3MatchQualifies(matched: readonly Ce3Element[]): boolean {
  return matched.length >= CE3_MIN_MATCHES && matched.some((element) => STRONG_ELEMENTS.has(element))
}

/** Decides whether the case qualifies for CE 3.0, and with which prior transactions, or why not. */
export function evaluateCompellingEvidence(input: Ce3Input): Ce3Result {
  const counts = { onCard: 0, inWindow: 0, undisputed: 0, matching: 0 }
  const no = (reason: Ce3Reason, applicable = true): Ce3Result => ({
    applicable,
    qualifies: false,
    priors: [],
    reason,
    counts,
    disputed: applicable ? input.disputed : null,
  })
  if (!isCe3Applicable(input.reasonCode, input.cardType)) return no("not_visa_10_4", false)
  const disputed = input.disputed
  if (!disputed || !input.savedCard) return no("no_saved_card")
  if (!present(disputed.ipAddress) && !present(disputed.deviceId)) return no("no_signals")

  const earlier = input.candidates.filter((c) => c.paymentId !== disputed.paymentId && c.orderId !== disputed.orderId)
  counts.onCard = earlier.length
  const inWindow = earlier
    .map((c) => ({ c, days: ce3DaysBetween(c.date, disputed.date) }))
    .filter(({ days }) => days >= CE3_MIN_DAYS && days <= CE3_MAX_DAYS)
  counts.inWindow = inWindow.length
  const undisputed = inWindow.filter(({ c }) => !c.disputed)
  counts.undisputed = undisputed.length
  const priors: Ce3Prior[] = []
  for (const { c, days } of undisputed) {
    const matched = ce3Matches(c, disputed)
    if (!ce3MatchQualifies(matched)) continue
    const values: Partial<Record<Ce3Element, string>> = {}
    for (const element of matched) {
      const value = valueOf(c, element)
      if (value !== null) values[element] = value
    }
    priors.push({ paymentId: c.paymentId, orderId: c.orderId, displayId: c.displayId, date: c.date, amount: c.amount, daysBefore: days, matched, values })
  }
  counts.matching = priors.length
  priors.sort((a, b) => a.daysBefore - b.daysBefore || a.paymentId.localeCompare(b.paymentId))

  if (inWindow.length < CE3_MIN_PRIORS) return no("too_few_priors")
  if (undisputed.length < CE3_MIN_PRIORS) return no("priors_disputed")
  if (priors.length < CE3_MIN_PRIORS) return { ...no("too_few_matches"), priors }
  return { applicable: true, qualifies: true, priors, reason: null, counts, disputed }
}

function present(value: string | null): boolean {
  return value !== null && value.trim() !== ""
}

function valueOf(t: Ce3Transaction, element: Ce3Element): string | null {
  switch (element) {
    case "ip_address":
      return t.ipAddress
    case "device_id":
      return t.deviceId
    case "customer_account":
      return t.customerAccount
    case "shipping_address":
      return t.shippingAddressText ?? t.shippingAddress
  }
}

/** What the admin's chargeback detail carries of the decision: no data element's value. */
export type CompellingEvidenceSummary = {
  applicable: boolean
  qualifies: boolean
  prior_count: number
  reason: Ce3Reason | null
}

/** The admin's summary of a decision. */
export function summarizeCompellingEvidence(result: Ce3Result): CompellingEvidenceSummary {
  return { applicable: result.applicable, qualifies: result.qualifies, prior_count: result.priors.length, reason: result.reason }
}
