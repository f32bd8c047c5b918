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

/** How a chargeback reached the plugin. */
export const CHARGEBACK_SOURCES = ["admin", "webhook", "api"] as const
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
