import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { DUE_STATUSES } from "../lifecycle/proof-request"
import { ProofRequest, ScanEvidence } from "../models"
import type { ClaimedProofRequest, EvidenceSnapshot, ProofRequestRow, ProofRequestStatus } from "../types"
import { sqlNames } from "./names"

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

/** Quoted names of the proof request table and columns, for the module's statements that join it. */
export const PROOF_REQUEST = sqlNames(ProofRequest, [
  "id",
  "chargeback_id",
  "scan_ids",
  "deleted_at",
  "updated_at",
  ...MUTABLE,
])
const { table, col } = PROOF_REQUEST
const E = sqlNames(ScanEvidence, [
  "id",
  "scan_id",
  "proof_request_id",
  "ground_truth",
  "reported_ground_truth",
  "image_url",
  "deleted_at",
  "updated_at",
])

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
 * What a claim returns: only what the caller plans with. The rows' other
 * columns are read again under row locks when they are worked on, and parsing
 * them here (dates, arrays) for every row of a 100,000-row backlog was
 * allocation for nothing.
 */
const CLAIMED = ["id", "status", "remote_id", "chargeback_id"] as const

/** Which rows a claim takes (due ones at `now`, or `ids`), how many, and until when it holds them. */
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

/**
 * Set-based reads and writes of proof requests and of the verdicts they bring
 * to their scans' evidence: the poll job's hot path, where row-by-row ORM
 * updates made a 10,000-request run several times slower. What the rows
 * become is decided by lifecycle/proof-request.ts; this class only locks,
 * reads and writes them, in the caller's transaction.
 */
export class ProofRequestSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * Reads and row-locks proof requests for the rest of the transaction.
   * `skipLocked`: rows another transaction holds are left out instead of waited
   * for (two senders never take the same row).
   */
  async lock(ids: readonly string[], options: { skipLocked?: boolean }, context: Context): Promise<ProofRequestRow[]> {
    if (!ids.length) {
      return []
    }
    const rows: ProofRequestRow[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT ${SELECT_ROW} FROM ${table}
        WHERE ${col.id} IN (?) AND ${col.deleted_at} IS NULL
        ORDER BY ${col.id}
        FOR UPDATE${options.skipLocked ? " SKIP LOCKED" : ""}`,
      [ids]
    )
    // The driver returns dates as Date and arrays as arrays; a null array column reads as empty.
    return rows.map((row) => ({ ...row, other_remote_ids: row.other_remote_ids ?? [], scan_ids: row.scan_ids ?? [] }))
  }

  /** Writes whole rows (every mutable column) in one statement. */
  async write(rows: readonly ProofRequestRow[], context: Context): Promise<void> {
    if (!rows.length) {
      return
    }
    const record = MUTABLE.map((name) => `${col[name]} ${RECORD_TYPES[name]}`).join(", ")
    const assignments = MUTABLE.map((name) => `${col[name]} = v.${col[name]}`).join(", ")
    const values = rows.map((row) => Object.fromEntries([["id", row.id], ...MUTABLE.map((name) => [name, row[name]])]))
    await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${table} AS p SET ${assignments}, ${col.updated_at} = now()
         FROM jsonb_to_recordset(?::jsonb) AS v(${col.id} text, ${record})
        WHERE p.${col.id} = v.${col.id}`,
      [JSON.stringify(values)]
    )
  }

  /**
   * Claims rows for a run: due ones (`next_poll_at <= now`, in a status the
   * job works on), or the given ids whatever their schedule ("check now").
   * Claiming pushes `next_poll_at` to `leaseUntil` in one statement with
   * `FOR UPDATE SKIP LOCKED`, so two instances polling at once never take the
   * same rows, and rows of a run that dies come back when the lease runs out.
   */
  async claim(input: ClaimInput, context: Context): Promise<ClaimedProofRequest[]> {
    const { sql, bindings } = claimStatement(input)
    return await this.getActiveManager<SqlEntityManager>(context).execute(sql, bindings)
  }

  /** Proof requests by status, and the last status check of each status. */
  async countByStatus(context: Context): Promise<{ status: ProofRequestStatus; count: string; last_polled_at: Date | null }[]> {
    return await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT ${col.status} AS "status", count(*) AS "count", max(${col.last_polled_at}) AS "last_polled_at"
         FROM ${table} WHERE ${col.deleted_at} IS NULL GROUP BY ${col.status}`
    )
  }

  /** The evidence rows of these proof requests, as a completed status check fills them in. */
  async listEvidence(
    proofRequestIds: readonly string[],
    context: Context
  ): Promise<(EvidenceSnapshot & { scan_id: string; proof_request_id: string })[]> {
    if (!proofRequestIds.length) {
      return []
    }
    return await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT ${E.col.id}, ${E.col.scan_id}, ${E.col.proof_request_id}, ${E.col.ground_truth},
              ${E.col.reported_ground_truth}, ${E.col.image_url}
         FROM ${E.table} WHERE ${E.col.proof_request_id} IN (?) AND ${E.col.deleted_at} IS NULL`,
      [proofRequestIds]
    )
  }

  /** Writes verdicts on evidence rows (or puts back earlier ones), in one statement. */
  async writeEvidence(rows: readonly EvidenceSnapshot[], context: Context): Promise<void> {
    if (!rows.length) {
      return
    }
    await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${E.table} AS e
          SET ${E.col.ground_truth} = v."ground_truth", ${E.col.reported_ground_truth} = v."reported_ground_truth",
              ${E.col.image_url} = v."image_url", ${E.col.updated_at} = now()
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "ground_truth" text, "reported_ground_truth" text, "image_url" text)
        WHERE e.${E.col.id} = v."id"`,
      [JSON.stringify(rows)]
    )
  }
}
