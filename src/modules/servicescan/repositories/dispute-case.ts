import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { DisputeCase } from "../models"
import type { DisputeCaseMatch, DueSoonCase } from "../types"
import { sqlNames } from "./names"

const D = sqlNames(DisputeCase, [
  "id", "status", "match_note", "order_id", "chargeback_id", "updated_at", "gateway", "case_id", "reply_by",
  "response_status", "awaiting_merchant", "outcome", "due_soon_alerted_at", "deleted_at",
])

/** The case import's bulk write of what each case matched; the due-soon alert's claim. */
export class DisputeCaseSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * Writes the match of many cases (status, order, note, chargeback) in one
   * statement: the case import writes a page of them at once, and the ORM's
   * update, which loads and flushes each row, took a third of a 10,000-case
   * import. Every field is written as given (the caller passes whole values).
   */
  async writeMatches(matches: readonly DisputeCaseMatch[], context: Context): Promise<void> {
    if (!matches.length) {
      return
    }
    await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${D.table} AS d
          SET ${D.col.status} = v."status", ${D.col.match_note} = v."match_note", ${D.col.order_id} = v."order_id",
              ${D.col.chargeback_id} = v."chargeback_id", ${D.col.updated_at} = now()
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "status" text, "match_note" text, "order_id" text, "chargeback_id" text)
        WHERE d.${D.col.id} = v."id"`,
      [JSON.stringify(matches)]
    )
  }

  /**
   * Marks up to `limit` cases as announced due soon and answers them: cases
   * still waiting for our answer (in the merchant's queue, none sent, not
   * decided) whose reply-by day is from `today` to `until`, never announced.
   * One statement, rows locked and skipped when another run holds them, so
   * two runs (two processes) never announce the same case.
   */
  async claimDueSoon(input: { today: string; until: string; at: Date; limit: number }, context: Context): Promise<DueSoonCase[]> {
    return await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${D.table} AS d SET ${D.col.due_soon_alerted_at} = ?, ${D.col.updated_at} = now()
        WHERE d.${D.col.id} IN (
          SELECT ${D.col.id} FROM ${D.table}
           WHERE ${D.col.due_soon_alerted_at} IS NULL AND ${D.col.deleted_at} IS NULL
             AND ${D.col.awaiting_merchant} AND ${D.col.response_status} = 'none' AND ${D.col.outcome} IS NULL
             AND ${D.col.reply_by} >= ? AND ${D.col.reply_by} <= ?
           ORDER BY ${D.col.reply_by}, ${D.col.id}
           LIMIT ?
           FOR UPDATE SKIP LOCKED)
        RETURNING d.${D.col.id} AS "id", d.${D.col.case_id} AS "case_id", d.${D.col.gateway} AS "gateway",
                  d.${D.col.order_id} AS "order_id", d.${D.col.chargeback_id} AS "chargeback_id", d.${D.col.reply_by} AS "reply_by"`,
      [input.at, input.today, input.until, input.limit]
    )
  }

  /** Undoes a claim of `claimDueSoon` (the rows it marked at `at`), so the next run announces them. */
  async releaseDueSoon(ids: readonly string[], at: Date, context: Context): Promise<void> {
    if (!ids.length) {
      return
    }
    await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${D.table} SET ${D.col.due_soon_alerted_at} = NULL
        WHERE ${D.col.id} IN (?) AND ${D.col.due_soon_alerted_at} = ?`,
      [ids, at]
    )
  }
}
