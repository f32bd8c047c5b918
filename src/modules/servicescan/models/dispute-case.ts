import { model } from "@medusajs/framework/utils"
import { DISPUTE_CASE_OUTCOMES, DISPUTE_CASE_STATUSES, DISPUTE_RESPONSE_STATUSES } from "../types"
import { Chargeback } from "./chargeback"

/** The prefix of its ids (rows inserted in bulk get theirs from `newEntityId`). */
export const DISPUTE_CASE_ID_PREFIX = "sscase"

/**
 * A chargeback case as the processor publishes it (Worldpay's eComm
 * Chargeback API), imported by the case job. A case whose payment is found is
 * `matched` and owns a chargeback (the order's evidence); one that matches no
 * payment is kept as `unmatched`, with its data, for an admin to assign.
 * Our answer to the case (the evidence document, represent or accept) is
 * tracked here too: lifecycle/dispute-case.ts decides its moves.
 */
export const DisputeCase = model
  .define(
    { name: "dispute_case", tableName: "servicescan_dispute_case" },
    {
      id: model.id({ prefix: DISPUTE_CASE_ID_PREFIX }).primaryKey(),
      /** The dispute gateway's name, e.g. `worldpay`. */
      gateway: model.text(),
      case_id: model.text(),
      status: model.enum([...DISPUTE_CASE_STATUSES]).default("unmatched"),
      /** Why it is unmatched, in an admin's words. */
      match_note: model.text().nullable(),
      /** The chargeback (and so the order's evidence) a matched case owns. */
      chargeback: model.belongsTo(() => Chargeback, { mappedBy: "dispute_case" }).nullable(),
      order_id: model.text().nullable(),
      /** In the currency's major unit, like every Medusa amount. */
      amount: model.bigNumber(),
      currency_code: model.text(),
      cycle: model.text().nullable(),
      reason_code: model.text().nullable(),
      reason_description: model.text().nullable(),
      /** Whose move it is, in the processor's words (Worldpay: Merchant, Vantiv, Merchant Assumed, …). */
      queue: model.text().nullable(),
      /** The processor waits for the merchant's answer (documents and represent/accept are taken). */
      awaiting_merchant: model.boolean().default(false),
      /** `YYYY-MM-DD`: the last day to answer. */
      reply_by: model.text().nullable(),
      issued_on: model.text().nullable(),
      /** The processor's id of the disputed transaction, and the merchant order reference it carried. */
      processor_transaction_id: model.text().nullable(),
      processor_order_id: model.text().nullable(),
      card_last4: model.text().nullable(),
      card_type: model.text().nullable(),
      acquirer_reference_number: model.text().nullable(),
      /** The processor's activities, newest first, as last read. */
      activities: model.json().default({ items: [] }),
      /** The newest activity day seen. */
      last_activity_on: model.text().nullable(),
      response_status: model.enum([...DISPUTE_RESPONSE_STATUSES]).default("none"),
      /**
       * The evidence pack (a PDF, sealed in Medusa's File Module under a name that says nothing), its
       * size, and whether images were reduced to fit. `pack_key` is the file's own key, wrapped under the
       * module's `evidenceKey` (src/lib/sealed-evidence.ts): never returned by any route. Null beside a
       * `pack_file_id` only for a pack an earlier version stored in clear (the migration seals it).
       */
      pack_file_id: model.text().nullable(),
      pack_key: model.text().nullable(),
      pack_bytes: model.number().nullable(),
      pack_generated_at: model.dateTime().nullable(),
      pack_downscaled: model.boolean().default(false),
      /** The evidence document's id on the case (derived from the case: a re-upload replaces). */
      document_id: model.text().nullable(),
      document_uploaded_at: model.dateTime().nullable(),
      represented_at: model.dateTime().nullable(),
      liability_accepted_at: model.dateTime().nullable(),
      /** The last failure of our answer, for an admin. */
      response_error: model.text().nullable(),
      outcome: model.enum([...DISPUTE_CASE_OUTCOMES]).nullable(),
      /** When `servicescan.case.due_soon` was emitted for the case: once per case, ever (jobs/alert-servicescan-due-cases.ts). */
      due_soon_alerted_at: model.dateTime().nullable(),
    }
  )
  .indexes([
    { name: "IDX_servicescan_dispute_case_gateway_case_unique", on: ["gateway", "case_id"], unique: true },
    { name: "IDX_servicescan_dispute_case_status", on: ["status"] },
  ])
