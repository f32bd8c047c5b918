// Import-free on purpose (its one import is a type): the admin extension's
// browser bundle shows these words, so nothing server-side may come in here.
import type {
  ChargebackStatus,
  DisputeCaseOutcome,
  DisputeCaseStatus,
  DisputeResponseStatus,
  ProofRequestStatus,
} from "../types"

/**
 * What each status the module stores means, written once. The admin shows
 * these words under its badges (`src/admin/lib/format.ts`), and
 * `docs/statuses.md` lists them; a unit spec
 * (`src/admin/__tests__/status-meanings.unit.spec.ts`) holds both to this file.
 * The moves between statuses are decided in this folder's lifecycles, and a
 * meaning says what they do: change a lifecycle, then its words here.
 */

/** A chargeback's `status`, in the order a dispute usually moves through them. */
export const CHARGEBACK_STATUS_MEANINGS: Readonly<Record<ChargebackStatus, string>> = {
  open: "Recorded; evidence collection is starting.",
  evidence_pending: "The order's card scans are on their way to ServiceScan or being judged there; waiting for its verdict.",
  evidence_ready: "At least one scan is worth disputing: its verdict and image are on the order, ready to send to the processor.",
  no_evidence:
    "Nothing to send: the order has no scan ids, every scan looks like true fraud, or ServiceScan refused the request. Attaching scan ids sends them.",
  won: "Decided in the store's favour, by an admin or by the card network's decision the processor reported. Final: evidence arriving later is still recorded but changes nothing.",
  lost: "Decided against the store, by an admin or by the card network's decision the processor reported. Final: evidence arriving later is still recorded but changes nothing.",
  closed: "Closed by an admin without a decision (accepted or withdrawn). Final: evidence arriving later is still recorded but changes nothing.",
}

/**
 * A proof request's `status` (lifecycle/proof-request.ts). ServiceScan's PUT
 * has no idempotency key, hence `submitting`: an answer may be lost, and the
 * request is then sent again by itself after a bounded wait.
 */
export const PROOF_REQUEST_STATUS_MEANINGS: Readonly<Record<ProofRequestStatus, string>> = {
  to_submit: "Not sent yet, or certainly not received (ServiceScan was unreachable or asked to try later); the poll job sends it.",
  submitting:
    "Sent, with no answer recorded yet: still in flight, or ServiceScan's answer was lost. A lost answer is sent again by itself after a wait (resubmitUnconfirmedAfterMs, an hour by default), or sooner when an admin resubmits.",
  pending: "ServiceScan accepted it and is judging the scans; the poll job checks it every poll interval.",
  complete: "ServiceScan returned its verdicts for the scans; they are stored on the order.",
  failed:
    "ServiceScan refused it for good (invalid scan ids, or a proof request it does not know); the last error says why. It is sent again only when an admin resubmits.",
}

/** Whether a processor's case belongs to an order of this store. */
export const DISPUTE_CASE_STATUS_MEANINGS: Readonly<Record<DisputeCaseStatus, string>> = {
  unmatched: "Its disputed transaction matched no payment of this store; it waits for an admin to assign it to an order.",
  matched: "Matched to the order its disputed transaction paid; its chargeback is recorded there.",
}

/** Our answer to a processor's case (lifecycle/dispute-case.ts). */
export const DISPUTE_RESPONSE_STATUS_MEANINGS: Readonly<Record<DisputeResponseStatus, string>> = {
  none: "Nothing was sent to the processor yet.",
  representing:
    "The evidence pack is being uploaded to the case and the chargeback represented; after a lost answer, the next try reads the case first.",
  represented: "The evidence pack is on the case and the chargeback was represented; the card network decides next.",
  accepting: "The acceptance of liability is being sent to the processor; after a lost answer, the next try reads the case first.",
  liability_accepted: "The chargeback was accepted: the disputed amount stays with the cardholder.",
  expired:
    "The reply-by day passed, or the case left the merchant's queue, without an answer; the processor takes nothing more on this case.",
}

/** The card network's decision on a case, as the processor reports it. */
export const DISPUTE_CASE_OUTCOME_MEANINGS: Readonly<Record<DisputeCaseOutcome, string>> = {
  won: "Decided in the store's favour: the money comes back.",
  lost: "Decided for the cardholder.",
}
