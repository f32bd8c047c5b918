import { model } from "@medusajs/framework/utils"

/**
 * One cart completion through the ServiceScan provider, recorded before the
 * card is authorized. Two questions need it, and neither can be answered from
 * Medusa's own tables:
 * - Was this hosted-form id already spent on another payment? (A form id pays once.
 *   A session with a saved card has no form id: the card pays as often as its
 *   customer wants, and the session, like every session, pays once.)
 * - Did an authorization whose answer was lost, and whose session the shopper
 *   then abandoned, leave a hold on the card? The reconciliation job looks at
 *   attempts whose session never got a payment and has the processor release it.
 */
export const CheckoutAttempt = model
  .define(
    { name: "checkout_attempt", tableName: "servicescan_checkout_attempt" },
    {
      id: model.id({ prefix: "scatt" }).primaryKey(),
      payment_session_id: model.text(),
      cart_id: model.text(),
      /** The hosted form id the session carried, lower-cased; null when it paid with a saved card. */
      form_id: model.text().nullable(),
      /** The saved card the session paid with, when it did. */
      payment_method_id: model.text().nullable(),
      /** The processor request id the authorization is sent under (derived from the session). */
      request_id: model.text(),
      /** The latest completion attempt of this session. */
      attempted_at: model.dateTime(),
      /** When the reconciliation job settled it: the session got a payment, or the processor holds nothing live. */
      reconciled_at: model.dateTime().nullable(),
    }
  )
  .indexes([
    { name: "IDX_servicescan_checkout_attempt_session_unique", on: ["payment_session_id"], unique: true },
    { name: "IDX_servicescan_checkout_attempt_form_id", on: ["form_id"] },
    {
      // The reconciliation job's query; partial, so it stays as small as the backlog.
      name: "IDX_servicescan_checkout_attempt_unreconciled",
      on: ["attempted_at"],
      where: "reconciled_at IS NULL AND deleted_at IS NULL",
    },
  ])
