// Type imports only, on purpose: the admin extension's browser bundle imports
// these lists, so nothing server-side may come in through this file at run time.
import type { InferTypeOf } from "@medusajs/framework/types"
import type { ScanResult } from "../../lib/servicescan/disputes-client"
import type { CheckoutAttempt, DisputeCase, FormBinding, PaymentRef, ProofRequest, ScanEvidence } from "./models"

/**
 * Statuses of a chargeback, in the order a dispute usually moves through them.
 * What each means is written once, in lifecycle/status-meanings.ts.
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
 * What each means: lifecycle/status-meanings.ts; how they move:
 * lifecycle/proof-request.ts.
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
 * Our answer to a case. What each means: lifecycle/status-meanings.ts; how
 * they move: lifecycle/dispute-case.ts.
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

// Rows, as the models define them: a column renamed or retyped in a model is
// renamed or retyped here, and in every statement and step that uses it.

type ProofRequestModel = InferTypeOf<typeof ProofRequest>
type ScanEvidenceModel = InferTypeOf<typeof ScanEvidence>
type CheckoutAttemptModel = InferTypeOf<typeof CheckoutAttempt>
type PaymentRefModel = InferTypeOf<typeof PaymentRef>

/** A dispute case as the module lists it: every column, no relation. Read `activities` with `caseActivities`. */
export type DisputeCaseRow = Omit<InferTypeOf<typeof DisputeCase>, "chargeback">

/** A proof request as its lifecycle (lifecycle/proof-request.ts) and the queue's statements read and write it. */
export type ProofRequestRow = Pick<
  ProofRequestModel,
  | "id"
  | "chargeback_id"
  | "scan_ids"
  | "status"
  | "remote_id"
  | "other_remote_ids"
  | "attempts"
  | "submissions"
  | "in_flight_until"
  | "next_poll_at"
  | "last_polled_at"
  | "submitted_at"
  | "last_error"
  | "completed_at"
>

/**
 * A proof request as a claim returns it: only what the caller plans with (see
 * `claimProofRequests` in repositories/proof-request.ts).
 */
export type ClaimedProofRequest = Pick<ProofRequestRow, "id" | "status" | "remote_id" | "chargeback_id">

/** What a status check writes on a scan's evidence, and what undoing it restores. */
export type EvidenceSnapshot = Pick<ScanEvidenceModel, "id" | "ground_truth" | "reported_ground_truth" | "image_url">

/** A scan's evidence row as the admin image proxy and the evidence pack read it (none: not this store's scan). */
export type ImageSource = Pick<ScanEvidenceModel, "id" | "ground_truth" | "archived_file_id" | "archive_key">

/** A checkout attempt row. */
export type CheckoutAttemptRow = CheckoutAttemptModel

/** One cart completion to record, before the card is authorized (see the CheckoutAttempt model). */
export type CheckoutAttemptInput = Pick<CheckoutAttemptModel, "payment_session_id" | "cart_id" | "form_id" | "request_id"> & {
  /** The saved card the session pays with, when it does. */
  payment_method_id?: string | null
}

/** What `claimCheckoutAttempt` did. */
export type CheckoutAttemptClaim = {
  /** Sessions other than this one whose completion carried the same form id (nothing was recorded when there are some, unless forced). */
  other_sessions: string[]
  recorded: boolean
  /** This session's record before the claim, or null when it had none. */
  previous: Pick<CheckoutAttemptModel, "id" | "attempted_at" | "reconciled_at"> | null
}

/** The checkout a form id belongs to: a cart's payment collection and who sent the form (null: a guest). */
export type FormCheckout = Pick<InferTypeOf<typeof FormBinding>, "payment_collection_id" | "customer_id">

/** Our side of a case's match: the order it disputes and the chargeback that holds its evidence. */
export type DisputeCaseMatch = Pick<DisputeCaseRow, "id" | "status" | "order_id" | "match_note" | "chargeback_id">

/** How the processor names one payment of an order being placed (see the PaymentRef model). */
export type PaymentRefInput = Pick<
  PaymentRefModel,
  "payment_id" | "order_id" | "processor_transaction_id" | "processor_order_id" | "scan_id"
> & {
  token_fingerprint?: string | null
}

/** The payment of this store a case names, and its scan. */
export type PaymentRefMatch = Pick<PaymentRefModel, "order_id" | "payment_id" | "scan_id">

/** A scan of an earlier payment made with a card (see `listScansOfCards`). */
export type CardScan = { scan_id: string; order_id: string; token_fingerprint: string }

// What the module's service answers.

/** Why the module stopped calling the service, until a probe (the poll job's, the health endpoint's or an admin's check) succeeds. */
export type ConfigurationError = {
  /** HTTP status the service answered (401/403), or null when a key is simply not configured. */
  status: number | null
  message: string
  at: Date
  /**
   * Whether it is this process's key that was refused. Processes normally share
   * one key; during a rotation that reached some processes and not others, a
   * process whose key works keeps calling, and its probe cannot vouch for the
   * other key (see `probe`).
   */
  this_process: boolean
}

/** What one probe of the service found: its latency, or why it failed (a refused or missing key is a configuration error). */
export type ServiceProbe =
  | { reachable: true; latency_ms: number }
  | { reachable: false; configuration_error: boolean; error: string }

/** A proof request after a send: its status and remote id, or why it was not accepted. */
export type SubmissionResult = {
  id: string
  chargeback_id: string
  status: ProofRequestStatus
  remote_id: string | null
  error: string | null
}

/** What one status check found, before anything is written. */
export type FetchOutcome =
  | { id: string; kind: "pending" }
  | { id: string; kind: "complete"; scans: ScanResult[] }
  /** The service refused for good (unknown or foreign proof request id). */
  | { id: string; kind: "failed"; error: string }
  /** Worth another try later (timeout, 5xx, malformed body). */
  | { id: string; kind: "error"; error: string }
  /** Not checked: the run stopped on an authentication error first. */
  | { id: string; kind: "skipped" }

/** Enough to undo `applyProofResults` (workflow compensation). */
export type ProofResultsSnapshot = {
  proof_requests: ProofRequestRow[]
  evidence: EvidenceSnapshot[]
}

/** A proof request a status check completed (what `servicescan.proof_request.completed` carries). */
export type CompletedProofRequest = {
  id: string
  chargeback_id: string
  remote_id: string
}

/** A chargeback's status moved by its proof requests, and enough to move it back. */
export type ChargebackStatusChange = {
  id: string
  order_id: string
  external_id: string
  from: ChargebackStatus
  to: ChargebackStatus
}

/** What a chargeback's evidence says, for an automatic answer (see `summarizeEvidence`). */
export type EvidenceVerdicts = { hasValidScan: boolean; hasInFlight: boolean; allInvalid: boolean }

/**
 * A sealed file and its key to store in place of the ones read (`swapStoredEvidence`):
 * an archived scan image (the evidence row's id) or an evidence pack (the case's id).
 */
export type SealedFileSwap = { id: string; expected: { file_id: string; key: string | null }; next: { file_id: string; key: string } }

/** What `upsertDisputeCases` wrote: the rows after the write, the ids it created and the rows it changed as they were before. */
export type DisputeCaseUpsert = { rows: DisputeCaseRow[]; created: string[]; previous: DisputeCaseRow[] }
