// Import-free on purpose: the admin extension's browser bundle shows the family
// of a case, so nothing server-side may come in here.

/**
 * What a chargeback is about, whatever the card network calls it. Each family
 * is won with different evidence, so the evidence pack leads with what wins it
 * (src/lib/evidence-pack) and the answer to the processor names it.
 */
export const REASON_FAMILIES = ["fraud", "not_received", "not_as_described", "credit_not_processed", "other"] as const

export type ReasonFamily = (typeof REASON_FAMILIES)[number]

/** The card networks whose reason codes are mapped. */
export type CardNetwork = "visa" | "mastercard" | "amex" | "discover"

/** Each family in words (the pack, the note to the processor, the admin). */
export const REASON_FAMILY_LABELS: Readonly<Record<ReasonFamily, string>> = {
  fraud: "Fraud",
  not_received: "Not received",
  not_as_described: "Not as described",
  credit_not_processed: "Duplicate or credit not processed",
  other: "Other",
}

/** What wins each family, the order the pack shows it in. */
export const REASON_FAMILY_EVIDENCE: Readonly<Record<ReasonFamily, string>> = {
  fraud: "the card scans: the card was physically present at checkout",
  not_received: "the fulfillments: carriers, tracking numbers, shipped and delivered dates",
  not_as_described: "the items as sold, their descriptions at the time of the order, and returns",
  credit_not_processed: "the refunds made on the order",
  other: "the order and the payment",
}

/** One mapped reason code. */
export type ReasonCodeEntry = { network: CardNetwork; code: string; description: string; family: ReasonFamily }

const entry = (network: CardNetwork, code: string, family: ReasonFamily, description: string): ReasonCodeEntry => ({
  network,
  code,
  description,
  family,
})

/**
 * The one table: every mapped reason code of Visa (Visa Claims Resolution),
 * Mastercard, American Express and Discover, and its family. `docs/disputes.md`
 * shows the same table, and a unit spec holds it to this one. A code not listed
 * is `other`.
 */
export const REASON_CODE_TABLE: readonly ReasonCodeEntry[] = [
  entry("visa", "10.1", "fraud", "EMV Liability Shift Counterfeit Fraud"),
  entry("visa", "10.2", "fraud", "EMV Liability Shift Non-Counterfeit Fraud"),
  entry("visa", "10.3", "fraud", "Other Fraud - Card-Present Environment"),
  entry("visa", "10.4", "fraud", "Other Fraud - Card-Absent Environment"),
  entry("visa", "10.5", "fraud", "Visa Fraud Monitoring Program"),
  entry("visa", "12.6.1", "credit_not_processed", "Duplicate Processing"),
  entry("visa", "12.6.2", "credit_not_processed", "Paid by Other Means"),
  entry("visa", "13.1", "not_received", "Merchandise/Services Not Received"),
  entry("visa", "13.3", "not_as_described", "Not as Described or Defective Merchandise/Services"),
  entry("visa", "13.4", "not_as_described", "Counterfeit Merchandise"),
  entry("visa", "13.5", "not_as_described", "Misrepresentation"),
  entry("visa", "13.6", "credit_not_processed", "Credit Not Processed"),
  entry("visa", "13.7", "credit_not_processed", "Cancelled Merchandise/Services"),
  entry("mastercard", "4837", "fraud", "No Cardholder Authorization"),
  entry("mastercard", "4840", "fraud", "Fraudulent Processing of Transactions"),
  entry("mastercard", "4849", "fraud", "Questionable Merchant Activity"),
  entry("mastercard", "4863", "fraud", "Cardholder Does Not Recognize - Potential Fraud"),
  entry("mastercard", "4870", "fraud", "Chip Liability Shift"),
  entry("mastercard", "4871", "fraud", "Chip/PIN Liability Shift"),
  entry("mastercard", "4834", "credit_not_processed", "Point-of-Interaction Error (duplicate processing)"),
  entry("mastercard", "4853", "not_as_described", "Cardholder Dispute (defective or not as described)"),
  entry("mastercard", "4855", "not_received", "Goods or Services Not Provided"),
  entry("mastercard", "4860", "credit_not_processed", "Credit Not Processed"),
  entry("amex", "F10", "fraud", "Missing Imprint"),
  entry("amex", "F14", "fraud", "Missing Signature"),
  entry("amex", "F24", "fraud", "No Card Member Authorization"),
  entry("amex", "F29", "fraud", "Card Not Present"),
  entry("amex", "F30", "fraud", "EMV Counterfeit"),
  entry("amex", "F31", "fraud", "EMV Lost/Stolen/Non-Received"),
  entry("amex", "FR2", "fraud", "Fraud Full Recourse Program"),
  entry("amex", "FR4", "fraud", "Immediate Chargeback Program"),
  entry("amex", "FR6", "fraud", "Partial Immediate Chargeback Program"),
  entry("amex", "C02", "credit_not_processed", "Credit Not Processed"),
  entry("amex", "C04", "credit_not_processed", "Goods/Services Returned or Refused"),
  entry("amex", "C05", "credit_not_processed", "Goods/Services Cancelled"),
  entry("amex", "C08", "not_received", "Goods/Services Not Received or Only Partially Received"),
  entry("amex", "C14", "credit_not_processed", "Paid by Other Means"),
  entry("amex", "C31", "not_as_described", "Goods/Services Not as Described"),
  entry("amex", "C32", "not_as_described", "Goods/Services Damaged or Defective"),
  entry("amex", "P08", "credit_not_processed", "Duplicate Charge"),
  entry("discover", "UA01", "fraud", "Fraud - Card Present Transaction"),
  entry("discover", "UA02", "fraud", "Fraud - Card Not Present Transaction"),
  entry("discover", "UA05", "fraud", "Fraud - Chip Counterfeit Transaction"),
  entry("discover", "UA06", "fraud", "Fraud - Chip and PIN Transaction"),
  entry("discover", "AA", "fraud", "Does Not Recognize"),
  entry("discover", "DP", "credit_not_processed", "Duplicate Processing"),
  entry("discover", "PM", "credit_not_processed", "Paid by Other Means"),
  entry("discover", "CD", "credit_not_processed", "Credit/Debit Posted Incorrectly"),
  entry("discover", "RN2", "credit_not_processed", "Credit Not Received"),
  entry("discover", "RG", "not_received", "Non-Receipt of Goods or Services"),
  entry("discover", "RM", "not_as_described", "Quality Discrepancy"),
]

/** The processors' card type codes (cnpAPI's VI, MC, AX, DI; Adyen's brand names) to a network. */
const NETWORK_BY_CARD_TYPE: Readonly<Record<string, CardNetwork>> = {
  vi: "visa",
  visa: "visa",
  mc: "mastercard",
  mastercard: "mastercard",
  ax: "amex",
  amex: "amex",
  di: "discover",
  discover: "discover",
}

/**
 * The family of a reason code. The card type (when known) picks the network;
 * the codes of the four networks do not collide, so an unknown card type
 * still finds its code. Anything unmapped, empty or absent is `other`.
 */
export function reasonFamilyOf(reasonCode: string | null | undefined, cardType?: string | null): ReasonFamily {
  const code = (reasonCode ?? "").trim().toUpperCase()
  if (code === "") return "other"
  const network = cardType ? NETWORK_BY_CARD_TYPE[cardType.trim().toLowerCase()] : undefined
  const found =
    REASON_CODE_TABLE.find((row) => row.code === code && (network === undefined || row.network === network)) ??
    (network === undefined ? undefined : REASON_CODE_TABLE.find((row) => row.code === code))
  return found?.family ?? "other"
}

const NETWORK_NAMES: Readonly<Record<CardNetwork, string>> = {
  visa: "Visa",
  mastercard: "Mastercard",
  amex: "American Express",
  discover: "Discover",
}

/** The table as `docs/disputes.md` shows it (a unit spec compares the two). */
export function reasonCodeTableMarkdown(): string {
  const lines = ["| Network | Code | Reason | Family |", "|---|---|---|---|"]
  for (const row of REASON_CODE_TABLE) {
    lines.push(`| ${NETWORK_NAMES[row.network]} | ${row.code} | ${row.description} | ${REASON_FAMILY_LABELS[row.family]} |`)
  }
  return lines.join("\n")
}
