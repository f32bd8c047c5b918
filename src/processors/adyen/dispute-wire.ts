import { z } from "@medusajs/framework/zod"
import type { ReasonFamily } from "../../lib/reason-family"

/**
 * The Disputes API v30 bodies (DisputeService-v30.json), read with zod, and
 * the rule that picks a defense reason for card-scan evidence.
 */

/** `DisputeServiceResult`: a business failure is still HTTP 200, with `success: false`. */
const serviceResultSchema = z.object({
  success: z.boolean(),
  errorMessage: z.string().optional(),
})

const documentTypeSchema = z.object({
  defenseDocumentTypeCode: z.string(),
  available: z.boolean(),
  requirementLevel: z.string(),
})

const defenseReasonSchema = z.object({
  defenseReasonCode: z.string(),
  satisfied: z.boolean(),
  defenseDocumentTypes: z.array(documentTypeSchema).optional(),
})

/** Every operation's answer: its `disputeServiceResult`, and the reasons for `/retrieveApplicableDefenseReasons`. */
export const disputeAnswerSchema = z.object({
  disputeServiceResult: serviceResultSchema,
  defenseReasons: z.array(defenseReasonSchema).optional(),
})

/** An answer of the Disputes API, as read. */
export type DisputeAnswer = z.output<typeof disputeAnswerSchema>
/** One `DefenseReason`, as read. */
export type DefenseReason = z.output<typeof defenseReasonSchema>

/** The reason whose generic evidence document takes a card-scan evidence pack (DisputeService-v30 example). */
export const PREFERRED_DEFENSE_REASON = "SupplyDefenseMaterial"
/** Adyen's generic evidence document type: the pack goes in as this. */
export const EVIDENCE_DOCUMENT_TYPE = "DefenseMaterial"

/** Adyen's words for an answer it already took: a repeat of ours after a lost acknowledgement, not a failure. */
export const ALREADY_DEFENDED = /already (been )?defended/i
export const ALREADY_ACCEPTED = /already (been )?accepted/i
export const DOCUMENT_NOT_FOUND = /document not found/i

/**
 * The defense reason a card-scan evidence pack can carry, and the document
 * type it goes in as; null when the dispute allows none. The rule (the
 * dispute's reasons come in no useful order, so the first is never taken
 * blindly):
 * 1. a reason we can satisfy: every document it needs is the one we have (the
 *    generic `DefenseMaterial`), or among alternatives one of which is it;
 * 2. of those, one that names what the case's reason family (lib/reason-family.ts) is
 *    won with, when the family is known and Adyen offers one (`FAMILY_DEFENSE`);
 * 3. else `SupplyDefenseMaterial`, then the others in Adyen's order.
 */
export function chooseDefenseReason(
  reasons: readonly DefenseReason[],
  family?: ReasonFamily | null
): { reason: string; documentType: string } | null {
  const fits = reasons.filter((reason) => satisfiableWithEvidence(reason))
  const named = family ? FAMILY_DEFENSE[family] : null
  const chosen =
    (named ? fits.find((reason) => named.test(reason.defenseReasonCode)) : undefined) ??
    fits.find((reason) => reason.defenseReasonCode === PREFERRED_DEFENSE_REASON) ??
    fits[0]
  return chosen ? { reason: chosen.defenseReasonCode, documentType: EVIDENCE_DOCUMENT_TYPE } : null
}

/**
 * The defense reasons that answer each family, by the words of Adyen's reason
 * codes (CamelCase names such as `GoodsWereAsDescribed`; which ones a dispute
 * offers depends on its scheme and reason code, so they are matched by name,
 * not listed). "Other" has none: the generic reason serves it.
 */
const FAMILY_DEFENSE: Readonly<Record<ReasonFamily, RegExp | null>> = {
  fraud: /CompellingEvidence|Authori[sz]|Fraud|Recogni[sz]|Participat/i,
  not_received: /Delivered|Received|Provided|Shipped/i,
  not_as_described: /AsDescribed|NotDefective|Quality/i,
  credit_not_processed: /Credit|Refund|Cancel|Duplicate/i,
  other: null,
}

function satisfiableWithEvidence(reason: DefenseReason): boolean {
  const types = reason.defenseDocumentTypes ?? []
  if (!types.some((type) => type.defenseDocumentTypeCode === EVIDENCE_DOCUMENT_TYPE)) {
    return false
  }
  const required = types.filter((type) => type.requirementLevel === "Required")
  // Every Required type must be ours (or already there); a group of alternatives (OneOrMore,
  // AlternativeRequired) is met by ours, which the reason lists.
  return required.every((type) => type.defenseDocumentTypeCode === EVIDENCE_DOCUMENT_TYPE || type.available)
}
