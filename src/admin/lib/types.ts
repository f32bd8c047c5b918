/**
 * Shapes of the plugin's admin API (`/admin/servicescan/*`) as the admin
 * extension reads them. Only import-free files are imported from the server
 * side, so the browser bundle never pulls server code; fields the UI can live
 * without are optional so an older or newer backend degrades instead of
 * crashing a page.
 */

// The statuses are the module's own lists (an import-free file), so the UI
// cannot drift from what the backend stores; see there for what each means.
import type { ChargebackOutcome, ChargebackStatus, ProofRequestStatus } from "../../modules/servicescan/types"

export { CHARGEBACK_OUTCOMES, CHARGEBACK_STATUSES } from "../../modules/servicescan/types"
export type { ChargebackOutcome, ChargebackStatus, ProofRequestStatus }

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
}

export type ListResponse<T> = {
  items: T[]
  count: number
  offset: number
  limit: number
}

export type ChargebackListQuery = {
  status?: ChargebackStatus
  order_id?: string
  /** `YYYY-MM-DD` (end of that day is the backend's business). */
  due_before?: string
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
  /** Submissions whose answer was lost: an admin decides whether to resubmit. */
  needs_attention_count: number | null
  /** True when the poll job stopped on a configuration error. */
  polling_stopped: boolean | null
  configuration_error: { status: number | null; message: string; at: string | null } | null
  poll_interval_ms: number | null
  archive_images: boolean | null
}
