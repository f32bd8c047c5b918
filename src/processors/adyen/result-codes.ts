import type { DeclineReason, GatewayOutcome } from "../types"

/**
 * Adyen's answers in the contract's words, in one place: a `/payments`
 * `resultCode` with its `refusalReasonCode`, and the `ServiceError` codes
 * that are a verdict on the transaction rather than on the request. Adyen
 * asks merchants not to show its refusal reasons to shoppers; the provider
 * turns the {@link DeclineReason} into the shopper's sentence and keeps the
 * raw code for the merchant.
 */

/**
 * `refusalReasonCode` (a string, as Adyen sends it) to a reason, from
 * docs.adyen.com/development-resources/refusal-reasons. 0 comes with
 * `Authorised` and is not a refusal; codes not listed are "generic".
 */
const REFUSALS: ReadonlyArray<readonly [DeclineReason, readonly string[]]> = [
  // 2 Refused, 27 Declined Non Generic.
  ["do_not_honor", ["2", "27"]],
  // 3 Referral: the issuer wants a call.
  ["call_issuer", ["3"]],
  // 4 Acquirer Error, 9 Issuer Unavailable: the shopper may try again later.
  ["issuer_unavailable", ["4", "9"]],
  // 21 Not Submitted: Adyen did not send it on.
  ["processing_error", ["21"]],
  // Blocked, fraud (5 Blocked Card, 14 Acquirer Fraud, 20 FRAUD, 22 FRAUD-CANCELLED, 31 Issuer
  // Suspected Fraud) and not-permitted cards (23, 25): told as a plain decline, never as suspicion.
  ["restricted_card", ["5", "14", "20", "22", "23", "25", "31"]],
  ["expired_card", ["6"]],
  ["invalid_amount", ["7"]],
  ["invalid_card_number", ["8"]],
  ["insufficient_funds", ["12"]],
  // 24 CVC Declined.
  ["invalid_cvv", ["24"]],
  // 26 Revocation Of Auth: the shopper withdrew the permission to charge the card on file.
  ["invalid_token", ["26"]],
  // 28 / 29: withdrawal amount / count exceeded.
  ["exceeds_limit", ["28", "29"]],
]

const REASON_BY_CODE: ReadonlyMap<string, DeclineReason> = new Map(
  REFUSALS.flatMap(([reason, codes]) => codes.map((code) => [code, reason] as const))
)

/** What a `/payments` answer means for the contract. `pending`: no verdict yet (the gateway throws). */
export type PaymentClassification =
  | { outcome: GatewayOutcome; reason?: DeclineReason }
  | { outcome: "pending" }

/**
 * A `/payments` `resultCode` (with `refusalReasonCode`) classified:
 * - `Authorised` (and `Success`, which some methods answer) is approved;
 * - `Refused` is declined with the refusal's reason; `Error` a processing error;
 * - `PartiallyAuthorised` is declined (the provider never asks for less than
 *   the cart and releases the partial hold), as cnpAPI's 010;
 * - `Pending` and `Received` are no verdict: the payment may still go through;
 * - anything asking the shopper to act (redirect, 3-D Secure) is declined: a
 *   card on file paid from the server cannot do it.
 */
export function classifyPayment(resultCode: string, refusalReasonCode?: string): PaymentClassification {
  switch (resultCode) {
    case "Authorised":
    case "Success":
      return { outcome: "approved" }
    case "Refused":
      return { outcome: "declined", reason: (refusalReasonCode && REASON_BY_CODE.get(refusalReasonCode.trim())) || "generic" }
    case "Error":
      return { outcome: "declined", reason: "processing_error" }
    case "PartiallyAuthorised":
      return { outcome: "declined", reason: "partial_approval" }
    case "Pending":
    case "Received":
      return { outcome: "pending" }
    default:
      return { outcome: "declined", reason: "generic" }
  }
}

/**
 * `ServiceError` codes of a 422 that are Adyen's verdict on the transaction,
 * not on the request's form: returned as declines. Any other refusal of a
 * request is thrown (the merchant's setup, or ours).
 */
const SERVICE_ERROR_DECLINES: Readonly<Record<string, DeclineReason>> = {
  // The stored card is not known for this shopper (deleted, or stored under another shopperReference).
  "803": "invalid_token",
  // A payment pspReference Adyen does not know, for a modification.
  "167": "transaction_not_found",
  "137": "invalid_amount",
}

/** The decline a `ServiceError` code stands for, when it is one. */
export function declineOfServiceError(errorCode: string | undefined): DeclineReason | undefined {
  return errorCode !== undefined && Object.prototype.hasOwnProperty.call(SERVICE_ERROR_DECLINES, errorCode)
    ? SERVICE_ERROR_DECLINES[errorCode]
    : undefined
}

/** Adyen's payment method variants to the card type codes the plugin names brands by (lib/card-brands.ts). */
const CARD_TYPES: Readonly<Record<string, string>> = {
  visa: "VI",
  mc: "MC",
  amex: "AX",
  discover: "DI",
  diners: "DC",
  jcb: "JC",
  cup: "UP",
}

/** The card type code of an Adyen brand ("visa" → "VI"); another brand is kept as Adyen names it. */
export function cardTypeOf(brand: string | undefined): string | undefined {
  if (!brand) {
    return undefined
  }
  const key = brand.toLowerCase()
  return Object.prototype.hasOwnProperty.call(CARD_TYPES, key) ? CARD_TYPES[key] : brand
}
