// Import-free on purpose: the admin extension's browser bundle imports these
// lists, so nothing server-side may come in through this file.

/**
 * Statuses of a chargeback, in the order a dispute usually moves through them.
 *
 * - `open`: recorded; evidence collection has not started. The recording
 *   workflow moves on from here at once, so a chargeback stays `open` only
 *   while that workflow runs.
 * - `evidence_pending`: a proof request is on its way to ServiceScan or is
 *   being processed there; the poll job is watching it.
 * - `evidence_ready`: ServiceScan answered and at least one scan was judged
 *   `valid`: its ground truth and image are on the order, ready for the processor.
 * - `no_evidence`: there is nothing to send: the order has no scan ids, every
 *   scan was judged fraudulent (`invalid`), or ServiceScan rejected the request.
 *   Attaching scan ids moves the chargeback back to `evidence_pending`.
 * - `won`, `lost`, `closed`: the outcome, set by an admin. Final: later
 *   evidence is still recorded but never changes these.
 */
export const CHARGEBACK_STATUSES = [
  "open",
  "evidence_pending",
  "evidence_ready",
  "no_evidence",
  "won",
  "lost",
  "closed",
] as const
export type ChargebackStatus = (typeof CHARGEBACK_STATUSES)[number]

export const CHARGEBACK_OUTCOMES = ["won", "lost", "closed"] as const
export type ChargebackOutcome = (typeof CHARGEBACK_OUTCOMES)[number]

export function isFinalChargebackStatus(status: string): status is ChargebackOutcome {
  return (CHARGEBACK_OUTCOMES as readonly string[]).includes(status)
}

/** How a chargeback reached the plugin: `processor` is a case imported from the processor's chargeback API. */
export const CHARGEBACK_SOURCES = ["admin", "webhook", "api", "processor"] as const
export type ChargebackSource = (typeof CHARGEBACK_SOURCES)[number]

/**
 * Statuses of a proof request, our side of the service's `pending`/`complete`.
 *
 * - `to_submit`: not sent yet (or certainly not received: the service was
 *   unreachable or refused with a retryable error). The poll job sends it.
 * - `submitting`: a PUT is in flight (`in_flight_until` in the future), or its
 *   answer was lost ("unconfirmed"). The service has no idempotency key, so a
 *   lost answer is sent again only after `resubmitUnconfirmedAfterMs` (or
 *   sooner when an admin asks: "check now" with `resubmit: true`).
 * - `pending`: ServiceScan accepted it (`remote_id` is set); the job polls it.
 * - `complete`: ServiceScan answered with ground truths; evidence is stored.
 * - `failed`: ServiceScan refused it for good (invalid request, unknown or
 *   foreign proof request id). `last_error` says why.
 */
export const PROOF_REQUEST_STATUSES = ["to_submit", "submitting", "pending", "complete", "failed"] as const
export type ProofRequestStatus = (typeof PROOF_REQUEST_STATUSES)[number]

export const GROUND_TRUTHS = ["valid", "invalid"] as const
export type GroundTruthValue = (typeof GROUND_TRUTHS)[number]

/** Events this module's workflows emit. */
export const ServiceScanEvents = {
  PROOF_REQUEST_COMPLETED: "servicescan.proof_request.completed",
  CHARGEBACK_EVIDENCE_READY: "servicescan.chargeback.evidence_ready",
  CHARGEBACK_IMPORTED: "servicescan.chargeback.imported",
  CHARGEBACK_REPRESENTED: "servicescan.chargeback.represented",
  CHARGEBACK_LIABILITY_ACCEPTED: "servicescan.chargeback.liability_accepted",
} as const

export type ProofRequestCompletedEvent = {
  id: string
  chargeback_id: string
  remote_id: string
}

export type ChargebackEvidenceReadyEvent = {
  id: string
  order_id: string
  external_id: string
}

/** A processor case: matched to one of this store's payments (and so to a chargeback), or not (yet). */
export const DISPUTE_CASE_STATUSES = ["unmatched", "matched"] as const
export type DisputeCaseStatus = (typeof DISPUTE_CASE_STATUSES)[number]

/**
 * Our answer to a case (lifecycle/dispute-case.ts):
 * - `none`: nothing sent yet;
 * - `representing` / `accepting`: the answer is being sent (or its outcome is being checked);
 * - `represented`: the evidence document is on the case and the representment was sent;
 * - `liability_accepted`: the merchant accepted the chargeback;
 * - `expired`: the reply-by day passed without an answer from us; nothing is sent any more.
 */
export const DISPUTE_RESPONSE_STATUSES = [
  "none",
  "representing",
  "represented",
  "accepting",
  "liability_accepted",
  "expired",
] as const
export type DisputeResponseStatus = (typeof DISPUTE_RESPONSE_STATUSES)[number]

/** The network's decision, when the processor reports one. */
export const DISPUTE_CASE_OUTCOMES = ["won", "lost"] as const
export type DisputeCaseOutcome = (typeof DISPUTE_CASE_OUTCOMES)[number]

/** When the module answers a case without a person: off, only with valid scans, or also accepting when every scan is likely true fraud. */
export const AUTO_RESPOND_POLICIES = ["off", "represent-valid", "represent-valid-accept-invalid"] as const
export type AutoRespondPolicy = (typeof AUTO_RESPOND_POLICIES)[number]

export type ChargebackImportedEvent = { id: string; order_id: string; case_id: string; gateway: string }
export type ChargebackRespondedEvent = { id: string; order_id: string; case_id: string; gateway: string }
