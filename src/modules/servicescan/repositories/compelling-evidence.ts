import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { Chargeback, CheckoutSignal, DisputeCase, PaymentRef } from "../models"
import { sqlNames } from "./names"

const R = sqlNames(PaymentRef, ["payment_id", "order_id", "processor_transaction_id", "token_fingerprint", "created_at", "deleted_at"])
const S = sqlNames(CheckoutSignal, ["payment_id", "ip_address", "device_id", "customer_id", "created_at", "deleted_at"])
const C = sqlNames(Chargeback, ["order_id", "deleted_at"])
const D = sqlNames(DisputeCase, ["order_id", "deleted_at"])

/** One payment of the store as Visa CE 3.0 compares them: when, on which order, and its checkout's signals. */
export type CardHistoryPayment = {
  payment_id: string
  order_id: string
  /** When the payment was recorded (the order was placed): the transaction's date. */
  created_at: Date
  ip_address: string | null
  device_id: string | null
  /** The signed-in customer who completed the checkout; null for a guest. */
  customer_id: string | null
}

/** An earlier payment on the same card, and whether its order was ever disputed here. */
export type CardHistoryPrior = CardHistoryPayment & { disputed: boolean }

// The payment's checkout signal: the newest when a session was somehow recorded twice.
const SIGNAL_JOIN = `LEFT JOIN LATERAL (
    SELECT s.${S.col.ip_address} AS "ip_address", s.${S.col.device_id} AS "device_id", s.${S.col.customer_id} AS "customer_id"
      FROM ${S.table} s
     WHERE s.${S.col.payment_id} = r.${R.col.payment_id} AND s.${S.col.deleted_at} IS NULL
     ORDER BY s.${S.col.created_at} DESC
     LIMIT 1
  ) sig ON true`

/** The reads behind Visa Compelling Evidence 3.0: a disputed payment and the earlier payments on its card. */
export class CompellingEvidenceSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * The disputed payment of an order, with its card's fingerprint: the one the
   * processor named (`processor_transaction_id`) when it is known, else the
   * order's newest.
   */
  async findDisputedPayment(
    input: { order_id: string; processor_transaction_id: string | null },
    context: Context
  ): Promise<(CardHistoryPayment & { token_fingerprint: string | null }) | null> {
    const rows: (CardHistoryPayment & { token_fingerprint: string | null })[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT r.${R.col.payment_id} AS "payment_id", r.${R.col.order_id} AS "order_id", r.${R.col.created_at} AS "created_at",
              r.${R.col.token_fingerprint} AS "token_fingerprint", sig."ip_address", sig."device_id", sig."customer_id"
         FROM ${R.table} r
         ${SIGNAL_JOIN}
        WHERE r.${R.col.order_id} = ? AND r.${R.col.deleted_at} IS NULL
        ORDER BY (r.${R.col.processor_transaction_id} = ?) DESC NULLS LAST, r.${R.col.created_at} DESC
        LIMIT 1`,
      [input.order_id, input.processor_transaction_id ?? ""]
    )
    return rows[0] ? { ...rows[0], created_at: new Date(rows[0].created_at) } : null
  }

  /**
   * The payments made with the same card (token fingerprint) from `from` up to
   * `before`, of other orders, newest first, at most `limit`; each with its
   * checkout's signals and whether a chargeback or a processor case was ever
   * recorded on its order. One indexed read (the fingerprint's partial index).
   */
  async listPriorPayments(
    input: { fingerprint: string; exclude_order_id: string; from: Date; before: Date; limit: number },
    context: Context
  ): Promise<CardHistoryPrior[]> {
    const rows: CardHistoryPrior[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT r.${R.col.payment_id} AS "payment_id", r.${R.col.order_id} AS "order_id", r.${R.col.created_at} AS "created_at",
              sig."ip_address", sig."device_id", sig."customer_id",
              (EXISTS (SELECT 1 FROM ${C.table} c WHERE c.${C.col.order_id} = r.${R.col.order_id} AND c.${C.col.deleted_at} IS NULL)
               OR EXISTS (SELECT 1 FROM ${D.table} d WHERE d.${D.col.order_id} = r.${R.col.order_id} AND d.${D.col.deleted_at} IS NULL)) AS "disputed"
         FROM ${R.table} r
         ${SIGNAL_JOIN}
        WHERE r.${R.col.token_fingerprint} = ? AND r.${R.col.deleted_at} IS NULL AND r.${R.col.order_id} <> ?
          AND r.${R.col.created_at} >= ? AND r.${R.col.created_at} < ?
        ORDER BY r.${R.col.created_at} DESC
        LIMIT ?`,
      [input.fingerprint, input.exclude_order_id, input.from, input.before, input.limit]
    )
    return rows.map((row) => ({ ...row, created_at: new Date(row.created_at), disputed: Boolean(row.disputed) }))
  }
}
