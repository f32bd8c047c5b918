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
  /** A case waits for a person: unmatched, or its evidence is complete and the `autoRespond` policy will not answer it. */
  CASE_NEEDS_ATTENTION: "servicescan.case.needs_attention",
  /** A case still waiting for our answer is due within the module's `alerts.dueSoonDays` (once per case). */
  CASE_DUE_SOON: "servicescan.case.due_soon",
  /** A chargeback's dispute ended: won, lost or closed (by the card network through the processor, or an admin). */
  CASE_DECIDED: "servicescan.case.decided",
  /** A processor's webhook delivered events, stored once each (`{ gateway, ids }`): they are applied next. */
  PROCESSOR_EVENTS_RECEIVED: "servicescan.processor_events.received",
  /** A processor failed a capture, refund or cancel after accepting it (Adyen's later notification): Medusa still records it. */
  PAYMENT_OPERATION_FAILED: "servicescan.payment_operation.failed",
} as const

/**
 * `servicescan.payment_operation.failed`: ids and words only, no card data, no amount.
 * `payment_id` is null when no payment of this store records the operation.
 */
export type PaymentOperationFailedEvent = {
  /** The operation's processor transaction id (the alert's identity). */
  id: string
  operation: "capture" | "refund" | "cancel"
  /** The processor's id of the payment. */
  payment_transaction_id: string
  payment_id: string | null
  order_id: string | null
  /** The processor's words for the failure. */
  reason: string | null
  occurred_at: string
}

/** `servicescan.processor_events.received`. */
export type ProcessorEventsReceivedEvent = { gateway: string; ids: string[] }

/**
 * Why a case needs a person: it matches no order (`unmatched`), or its
 * evidence is complete and no automatic answer follows, because the
 * `autoRespond` policy is `off` (`auto_respond_off`) or because no scan was
 * judged valid (`no_valid_scan`).
 */
export const CASE_ATTENTION_REASONS = ["unmatched", "auto_respond_off", "no_valid_scan"] as const
export type CaseAttentionReason = (typeof CASE_ATTENTION_REASONS)[number]

/** What identifies a processor case in the alerts' events (no card data: no last four, no card type). */
type CaseAlertSubject = {
  /** The case's row id (`sscase_…`). */
  id: string
  case_id: string
  gateway: string
  order_id: string | null
  chargeback_id: string | null
  /** `YYYY-MM-DD`, the last day to answer, when the processor gives one. */
  reply_by: string | null
}

/** `servicescan.case.needs_attention`. */
export type CaseNeedsAttentionEvent = CaseAlertSubject & { reason: CaseAttentionReason }

/** `servicescan.case.due_soon`. */
export type CaseDueSoonEvent = CaseAlertSubject & { reply_by: string; days_left: number }

/** `servicescan.case.decided`: `id` is the chargeback's; `case_id` and `gateway` are null for a chargeback recorded without a processor case. */
export type CaseDecidedEvent = {
  id: string
  order_id: string
  outcome: ChargebackOutcome
  decided_by: "processor" | "admin"
  case_id: string | null
  gateway: string | null
}

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

/**
 * What a ServiceScan cart completion records of the shopper (see the CheckoutSignal model and
 * docs/privacy.md); `recordCheckoutSignal` bounds each value before it is stored.
 */
export type CheckoutSignalInput = {
  payment_session_id: string
  cart_id: string
  customer_id: string | null
  ip_address: string | null
  user_agent: string | null
  device_id: string | null
}

/** A placed payment and the session it was made from: what fills in a checkout signal's `payment_id`. */
export type CheckoutSignalPayment = { payment_id: string; payment_session_id: string }

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

/** A case the due-soon alert claimed (`claimDueSoonCases`). */
export type DueSoonCase = Pick<DisputeCaseRow, "id" | "case_id" | "gateway" | "order_id" | "chargeback_id"> & { reply_by: string }

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

/**
 * One month's (or the whole range's) dispute figures in one currency (`getDisputeAnalytics`;
 * docs/disputes.md, "Analytics", says how each is counted). Money is a major-unit decimal
 * string with the currency's decimals ("12.50"); a ratio is a fraction (0.0125 is 1.25 %),
 * null when its denominator is 0.
 */
export type DisputeAnalyticsFigures = {
  /** Orders placed with a payment of this plugin's providers. */
  orders: number
  /** Of those, paid by a payment with a scan id (a hosted-form payment). */
  orders_with_scan: number
  scan_share: number | null
  chargebacks: number
  chargeback_ratio: number | null
  won: number
  lost: number
  /** Closed by an admin without a decision: neither won nor lost. */
  closed: number
  pending: number
  /** won ÷ (won + lost). */
  win_rate: number | null
  /** The amount of the won chargebacks. */
  recovered: string
  /** The amount of the lost chargebacks. */
  lost_amount: string
  /** The amount of the chargebacks still pending. */
  at_stake: string
  /** Pending chargebacks whose reply-by day is today or in the next `due_window_days` days. */
  due_soon: number
  /** The scans of these chargebacks by ServiceScan's verdict (unjudged: no verdict yet). */
  verdicts: { valid: number; invalid: number; unjudged: number }
  /** At or over the Visa line. */
  visa_exceeded: boolean
  /** At or over the Mastercard ratio, with at least its minimum count of chargebacks. */
  mastercard_exceeded: boolean
}

/** The dispute analytics of a range of months in one currency. */
export type DisputeAnalytics = {
  currency: string
  /** Every currency of this store's chargebacks and plugin-paid orders, the most used first. */
  currencies: string[]
  from: string
  to: string
  due_window_days: number
  /** The card networks' monitoring lines (the `monitoring` option), as fractions. */
  thresholds: { visa_ratio: number; mastercard_ratio: number; mastercard_min_chargebacks: number }
  months: (DisputeAnalyticsFigures & { month: string })[]
  totals: DisputeAnalyticsFigures
}
