import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import { DisputeCase } from "../models"
import type { DisputeCaseMatch } from "../types"
import { sqlNames } from "./names"

const D = sqlNames(DisputeCase, ["id", "status", "match_note", "order_id", "chargeback_id", "updated_at"])

/** The case import's bulk write of what each case matched. */
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
}
