import { model } from "@medusajs/framework/utils"

export const CHECKOUT_SIGNAL_ID_PREFIX = "sssig"

/**
 * What the shopper's checkout looked like, kept as evidence for a later fraud
 * dispute (Visa Compelling Evidence 3.0 matches a disputed payment with the
 * same card's earlier, undisputed payments on these elements). Recorded when
 * a ServiceScan session completes; the payment is filled in once the order is
 * placed. Rows older than the module's `checkoutSignals.retentionDays` are
 * deleted by a job: they exist for fraud prevention only.
 */
export const CheckoutSignal = model
  .define(
    { name: "checkout_signal", tableName: "servicescan_checkout_signal" },
    {
      id: model.id({ prefix: CHECKOUT_SIGNAL_ID_PREFIX }).primaryKey(),
      payment_session_id: model.text(),
      cart_id: model.text(),
      /** Medusa's payment made from the session; null until the order is placed. */
      payment_id: model.text().nullable(),
      /** The signed-in customer who completed the cart; null for a guest. */
      customer_id: model.text().nullable(),
      /** The completing request's client IP, as Medusa's trusted-proxy setting resolves it. */
      ip_address: model.text().nullable(),
      /** The completing request's User-Agent, truncated. */
      user_agent: model.text().nullable(),
      /** The widget's first-party device id, sent with the form into the session data. */
      device_id: model.text().nullable(),
    }
  )
  .indexes([
    { name: "IDX_servicescan_checkout_signal_session_unique", on: ["payment_session_id"], unique: true },
    { name: "IDX_servicescan_checkout_signal_payment", on: ["payment_id"], where: "payment_id IS NOT NULL AND deleted_at IS NULL" },
    // The retention job deletes by age.
    { name: "IDX_servicescan_checkout_signal_created_at", on: ["created_at"] },
  ])
