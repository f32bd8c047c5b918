import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { generateEntityId, MikroOrmBase } from "@medusajs/framework/utils"
import { CHECKOUT_SIGNAL_ID_PREFIX, CheckoutSignal } from "../models/checkout-signal"
import type { CheckoutSignalInput, CheckoutSignalPayment } from "../types"
import { sqlNames } from "./names"

const S = sqlNames(CheckoutSignal, [
  "id",
  "payment_session_id",
  "cart_id",
  "payment_id",
  "customer_id",
  "ip_address",
  "user_agent",
  "device_id",
  "created_at",
  "updated_at",
  "deleted_at",
])

/** The statements of the checkout signals (see the CheckoutSignal model and docs/privacy.md). */
export class CheckoutSignalSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * Records a completion's signals in one statement: a session's first
   * completion inserts its row; a retried completion of the same session
   * updates that row (the shopper's latest request), so a session has one row
   * whatever the retries. Answers the row's id and whether it was new.
   */
  async record(input: CheckoutSignalInput, context: Context): Promise<{ id: string; inserted: boolean }> {
    // `xmax = 0` only for a row this statement inserted (an updated row carries the updating transaction).
    const [row]: { id: string; inserted: boolean }[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `INSERT INTO ${S.table} (${S.col.id}, ${S.col.payment_session_id}, ${S.col.cart_id}, ${S.col.customer_id},
                               ${S.col.ip_address}, ${S.col.user_agent}, ${S.col.device_id})
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (${S.col.payment_session_id}) WHERE ${S.col.deleted_at} IS NULL
       DO UPDATE SET ${S.col.cart_id} = EXCLUDED.${S.col.cart_id}, ${S.col.customer_id} = EXCLUDED.${S.col.customer_id},
                     ${S.col.ip_address} = EXCLUDED.${S.col.ip_address}, ${S.col.user_agent} = EXCLUDED.${S.col.user_agent},
                     ${S.col.device_id} = EXCLUDED.${S.col.device_id}, ${S.col.updated_at} = now()
       RETURNING ${S.col.id} AS "id", (xmax = 0) AS "inserted"`,
      [
        generateEntityId(undefined, CHECKOUT_SIGNAL_ID_PREFIX),
        input.payment_session_id,
        input.cart_id,
        input.customer_id,
        input.ip_address,
        input.user_agent,
        input.device_id,
      ]
    )
    return { id: row.id, inserted: row.inserted }
  }

  /**
   * Fills in the payment of the signals of these sessions, where it is still
   * empty, in one statement. Answers the ids of the rows it filled.
   */
  async linkPayments(payments: CheckoutSignalPayment[], context: Context): Promise<string[]> {
    if (!payments.length) {
      return []
    }
    const rows: { id: string }[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${S.table} AS s SET ${S.col.payment_id} = p."payment_id", ${S.col.updated_at} = now()
         FROM jsonb_to_recordset(?::jsonb) AS p("payment_session_id" text, "payment_id" text)
        WHERE s.${S.col.payment_session_id} = p."payment_session_id" AND s.${S.col.payment_id} IS NULL
          AND s.${S.col.deleted_at} IS NULL
       RETURNING s.${S.col.id} AS "id"`,
      // Knex spreads an array binding into a list: the pairs travel as one JSON value.
      [JSON.stringify(payments.map(({ payment_session_id, payment_id }) => ({ payment_session_id, payment_id })))]
    )
    return rows.map((row) => row.id)
  }

  /** Empties the payment of these rows again (the undo of {@link linkPayments}). */
  async unlinkPayments(ids: string[], context: Context): Promise<void> {
    if (!ids.length) {
      return
    }
    await this.getActiveManager<SqlEntityManager>(context).execute(
      `UPDATE ${S.table} SET ${S.col.payment_id} = NULL, ${S.col.updated_at} = now() WHERE ${S.col.id} IN (?)`,
      [ids]
    )
  }

  /**
   * Hard-deletes up to `limit` signals created before `before`, oldest first,
   * through the `created_at` index (the module never soft-deletes a signal, and
   * the index covers live rows). Rows another run is deleting are skipped, so
   * two instances' runs never wait on each other. Answers how many went.
   */
  async purgeCreatedBefore(before: Date, limit: number, context: Context): Promise<number> {
    const rows: { n: number }[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `WITH gone AS (
         DELETE FROM ${S.table} WHERE ${S.col.id} IN (
           SELECT ${S.col.id} FROM ${S.table}
            WHERE ${S.col.created_at} < ? AND ${S.col.deleted_at} IS NULL
            ORDER BY ${S.col.created_at} LIMIT ? FOR UPDATE SKIP LOCKED)
         RETURNING 1)
       SELECT count(*)::int AS "n" FROM gone`,
      [before, limit]
    )
    return rows[0]?.n ?? 0
  }
}
