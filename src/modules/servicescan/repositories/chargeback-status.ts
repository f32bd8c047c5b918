import type { Context, InferTypeOf } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { OPEN_STATUSES } from "../lifecycle/proof-request"
import { Chargeback, ScanEvidence } from "../models"
import type { ChargebackStatusChange } from "../types"
import { sqlNames } from "./names"
import { PROOF_REQUEST as P } from "./proof-request"

const C = sqlNames(Chargeback, ["id", "status", "order_id", "external_id", "deleted_at", "updated_at"])
const E = sqlNames(ScanEvidence, ["proof_request_id", "ground_truth", "deleted_at"])

/** A chargeback and what its proof requests say (one aggregate read computes it for a whole list). */
export type ChargebackEvidenceRow = Pick<InferTypeOf<typeof Chargeback>, "id" | "status" | "order_id" | "external_id"> & {
  has_valid_scan: boolean
  has_in_flight: boolean
}

/**
 * The reads and the guarded write behind a chargeback's status, which its
 * proof requests decide (lifecycle/chargeback-status.ts): one aggregate read
 * and one write for a whole list of chargebacks.
 */
export class ChargebackStatusSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /** Each chargeback with whether a scan was judged valid and whether a proof request is still open. */
  async listWithEvidence(chargebackIds: readonly string[], context: Context): Promise<ChargebackEvidenceRow[]> {
    return await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT c.${C.col.id} AS "id", c.${C.col.status} AS "status", c.${C.col.order_id} AS "order_id",
              c.${C.col.external_id} AS "external_id",
              coalesce(bool_or(pr.${P.col.status} = 'complete' AND e.${E.col.ground_truth} = 'valid'), false) AS "has_valid_scan",
              coalesce(bool_or(pr.${P.col.status} IN (?)), false) AS "has_in_flight"
         FROM ${C.table} c
         LEFT JOIN ${P.table} pr ON pr.${P.col.chargeback_id} = c.${C.col.id} AND pr.${P.col.deleted_at} IS NULL
         LEFT JOIN ${E.table} e ON e.${E.col.proof_request_id} = pr.${P.col.id} AND e.${E.col.deleted_at} IS NULL
        WHERE c.${C.col.id} IN (?) AND c.${C.col.deleted_at} IS NULL
        GROUP BY c.${C.col.id}`,
      [OPEN_STATUSES, chargebackIds]
    )
  }

  /** Per chargeback with proof requests: a valid scan, an open proof request, and how many scans were judged and judged invalid. */
  async countVerdicts(
    chargebackIds: readonly string[],
    context: Context
  ): Promise<{ id: string; has_valid_scan: boolean; has_in_flight: boolean; judged: string; invalid: string }[]> {
    return await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT pr.${P.col.chargeback_id} AS "id",
              coalesce(bool_or(pr.${P.col.status} = 'complete' AND e.${E.col.ground_truth} = 'valid'), false) AS "has_valid_scan",
              coalesce(bool_or(pr.${P.col.status} IN (?)), false) AS "has_in_flight",
              count(e.${E.col.ground_truth}) AS "judged",
              count(*) FILTER (WHERE e.${E.col.ground_truth} = 'invalid') AS "invalid"
         FROM ${P.table} pr
         LEFT JOIN ${E.table} e ON e.${E.col.proof_request_id} = pr.${P.col.id} AND e.${E.col.deleted_at} IS NULL
        WHERE pr.${P.col.chargeback_id} IN (?) AND pr.${P.col.deleted_at} IS NULL
        GROUP BY pr.${P.col.chargeback_id}`,
      [OPEN_STATUSES, chargebackIds]
    )
  }

  /**
   * Applies status changes to rows still in their `from` status, and answers
   * the ids changed: a row changed meanwhile (an admin set the outcome) is
   * left alone.
   */
  async writeStatuses(changes: readonly ChargebackStatusChange[], context: Context): Promise<Set<string>> {
    if (!changes.length) {
      return new Set()
    }
    const updated: { id: string }[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${C.table} AS c SET ${C.col.status} = v."to", ${C.col.updated_at} = now()
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "from" text, "to" text)
        WHERE c.${C.col.id} = v."id" AND c.${C.col.status} = v."from"
        RETURNING c.${C.col.id} AS "id"`,
      [JSON.stringify(changes.map(({ id, from, to }) => ({ id, from, to })))]
    )
    return new Set(updated.map((row) => row.id))
  }
}
