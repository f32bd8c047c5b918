/** Fields of a chargeback in admin responses, and what `?fields=` may ask for. */
const CHARGEBACK_FIELDS = [
  "id",
  "external_id",
  "order_id",
  "amount",
  "currency_code",
  "reason",
  "reason_code",
  "due_by",
  "status",
  "source",
  "extra_scan_ids",
  "metadata",
  "created_at",
  "updated_at",
]

/**
 * A chargeback's evidence: its proof requests and their scans. The list
 * answers without them by default (a page of 20 stays small); the admin
 * extension asks for them with `+` fields. Import-free, so the admin bundle
 * imports this list instead of spelling it again.
 */
export const EVIDENCE_FIELDS = [
  "proof_requests.id",
  "proof_requests.remote_id",
  "proof_requests.status",
  "proof_requests.scan_ids",
  "proof_requests.attempts",
  "proof_requests.next_poll_at",
  "proof_requests.last_polled_at",
  "proof_requests.submitted_at",
  "proof_requests.last_error",
  "proof_requests.completed_at",
  "proof_requests.created_at",
  "proof_requests.scans.id",
  "proof_requests.scans.scan_id",
  "proof_requests.scans.ground_truth",
  "proof_requests.scans.reported_ground_truth",
  "proof_requests.scans.archived_at",
  "proof_requests.scans.archive_error",
]

// `allowed` keeps `?fields=` to these: the evidence's service and archive URLs
// are internal (the image proxy is the way to an image).
export const listChargebacksQueryConfig = {
  defaults: [...CHARGEBACK_FIELDS],
  allowed: [...CHARGEBACK_FIELDS, ...EVIDENCE_FIELDS, "proof_requests", "proof_requests.scans", "dispute_case"],
  isList: true,
  defaultLimit: 20,
}

export const retrieveChargebackQueryConfig = {
  defaults: [...CHARGEBACK_FIELDS, ...EVIDENCE_FIELDS],
  allowed: [...CHARGEBACK_FIELDS, ...EVIDENCE_FIELDS, "proof_requests", "proof_requests.scans", "dispute_case"],
  isList: false,
}
