import type { Context } from "@medusajs/framework/types"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { MikroOrmBase } from "@medusajs/framework/utils"
import type { PushedEvent } from "../../../processors/types"
import { ProcessorEvent } from "../models"
import { PROCESSOR_EVENT_ID_PREFIX } from "../models/processor-event"
import { newEntityId } from "./entity-id"
import { sqlNames } from "./names"

const R = sqlNames(ProcessorEvent, ["id", "gateway", "event_key", "kind", "case_id", "occurred_at", "data", "processed_at", "deleted_at"])

/** The write of a webhook's events: each stored once. */
export class ProcessorEventSqlRepository extends MikroOrmBase {
  constructor(dependencies: { manager: unknown }) {
    super(dependencies)
  }

  /**
   * Inserts the events not stored yet, in one statement (an event already
   * stored, by (gateway, event_key), is left as it is: a retry or a replay),
   * and answers the ids of the rows inserted.
   */
  async insertNew(gateway: string, events: readonly PushedEvent[], context: Context): Promise<string[]> {
    if (!events.length) {
      return []
    }
    const rows: { id: string }[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `INSERT INTO ${R.table} (${R.col.id}, ${R.col.gateway}, ${R.col.event_key}, ${R.col.kind}, ${R.col.case_id}, ${R.col.occurred_at}, ${R.col.data})
       SELECT v."id", v."gateway", v."event_key", v."kind", v."case_id", v."occurred_at", v."data"
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "gateway" text, "event_key" text, "kind" text, "case_id" text,
                                               "occurred_at" timestamptz, "data" jsonb)
       ON CONFLICT (${R.col.gateway}, ${R.col.event_key}) WHERE ${R.col.deleted_at} IS NULL DO NOTHING
       RETURNING ${R.col.id} AS "id"`,
      [
        JSON.stringify(
          events.map((event) => ({
            id: newEntityId(PROCESSOR_EVENT_ID_PREFIX),
            gateway,
            event_key: event.key,
            kind: event.kind,
            case_id: event.caseId ?? null,
            occurred_at: event.occurredAt,
            // The operation's outcome as the processor's code read it, beside the event as received.
            data: { event: event.data, operation: event.operation ?? null },
          }))
        ),
      ]
    )
    return rows.map((row) => row.id)
  }

  /**
   * Deletes a gateway's events that nothing reads again, dated before
   * `before`: events the plugin does not act on (Adyen sends one for every
   * payment, so they are the table's bulk) and operations already applied.
   * A case's events stay: they are folded together whenever the case's next
   * event arrives, however late. Answers how many rows went.
   */
  async purgeSettled(gateway: string, before: Date, context: Context): Promise<number> {
    const rows: unknown[] = await this.getActiveManager<SqlEntityManager>(context).execute(
      `DELETE FROM ${R.table}
        WHERE ${R.col.gateway} = ? AND ${R.col.occurred_at} < ?
          AND (${R.col.kind} = 'ignored' OR (${R.col.kind} = 'operation' AND ${R.col.processed_at} IS NOT NULL))
       RETURNING ${R.col.id}`,
      [gateway, before]
    )
    return rows.length
  }
}
