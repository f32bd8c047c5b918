import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import type { ProofRequestState } from "../lifecycle/proof-request"
import { DUE_STATUSES } from "../lifecycle/proof-request"
import { ProofRequest } from "../models"
import { sqlNames } from "./names"

/**
 * Set-based reads and writes of proof requests: the poll job's hot path, where
 * row-by-row ORM updates made a 10,000-request run several times slower. What
 * the rows become is decided by lifecycle/proof-request.ts; this file only
 * locks, reads and writes them.
 */

/** A proof request row as the lifecycle and the writes need it. */
export type ProofRequestRow = ProofRequestState & {
  id: string
  chargeback_id: string
  scan_ids: string[]
  last_error: string | null
  last_polled_at: Date | null
  submitted_at: Date | null
  completed_at: Date | null
}

const MUTABLE = [
  "status",
  "remote_id",
  "other_remote_ids",
  "attempts",
  "submissions",
  "in_flight_until",
  "next_poll_at",
  "last_polled_at",
  "submitted_at",
  "last_error",
  "completed_at",
] as const

/** Quoted names of the proof request table and columns, for the module's other statements. */
export const PROOF_REQUEST = sqlNames(ProofRequest, [
  "id",
  "chargeback_id",
  "scan_ids",
  "deleted_at",
  "updated_at",
  ...MUTABLE,
])
const { table, col } = PROOF_REQUEST

const SELECT_ROW = [col.id, col.chargeback_id, col.scan_ids, ...MUTABLE.map((name) => col[name])].join(", ")

/** Column types of the mutable columns, for `jsonb_to_recordset`. */
const RECORD_TYPES: Record<(typeof MUTABLE)[number], string> = {
  status: "text",
  remote_id: "text",
  other_remote_ids: "text[]",
  attempts: "int",
  submissions: "int",
  in_flight_until: "timestamptz",
  next_poll_at: "timestamptz",
  last_polled_at: "timestamptz",
  submitted_at: "timestamptz",
  last_error: "text",
  completed_at: "timestamptz",
}

/**
 * Reads and row-locks proof requests for the rest of the transaction.
 * `skipLocked`: rows another transaction holds are left out instead of waited
 * for (two senders never take the same row).
 */
export async function lockProofRequests(
  manager: SqlEntityManager,
  ids: readonly string[],
  options: { skipLocked?: boolean } = {}
): Promise<ProofRequestRow[]> {
  if (!ids.length) {
    return []
  }
  const rows: ProofRequestRow[] = await manager.execute(
    `SELECT ${SELECT_ROW} FROM ${table}
      WHERE ${col.id} IN (?) AND ${col.deleted_at} IS NULL
      ORDER BY ${col.id}
      FOR UPDATE${options.skipLocked ? " SKIP LOCKED" : ""}`,
    [ids]
  )
  return rows.map(normalize)
}

/** Writes whole rows (every mutable column) in one statement. */
export async function writeProofRequests(manager: SqlEntityManager, rows: readonly ProofRequestRow[]): Promise<void> {
  if (!rows.length) {
    return
  }
  const record = MUTABLE.map((name) => `${col[name]} ${RECORD_TYPES[name]}`).join(", ")
  const assignments = MUTABLE.map((name) => `${col[name]} = v.${col[name]}`).join(", ")
  await manager.execute(
    `UPDATE ${table} AS p SET ${assignments}, ${col.updated_at} = now()
       FROM jsonb_to_recordset(?::jsonb) AS v(${col.id} text, ${record})
      WHERE p.${col.id} = v.${col.id}`,
    [JSON.stringify(rows.map((row) => pick(row)))]
  )
}

/**
 * What a claim returns: only what the caller plans with. The rows' other
 * columns are read again under row locks when they are worked on, and parsing
 * them here (dates, arrays) for every row of a 100,000-row backlog was
 * allocation for nothing.
 */
const CLAIMED = ["id", "status", "remote_id", "chargeback_id"] as const
export type ClaimedRow = Pick<ProofRequestRow, (typeof CLAIMED)[number]>

/**
 * Claims rows for a run: due ones (`next_poll_at <= now`, in a status the
 * job works on), or the given ids whatever their schedule ("check now").
 * Claiming pushes `next_poll_at` to `leaseUntil` in one statement with
 * `FOR UPDATE SKIP LOCKED`, so two instances polling at once never take the
 * same rows, and rows of a run that dies come back when the lease runs out.
 */
export async function claimProofRequests(manager: SqlEntityManager, input: ClaimInput): Promise<ClaimedRow[]> {
  const { sql, bindings } = claimStatement(input)
  return await manager.execute(sql, bindings)
}

export type ClaimInput = { now: Date; leaseUntil: Date; limit: number; ids?: readonly string[] }

/**
 * The claim's statement (`?` placeholders, as `manager.execute` and knex take
 * them), apart so that a spec can have PostgreSQL explain it.
 *
 * Its ORDER BY is exactly IDX_servicescan_proof_request_due_order's, so PostgreSQL
 * reads the first `limit` unlocked entries off the index. Any other order (it
 * once had NULLS FIRST, which no btree scan gives) makes it read and sort every
 * due row on every page. Rows in the statuses claimed always have a
 * `next_poll_at` (only complete and failed ones have none), so no null is ordered.
 */
export function claimStatement(input: ClaimInput): { sql: string; bindings: unknown[] } {
  const filter = input.ids ? `${col.id} IN (?)` : `${col.next_poll_at} <= ?`
  return {
    sql: `UPDATE ${table} AS pr SET ${col.next_poll_at} = ?, ${col.updated_at} = now()
      WHERE pr.${col.id} IN (
        SELECT ${col.id} FROM ${table}
         WHERE ${col.deleted_at} IS NULL AND ${col.status} IN (?) AND ${filter}
         ORDER BY ${col.next_poll_at} ASC, ${col.id} ASC
         LIMIT ?
         FOR UPDATE SKIP LOCKED)
      RETURNING ${CLAIMED.map((name) => `pr.${col[name]}`).join(", ")}`,
    bindings: [input.leaseUntil, DUE_STATUSES, input.ids ?? input.now, input.limit],
  }
}

function pick(row: ProofRequestRow): Record<string, unknown> {
  const out: Record<string, unknown> = { id: row.id }
  for (const name of MUTABLE) {
    out[name] = row[name]
  }
  return out
}

/** The driver returns dates as Date and arrays as arrays; a null array column reads as empty. */
function normalize(row: ProofRequestRow): ProofRequestRow {
  return { ...row, other_remote_ids: row.other_remote_ids ?? [], scan_ids: row.scan_ids ?? [] }
}
