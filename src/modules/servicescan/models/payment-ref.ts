import { model } from "@medusajs/framework/utils"

export const PAYMENT_REF_ID_PREFIX = "sspref"

/**
 * How a processor names a payment of this store: recorded when an order is
 * placed, so an imported chargeback case finds its order by the disputed
 * transaction's id (or the order reference it carried) with one indexed
 * lookup, instead of scanning payments' JSON data.
 */
export const PaymentRef = model
  .define(
    { name: "payment_ref", tableName: "servicescan_payment_ref" },
    {
      id: model.id({ prefix: PAYMENT_REF_ID_PREFIX }).primaryKey(),
      payment_id: model.text(),
      order_id: model.text(),
      /** The processor's id of the authorization or sale (cnpAPI `cnpTxnId`). */
      processor_transaction_id: model.text(),
      /** The order reference sent with it (cnpAPI `orderId`, our request id). */
      processor_order_id: model.text().nullable(),
      /** The payment's scan id (its hosted form id); null for a payment with a saved card. */
      scan_id: model.text().nullable(),
      /**
       * A keyed fingerprint of the processor token (never the token): the
       * other payments made with the same card, whose scans are evidence for
       * a payment with a saved card. Null when saved cards are off.
       */
      token_fingerprint: model.text().nullable(),
    }
  )
  .indexes([
    { name: "IDX_servicescan_payment_ref_payment_unique", on: ["payment_id"], unique: true },
    { name: "IDX_servicescan_payment_ref_processor_txn", on: ["processor_transaction_id"] },
    { name: "IDX_servicescan_payment_ref_processor_order", on: ["processor_order_id"] },
    {
      name: "IDX_servicescan_payment_ref_token_fingerprint",
      on: ["token_fingerprint"],
      where: "token_fingerprint IS NOT NULL AND deleted_at IS NULL",
    },
    { name: "IDX_servicescan_payment_ref_scan_id", on: ["scan_id"], where: "scan_id IS NOT NULL AND deleted_at IS NULL" },
  ])
