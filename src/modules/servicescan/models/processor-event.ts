import { model } from "@medusajs/framework/utils"

export const PROCESSOR_EVENT_ID_PREFIX = "sspevt"

/**
 * One event a processor pushed by webhook (Adyen's notification items),
 * stored once, before anything acts on it: the unique (gateway, event_key)
 * makes a retry or a replay of the same event create nothing. `event_key` is
 * the processor's own notion of "the same event" (Adyen: event code, PSP
 * reference and success). A case's events are read back together to build
 * its record, whatever order they arrived in. Rows are kept at least as long
 * as the processor may retry (the webhook's `maxAgeMs`), or a replay inside
 * that window would be new again.
 */
export const ProcessorEvent = model
  .define(
    { name: "processor_event", tableName: "servicescan_processor_event" },
    {
      id: model.id({ prefix: PROCESSOR_EVENT_ID_PREFIX }).primaryKey(),
      /** The dispute gateway's name, e.g. `adyen`. */
      gateway: model.text(),
      event_key: model.text(),
      kind: model.enum(["case", "operation", "ignored"]),
      /** The processor's case id, for a case's event. */
      case_id: model.text().nullable(),
      occurred_at: model.dateTime(),
      /** `{ event, operation }`: the event as received, without its signature (read only by its processor's code), and an operation's outcome. */
      data: model.json(),
      /** Set once the event was applied (a case imported, an operation's outcome recorded). */
      processed_at: model.dateTime().nullable(),
      /** Why applying it failed, for an admin; it is tried again with the case's next event. */
      error: model.text().nullable(),
    }
  )
  .indexes([
    { name: "IDX_servicescan_processor_event_key_unique", on: ["gateway", "event_key"], unique: true },
    { name: "IDX_servicescan_processor_event_case", on: ["gateway", "case_id"] },
  ])
