import { createHash } from "node:crypto"
import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { FormBinding } from "../models"
import { FORM_BINDING_ID_PREFIX } from "../models/form-binding"
import type { FormCheckout } from "../types"
import { newEntityId } from "./entity-id"
import { sqlNames } from "./names"

const { table, col } = sqlNames(FormBinding, [
  "id",
  "form_hash",
  "payment_collection_id",
  "customer_id",
  "created_at",
  "updated_at",
  "deleted_at",
])

/** SHA-256 (hex) of the lower-cased form id: what the binding keeps instead of the id. */
function formIdHash(formId: string): string {
  return createHash("sha256").update(`servicescan form:${formId.toLowerCase()}`, "utf8").digest("hex")
}

/**
 * Reads and writes of form bindings (see the FormBinding model): which checkout
 * a hosted-form id was first sent into. Only hashes of form ids reach the table.
 * It lives in the disputes module because the table does: Medusa gives a
 * payment provider no tables of its own.
 */
export class FormBindingSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * Binds the form id to `checkout` unless it is bound already, in one
   * statement, and answers the checkout it belongs to (this one when it was
   * free). Two first presentations at the same moment: the unique index lets
   * one insert; the other's statement saw neither row in its snapshot, and is
   * read again once the winner's row is visible.
   */
  async bind(formId: string, checkout: FormCheckout, context: Context): Promise<FormCheckout> {
    const hash = formIdHash(formId)
    const manager = this.getActiveManager<SqlEntityManager>(context)
    for (let attempt = 0; attempt < 3; attempt++) {
      const rows: FormCheckout[] = await manager.execute(
        `WITH written AS (
           INSERT INTO ${table} (${col.id}, ${col.form_hash}, ${col.payment_collection_id}, ${col.customer_id}, ${col.created_at}, ${col.updated_at})
           VALUES (?, ?, ?, ?, now(), now())
           ON CONFLICT (${col.form_hash}) WHERE ${col.deleted_at} IS NULL DO NOTHING
           RETURNING ${col.payment_collection_id} AS "payment_collection_id", ${col.customer_id} AS "customer_id"
         )
         SELECT * FROM written
         UNION ALL
         SELECT ${col.payment_collection_id}, ${col.customer_id} FROM ${table}
          WHERE ${col.form_hash} = ? AND ${col.deleted_at} IS NULL
         LIMIT 1`,
        [newEntityId(FORM_BINDING_ID_PREFIX), hash, checkout.payment_collection_id, checkout.customer_id, hash]
      )
      if (rows[0]) {
        return { payment_collection_id: rows[0].payment_collection_id, customer_id: rows[0].customer_id ?? null }
      }
    }
    throw new Error("the form binding could neither be written nor read")
  }

  /** The checkouts these form ids are bound to, by form id (lower-cased); a form id never bound is absent. */
  async read(formIds: readonly string[], context: Context): Promise<Map<string, FormCheckout>> {
    const byHash = new Map(formIds.map((formId) => [formIdHash(formId), formId.toLowerCase()]))
    if (!byHash.size) {
      return new Map()
    }
    const rows: (FormCheckout & { form_hash: string })[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `SELECT ${col.form_hash} AS "form_hash", ${col.payment_collection_id} AS "payment_collection_id", ${col.customer_id} AS "customer_id"
         FROM ${table} WHERE ${col.form_hash} IN (?) AND ${col.deleted_at} IS NULL`,
      [[...byHash.keys()]]
    )
    const found = new Map<string, FormCheckout>()
    for (const row of rows) {
      const formId = byHash.get(row.form_hash)
      if (formId) {
        found.set(formId, { payment_collection_id: row.payment_collection_id, customer_id: row.customer_id ?? null })
      }
    }
    return found
  }
}
