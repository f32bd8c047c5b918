/**
 * Shapes of the plugin's admin API (`/admin/servicescan/*`) as the admin
 * extension reads them. Only import-free files are imported from the server
 * side, so the browser bundle never pulls server code; fields the UI can live
 * without are optional so an older or newer backend degrades instead of
 * crashing a page.
 */

import type { CompellingEvidenceSummary } from "../../lib/compelling-evidence"

// The statuses are the module's own lists (an import-free file), so the UI
// cannot drift from what the backend stores; see there for what each means.
import type {
  AutoRespondPolicy,
  ChargebackOutcome,
  ChargebackStatus,
  DisputeCaseOutcome,
  DisputeCaseStatus,
  DisputeResponseStatus,
  ProofRequestStatus,
} from "../../modules/servicescan/types"

export {
  AUTO_RESPOND_POLICIES,
  CHARGEBACK_OUTCOMES,
  CHARGEBACK_STATUSES,
  DISPUTE_RESPONSE_STATUSES,
} from "../../modules/servicescan/types"
export type {
  AutoRespondPolicy,
  ChargebackOutcome,
  ChargebackStatus,
  DisputeCaseOutcome,
  DisputeCaseStatus,
  DisputeResponseStatus,
  ProofRequestStatus,
}

/**
 * The verdict on one scan. The backend stores the real service's `fraud` as
 * `invalid`, but the UI accepts both spellings so a raw value never shows up
 * as "unknown". `null`: the service has not (or did not) report the scan.
 */
export type GroundTruth = "valid" | "invalid" | "fraud"

export type ScanEvidence = {
  id?: string
  scan_id: string
  ground_truth: GroundTruth | string | null
  /** The word the service used (`fraud` on the real service). */
  reported_ground_truth?: string | null
  /** The service's URL. Never used by the UI: it needs the secret key, and it is a download. */
  image_url?: string | null
  /** True once the image was copied to Medusa's File Module (outlives the service's retention). */
  archived?: boolean
  archived_at?: string | null
  archive_error?: string | null
}

/**
 * A scan of a chargeback's evidence that was taken for another order: a
 * payment with a saved card borrows the scan made when the card was saved, and
 * the scans of earlier payments with the same card.
 */
export type ScanSource = {
  scan_id: string
  order_id: string
  /** The order's number as the admin shows it ("#12"); null when the order is gone. */
  order_display_id: number | null
}

export type ProofRequest = {
  id: string
  remote_id: string | null
  status: ProofRequestStatus | string
  attempts: number
  next_poll_at: string | null
  last_error: string | null
  completed_at: string | null
  submitted_at?: string | null
  last_polled_at?: string | null
  scan_ids?: string[]
  created_at?: string
  scans?: ScanEvidence[]
}

/** The order a chargeback is on, as the list and detail routes answer it: its number and its customer. */
export type OrderSummary = {
  id: string
  /** The order's number, shown as "#1001"; null when the order is gone. */
  display_id: number | null
  email: string | null
  /** First and last name of the order's customer; null for a guest without one. */
  customer_name: string | null
}

export type Chargeback = {
  id: string
  external_id: string
  order_id: string
  /** Major units (e.g. 12.5 for €12.50); a string when the backend serialises a BigNumber. */
  amount: number | string
  currency_code: string
  reason: string | null
  reason_code: string | null
  due_by: string | null
  status: ChargebackStatus | string
  source?: string
  extra_scan_ids?: string[]
  created_at?: string
  updated_at?: string
  proof_requests?: ProofRequest[]
  /** With the proof requests: the scans borrowed from other orders (saved cards) and their orders. */
  scan_sources?: ScanSource[]
  /** The processor's case behind the chargeback, when asked for (`+dispute_case.<field>`, each field named: a relation wildcard is refused); null when there is none. */
  dispute_case?: DisputeCase | null
  /** The order's number and customer (`null` when the order is gone; absent from an older backend). */
  order?: OrderSummary | null
  /** The detail only: whether the case qualifies for Visa Compelling Evidence 3.0 (lib/compelling-evidence.ts). */
  compelling_evidence?: CompellingEvidenceSummary | null
}

/**
 * A chargeback case as the processor publishes it (Worldpay's eComm
 * Chargeback API), with our answer to it. See the model
 * (modules/servicescan/models/dispute-case.ts) for what each field means.
 */
export type DisputeCase = {
  id: string
  /** The dispute gateway's name, e.g. `worldpay`. */
  gateway: string
  case_id: string
  status: DisputeCaseStatus | string
  /** Why the case matched no order (or how it was matched), in an admin's words. */
  match_note: string | null
  chargeback_id: string | null
  order_id: string | null
  /** Major units; a string when the backend serialises a BigNumber. */
  amount: number | string
  currency_code: string
  cycle: string | null
  reason_code: string | null
  reason_description: string | null
  /** Whose move it is, in the processor's words ("Merchant", "Vantiv", "Merchant Assumed", …). */
  queue: string | null
  awaiting_merchant: boolean
  /** `YYYY-MM-DD`: the processor's last day to answer. */
  reply_by: string | null
  issued_on: string | null
  processor_transaction_id: string | null
  processor_order_id: string | null
  card_last4: string | null
  card_type: string | null
  acquirer_reference_number: string | null
  /** Newest first. */
  activities: { items?: DisputeActivity[] | null } | null
  last_activity_on: string | null
  response_status: DisputeResponseStatus | string
  document_id: string | null
  document_uploaded_at: string | null
  represented_at: string | null
  liability_accepted_at: string | null
  response_error: string | null
  outcome: DisputeCaseOutcome | null
  pack_bytes: number | null
  pack_generated_at: string | null
  pack_downscaled: boolean | null
  created_at?: string
  updated_at?: string
}

export type DisputeCaseListQuery = {
  status?: DisputeCaseStatus
  q?: string
  /** A field to sort by, `-` first for descending (Medusa's list `order`). */
  order?: string
  offset?: number
  limit?: number
}

/** What "Import now" did (`POST /admin/servicescan/cases/import`). */
export type CaseImportReport = {
  days?: string[]
  cases: number
  new_cases: number
  matched: number
  unmatched: number
  chargebacks_recorded: number
  /** One line per case that could not be imported. */
  errors?: string[]
}

export type DisputeAction = "represent" | "accept"

/**
 * One activity on a processor case, as the dispute gateway reads it
 * (`DisputeActivity` in processors/types.ts, a file the
 * admin does not import: it holds server classes).
 */
export type DisputeActivity = {
  /** `YYYY-MM-DD`. */
  date: string
  /** The processor's own words, e.g. Worldpay's "Merchant Represent", "Case Won". */
  type: string
  fromQueue?: string | null
  toQueue?: string | null
  /** Minor units, when the activity moved money. */
  settlementAmountMinor?: number | null
  settlementCurrencyCode?: string | null
  notes?: string | null
}

export type ListResponse<T> = {
  items: T[]
  count: number
  offset: number
  limit: number
}

export type ChargebackListQuery = {
  /** One status or several (sent comma-separated). */
  status?: ChargebackStatus | ChargebackStatus[]
  order_id?: string
  /** `YYYY-MM-DD` (up to the end of that local day) or an ISO date-time. */
  due_before?: string
  /** `YYYY-MM-DD` (from the start of that local day) or an ISO date-time. */
  due_after?: string
  q?: string
  /** A sort field, `-` for descending (the server defaults to `-created_at`). */
  order?: string
  offset?: number
  limit?: number
}

export type RecordChargebackInput = {
  order_id: string
  external_id: string
  /** Major units as a decimal string ("19.99"), exact all the way to the server's BigNumber. */
  amount: string
  currency_code: string
  reason?: string
  reason_code?: string
  /** ISO 8601. */
  due_by?: string
}

/** What `GET /admin/servicescan/health` tells the UI; see lib/health.ts for how variants are read. */
export type ServiceHealth = {
  keys: { name: string; label: string; configured: boolean }[]
  base_url: string | null
  service: { reachable: boolean | null; latency_ms: number | null; error: string | null }
  last_polled_at: string | null
  pending_count: number | null
  counts: Partial<Record<ProofRequestStatus, number>> | null
  /** Submissions with no answer recorded (in flight, or lost): each is sent again by itself after a wait, or sooner by an admin. */
  needs_attention_count: number | null
  /** True when the poll job stopped on a configuration error. */
  polling_stopped: boolean | null
  configuration_error: { status: number | null; message: string; at: string | null } | null
  poll_interval_ms: number | null
  archive_images: boolean | null
  /**
   * The processor's chargeback API: `{ name }` when configured, `null` when
   * not, `undefined` when the backend does not say (an older version).
   */
  dispute_gateway: { name: string } | null | undefined
  /** The module's `autoRespond` policy, when the backend reports it. */
  auto_respond: AutoRespondPolicy | string | null
}
