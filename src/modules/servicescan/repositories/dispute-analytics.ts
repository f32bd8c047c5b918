import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { Chargeback, DisputeCase, PaymentRef, ScanEvidence } from "../models"
import { CHARGEBACK_OUTCOMES as FINAL_CHARGEBACK_STATUSES } from "../types"
import { sqlNames } from "./names"
import { PROOF_REQUEST as P } from "./proof-request"

const C = sqlNames(Chargeback, ["id", "status", "amount", "currency_code", "due_by", "created_at", "deleted_at"])
const D = sqlNames(DisputeCase, ["chargeback_id", "issued_on", "reply_by", "deleted_at"])
const R = sqlNames(PaymentRef, ["order_id", "scan_id", "deleted_at"])
const E = sqlNames(ScanEvidence, ["proof_request_id", "scan_id", "ground_truth", "deleted_at"])

/**
 * Medusa's order table (the Order Module's `order`), read for the currency and
 * the placing date of the orders this plugin's providers were paid for: the
 * one table of another module the plugin's SQL reads, read-only. Its
 * `payment_ref` rows name the orders; nothing else about an order is kept here.
 */
const ORDER = { table: `"order"`, col: { id: `"id"`, currency_code: `"currency_code"`, created_at: `"created_at"`, deleted_at: `"deleted_at"` } }

/** One month's chargeback figures, as Postgres counts and sums them (money as exact decimal text). */
export type ChargebackMonthRow = {
  month: string
  chargebacks: number
  won: number
  lost: number
  closed: number
  pending: number
  recovered: string
  lost_amount: string
  at_stake: string
  due_soon: number
  scans_valid: number
  scans_invalid: number
  scans_unjudged: number
}

/** One month's orders paid through this plugin's providers, and how many carried a scan id. */
export type OrderMonthRow = { month: string; orders: number; orders_with_scan: number }

/**
 * The dispute analytics' two statements: chargebacks by the month of their
 * case (or of their recording), and this plugin's orders by the month they
 * were placed, in one currency. Sums are Postgres `numeric`, answered as text,
 * so no amount passes through a float.
 */
export class DisputeAnalyticsSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * Chargebacks in `currency` whose month is in [from, to]: the processor's
   * case issue day when the chargeback has a case that carries one, else the
   * day it was recorded (UTC). `today` (YYYY-MM-DD, UTC) and `dueUntil` bound
   * the reply-by days counted as due soon.
   */
  async chargebacksByMonth(
    input: { currency: string; from: string; to: string; today: string; dueUntil: string },
    context: Context
  ): Promise<ChargebackMonthRow[]> {
    const rows: Record<keyof ChargebackMonthRow, string | number>[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `WITH cb AS (
         SELECT c.${C.col.id} AS id, c.${C.col.status} AS status, c.${C.col.amount} AS amount,
                CASE WHEN d.${D.col.issued_on} ~ '^[0-9]{4}-[0-9]{2}'
                     THEN substr(d.${D.col.issued_on}, 1, 7)
                     ELSE to_char(c.${C.col.created_at} AT TIME ZONE 'UTC', 'YYYY-MM') END AS month,
                CASE WHEN d.${D.col.reply_by} ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$'
                     THEN d.${D.col.reply_by}
                     ELSE to_char(c.${C.col.due_by} AT TIME ZONE 'UTC', 'YYYY-MM-DD') END AS due_day,
                c.${C.col.status} NOT IN (?) AS pending
           FROM ${C.table} c
           LEFT JOIN ${D.table} d ON d.${D.col.chargeback_id} = c.${C.col.id} AND d.${D.col.deleted_at} IS NULL
          WHERE c.${C.col.deleted_at} IS NULL AND lower(c.${C.col.currency_code}) = ?
       ),
       -- One verdict per scan of a chargeback: a scan asked about again (a resubmission) counts once,
       -- valid if any answer said valid.
       scan_verdicts AS (
         SELECT pr.${P.col.chargeback_id} AS chargeback_id, e.${E.col.scan_id} AS scan_id,
                CASE WHEN bool_or(e.${E.col.ground_truth} = 'valid') THEN 'valid'
                     WHEN bool_or(e.${E.col.ground_truth} = 'invalid') THEN 'invalid' END AS verdict
           FROM ${P.table} pr
           JOIN ${E.table} e ON e.${E.col.proof_request_id} = pr.${P.col.id} AND e.${E.col.deleted_at} IS NULL
          WHERE pr.${P.col.deleted_at} IS NULL AND pr.${P.col.chargeback_id} IN (SELECT id FROM cb WHERE month BETWEEN ? AND ?)
          GROUP BY 1, 2
       ),
       verdicts AS (
         SELECT chargeback_id,
                count(*) FILTER (WHERE verdict = 'valid') AS valid,
                count(*) FILTER (WHERE verdict = 'invalid') AS invalid,
                count(*) FILTER (WHERE verdict IS NULL) AS unjudged
           FROM scan_verdicts
          GROUP BY 1
       )
       SELECT cb.month AS "month",
              count(*)::int AS "chargebacks",
              (count(*) FILTER (WHERE cb.status = 'won'))::int AS "won",
              (count(*) FILTER (WHERE cb.status = 'lost'))::int AS "lost",
              (count(*) FILTER (WHERE cb.status = 'closed'))::int AS "closed",
              (count(*) FILTER (WHERE cb.pending))::int AS "pending",
              (coalesce(sum(cb.amount) FILTER (WHERE cb.status = 'won'), 0))::text AS "recovered",
              (coalesce(sum(cb.amount) FILTER (WHERE cb.status = 'lost'), 0))::text AS "lost_amount",
              (coalesce(sum(cb.amount) FILTER (WHERE cb.pending), 0))::text AS "at_stake",
              (count(*) FILTER (WHERE cb.pending AND cb.due_day BETWEEN ? AND ?))::int AS "due_soon",
              coalesce(sum(v.valid), 0)::int AS "scans_valid",
              coalesce(sum(v.invalid), 0)::int AS "scans_invalid",
              coalesce(sum(v.unjudged), 0)::int AS "scans_unjudged"
         FROM cb
         LEFT JOIN verdicts v ON v.chargeback_id = cb.id
        WHERE cb.month BETWEEN ? AND ?
        GROUP BY cb.month
        ORDER BY cb.month`,
      [[...FINAL_CHARGEBACK_STATUSES], input.currency, input.from, input.to, input.today, input.dueUntil, input.from, input.to]
    )
    return rows.map((row) => ({
      month: String(row.month),
      chargebacks: Number(row.chargebacks),
      won: Number(row.won),
      lost: Number(row.lost),
      closed: Number(row.closed),
      pending: Number(row.pending),
      recovered: String(row.recovered),
      lost_amount: String(row.lost_amount),
      at_stake: String(row.at_stake),
      due_soon: Number(row.due_soon),
      scans_valid: Number(row.scans_valid),
      scans_invalid: Number(row.scans_invalid),
      scans_unjudged: Number(row.scans_unjudged),
    }))
  }

  /**
   * Orders in `currency` placed in [start, end) (UTC) that a payment of this
   * plugin's providers paid (a `payment_ref` names them), by month, and how
   * many of them a payment with a scan id paid.
   */
  async ordersByMonth(input: { currency: string; start: Date; end: Date }, context: Context): Promise<OrderMonthRow[]> {
    const rows: { month: string; orders: number | string; orders_with_scan: number | string }[] =
      await this.getActiveManager<SqlEntityManager>(context).execute(
        `SELECT to_char(o.${ORDER.col.created_at} AT TIME ZONE 'UTC', 'YYYY-MM') AS "month",
                count(*)::int AS "orders",
                (count(*) FILTER (WHERE r.has_scan))::int AS "orders_with_scan"
           FROM (
             SELECT ${R.col.order_id} AS order_id, bool_or(${R.col.scan_id} IS NOT NULL) AS has_scan
               FROM ${R.table}
              WHERE ${R.col.deleted_at} IS NULL
              GROUP BY 1
           ) r
           JOIN ${ORDER.table} o ON o.${ORDER.col.id} = r.order_id AND o.${ORDER.col.deleted_at} IS NULL
          WHERE lower(o.${ORDER.col.currency_code}) = ? AND o.${ORDER.col.created_at} >= ? AND o.${ORDER.col.created_at} < ?
          GROUP BY 1
          ORDER BY 1`,
        [input.currency, input.start, input.end]
      )
    return rows.map((row) => ({ month: row.month, orders: Number(row.orders), orders_with_scan: Number(row.orders_with_scan) }))
  }

  /**
   * The currencies of this store's chargebacks and of the orders this plugin's providers were paid
   * for, the most used first: what the admin's currency picker offers.
   */
  async currencies(context: Context): Promise<string[]> {
    const rows: { currency: string }[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT currency AS "currency" FROM (
         SELECT lower(${C.col.currency_code}) AS currency FROM ${C.table} WHERE ${C.col.deleted_at} IS NULL
         UNION ALL
         SELECT lower(o.${ORDER.col.currency_code})
           FROM ${R.table} r
           JOIN ${ORDER.table} o ON o.${ORDER.col.id} = r.${R.col.order_id} AND o.${ORDER.col.deleted_at} IS NULL
          WHERE r.${R.col.deleted_at} IS NULL
       ) used
        GROUP BY 1
        ORDER BY count(*) DESC, 1`
    )
    return rows.map((row) => row.currency)
  }
}
