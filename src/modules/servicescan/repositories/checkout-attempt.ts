import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { generateEntityId, MikroOrmBase } from "@medusajs/framework/utils"
import { CheckoutAttempt } from "../models"
import type { CheckoutAttemptClaim, CheckoutAttemptInput } from "../types"
import { sqlNames } from "./names"

const A = sqlNames(CheckoutAttempt, [
  "id",
  "payment_session_id",
  "cart_id",
  "form_id",
  "payment_method_id",
  "request_id",
  "attempted_at",
  "reconciled_at",
  "deleted_at",
  "updated_at",
])

/**
 * The checkout's claim on a hosted form id (see the CheckoutAttempt model).
 * It lives in the disputes module because the table does: Medusa gives a
 * payment provider no tables of its own.
 */
export class CheckoutAttemptSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * In one statement: when no other session's attempt carried the form id (or
   * `force`), records this session's attempt (a first record, or this
   * session's again: `attempted_at` moves and it reopens for reconciliation);
   * otherwise records nothing. Answers the other sessions, whether it
   * recorded, and this session's record as it was before.
   */
  async claim(
    input: CheckoutAttemptInput & { form_id: string | null; force: boolean; now: Date },
    context: Context
  ): Promise<CheckoutAttemptClaim> {
    // The reads see the table as it was when the statement began: `previous` is the record before the write.
    const [row]: { others: string[]; previous: { id: string; attempted_at: string; reconciled_at: string | null } | null; recorded: boolean }[] =
      await this.getActiveManager<SqlEntityManager>(context).execute(
        `WITH others AS (
           SELECT ${A.col.payment_session_id} AS "id" FROM ${A.table}
            WHERE ${A.col.form_id} = ?::text AND ${A.col.payment_session_id} <> ? AND ${A.col.deleted_at} IS NULL
         ), previous AS (
           SELECT ${A.col.id} AS "id", ${A.col.attempted_at} AS "attempted_at", ${A.col.reconciled_at} AS "reconciled_at"
             FROM ${A.table} WHERE ${A.col.payment_session_id} = ? AND ${A.col.deleted_at} IS NULL
         ), written AS (
           INSERT INTO ${A.table} (${A.col.id}, ${A.col.payment_session_id}, ${A.col.cart_id}, ${A.col.form_id},
                                   ${A.col.payment_method_id}, ${A.col.request_id}, ${A.col.attempted_at}, ${A.col.reconciled_at})
           SELECT ?, ?, ?, ?::text, ?, ?, ?, NULL WHERE ?::boolean OR NOT EXISTS (SELECT 1 FROM others)
           ON CONFLICT (${A.col.payment_session_id}) WHERE ${A.col.deleted_at} IS NULL
           DO UPDATE SET ${A.col.cart_id} = EXCLUDED.${A.col.cart_id}, ${A.col.form_id} = EXCLUDED.${A.col.form_id},
                         ${A.col.payment_method_id} = EXCLUDED.${A.col.payment_method_id},
                         ${A.col.request_id} = EXCLUDED.${A.col.request_id},
                         ${A.col.attempted_at} = EXCLUDED.${A.col.attempted_at}, ${A.col.reconciled_at} = NULL,
                         ${A.col.updated_at} = now()
           RETURNING 1
         )
         SELECT coalesce((SELECT json_agg("id") FROM others), '[]'::json) AS "others",
                (SELECT row_to_json(previous) FROM previous) AS "previous",
                EXISTS (SELECT 1 FROM written) AS "recorded"`,
        [
          input.form_id,
          input.payment_session_id,
          input.payment_session_id,
          generateEntityId(undefined, "scatt"),
          input.payment_session_id,
          input.cart_id,
          input.form_id,
          input.payment_method_id ?? null,
          input.request_id,
          input.now,
          input.force,
        ]
      )
    return {
      other_sessions: row.others,
      recorded: row.recorded,
      previous: row.previous
        ? {
            id: row.previous.id,
            attempted_at: new Date(row.previous.attempted_at),
            reconciled_at: row.previous.reconciled_at ? new Date(row.previous.reconciled_at) : null,
          }
        : null,
    }
  }
}
