import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { PaymentRef } from "../models"
import { PAYMENT_REF_ID_PREFIX } from "../models/payment-ref"
import type { PaymentRefInput } from "../types"
import { newEntityId } from "./entity-id"
import { sqlNames } from "./names"

const R = sqlNames(PaymentRef, [
  "id",
  "payment_id",
  "order_id",
  "processor_transaction_id",
  "processor_order_id",
  "scan_id",
  "token_fingerprint",
  "deleted_at",
])

/** The write of how the processor names the payments of an order being placed. */
export class PaymentRefSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * Inserts the payments not recorded yet, in one statement (a payment
   * already recorded is left as it is), and answers the payment ids inserted.
   */
  async insertMissing(refs: readonly PaymentRefInput[], context: Context): Promise<string[]> {
    if (!refs.length) {
      return []
    }
    const rows: { payment_id: string }[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `INSERT INTO ${R.table} (${R.col.id}, ${R.col.payment_id}, ${R.col.order_id}, ${R.col.processor_transaction_id},
                               ${R.col.processor_order_id}, ${R.col.scan_id}, ${R.col.token_fingerprint})
       SELECT v."id", v."payment_id", v."order_id", v."processor_transaction_id", v."processor_order_id", v."scan_id", v."token_fingerprint"
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "payment_id" text, "order_id" text, "processor_transaction_id" text,
                                               "processor_order_id" text, "scan_id" text, "token_fingerprint" text)
       ON CONFLICT (${R.col.payment_id}) WHERE ${R.col.deleted_at} IS NULL DO NOTHING
       RETURNING ${R.col.payment_id} AS "payment_id"`,
      [
        JSON.stringify(
          refs.map((ref) => ({
            id: newEntityId(PAYMENT_REF_ID_PREFIX),
            payment_id: ref.payment_id,
            order_id: ref.order_id,
            processor_transaction_id: ref.processor_transaction_id,
            processor_order_id: ref.processor_order_id,
            scan_id: ref.scan_id,
            token_fingerprint: ref.token_fingerprint ?? null,
          }))
        ),
      ]
    )
    return rows.map((row) => row.payment_id)
  }
}
