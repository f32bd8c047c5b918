import type { DeclineReason, GatewayOutcome } from "../types"

/**
 * cnpAPI transaction response codes, as published in Worldpay's cnpAPI
 * reference (and the cnp SDKs' certification tests). Only the codes a card
 * payment can meet are classified; anything else is a generic decline with
 * its raw code kept.
 */

export type CnpTransactionType =
  | "authorization"
  | "sale"
  | "capture"
  | "credit"
  | "void"
  | "authReversal"

export const APPROVED = "000"

const REASONS: ReadonlyArray<readonly [DeclineReason, readonly string[]]> = [
  ["partial_approval", ["010"]],
  // 100-series: the network or issuer could not be reached; the shopper may retry.
  ["issuer_unavailable", ["100", "101", "102", "386"]],
  ["processing_error", ["206", "252", "257", "258", "370", "560"]],
  ["insufficient_funds", ["110"]],
  ["exceeds_limit", ["127"]],
  ["call_issuer", ["120", "121", "122", "123", "124", "125", "126", "130", "140", "351"]],
  // Pick-up, lost, stolen and filtered cards: told as a plain decline, never as suspicion.
  [
    "restricted_card",
    [
      "207", "213", "214", "215", "303", "304", "307", "308", "309", "312", "313", "315",
      "317", "318", "319", "325", "327", "328", "565", "566",
    ],
  ],
  ["invalid_card_number", ["301", "302", "820"]],
  ["expired_card", ["305"]],
  ["invalid_expiry", ["320"]],
  ["invalid_cvv", ["226", "352", "358"]],
  ["do_not_honor", ["349", "350", "355", "550", "555"]],
  ["invalid_amount", ["209", "340"]],
  ["invalid_token", ["822", "823", "877", "899"]],
  ["expired_token", ["878"]],
  // Codes about the merchant's account or request, not the card.
  ["merchant_configuration", ["321", "322", "330", "346", "347", "348", "354", "821", "835", "879"]],
  ["transaction_not_found", ["360"]],
  ["authorization_unavailable", ["306", "361"]],
  ["exceeds_captured_amount", ["365"]],
  ["already_settled", ["362"]],
  // 111 "Authorization amount has already been depleted": captured in full.
  ["already_captured", ["111"]],
]

const REASON_BY_CODE: ReadonlyMap<string, DeclineReason> = new Map(
  REASONS.flatMap(([reason, codes]) => codes.map((code) => [code, reason] as const))
)

/**
 * Codes that say an earlier request already did what this one asks, per
 * transaction type:
 * - capture: 111 "Authorization amount has already been depleted": the
 *   authorization is fully captured. (306/361 are NOT here: an authorization
 *   that expired or was reversed has no money to capture.)
 * - authReversal: 306 "Authorization has expired, no need to reverse" in the
 *   cnpAPI reference (the sandbox words it "Authorization no longer
 *   available"), 361 "Authorization no longer available". Not 111: a depleted
 *   authorization was captured, so the money was taken, not released.
 * - void: none. 362 "Transaction Not Voided - Already Settled" can mean a
 *   settled capture that still holds the money, so it is a failure; a repeated
 *   void carries the same request id and gets the original approval back
 *   through duplicate detection instead.
 */
const ALREADY_DONE: Readonly<Record<CnpTransactionType, ReadonlySet<string>>> = {
  authorization: new Set(),
  sale: new Set(),
  capture: new Set(["111"]),
  credit: new Set(),
  void: new Set(),
  authReversal: new Set(["306", "361"]),
}

export type CodeClassification = {
  outcome: GatewayOutcome
  reason?: DeclineReason
}

/**
 * Classifies a cnpAPI `<response>` code for a transaction type. 000 is
 * approved; 010 (partially approved) is a decline, because the provider never
 * asks for partial approval (no `allowPartialAuth`) and Medusa cannot
 * represent a payment for less than the cart.
 */
export function classifyResponseCode(type: CnpTransactionType, code: string): CodeClassification {
  if (code === APPROVED) {
    return { outcome: "approved" }
  }
  if (ALREADY_DONE[type].has(code)) {
    return { outcome: "already_done" }
  }
  return { outcome: "declined", reason: REASON_BY_CODE.get(code) ?? "generic" }
}
