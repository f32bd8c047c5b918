import { DISPUTE_CASE_FIELDS } from "./cases/query-config"

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

/** The processor's case behind a chargeback (`+dispute_case.…`), each field by its path. */
export const CHARGEBACK_CASE_FIELDS = DISPUTE_CASE_FIELDS.map((field) => `dispute_case.${field}`)

/**
 * Columns of scan evidence that never leave the server, whatever `?fields=`
 * asks: the service's URL and where the sealed archive copy is, with its key.
 * Images only ever leave through the authenticated image proxy.
 */
export const SERVER_ONLY_EVIDENCE_FIELDS = ["image_url", "archived_file_id", "archive_key"]

/**
 * What `?fields=` may name: each field by its full path. No relation name is
 * allowed on its own, so `*proof_requests.scans`, `proof_requests.scans.*`
 * and the like (Medusa's "every column of a relation") are dropped instead of
 * expanding to the server-only columns. `disallowed` strips those columns by
 * name as well, and the routes pass only these exact paths to Query.
 */
export const CHARGEBACK_QUERY_FIELDS: readonly string[] = [...CHARGEBACK_FIELDS, ...EVIDENCE_FIELDS, ...CHARGEBACK_CASE_FIELDS]

export const listChargebacksQueryConfig = {
  defaults: [...CHARGEBACK_FIELDS],
  allowed: [...CHARGEBACK_QUERY_FIELDS],
  disallowed: [...SERVER_ONLY_EVIDENCE_FIELDS],
  isList: true,
  defaultLimit: 20,
}

export const retrieveChargebackQueryConfig = {
  defaults: [...CHARGEBACK_FIELDS, ...EVIDENCE_FIELDS],
  allowed: [...CHARGEBACK_QUERY_FIELDS],
  disallowed: [...SERVER_ONLY_EVIDENCE_FIELDS],
  isList: false,
}
