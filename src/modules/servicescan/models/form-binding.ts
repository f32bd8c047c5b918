import { model } from "@medusajs/framework/utils"

export const FORM_BINDING_ID_PREFIX = "ssfb"

/**
 * Which checkout a hosted-form id belongs to: the first one it was sent into.
 * A form id is a bearer credential for the card typed into the form (the
 * exchange turns it into a processor token), so once a storefront has sent it
 * with a payment session, the same id from another cart's payment collection
 * or from another customer is refused before anything is exchanged.
 *
 * "Checkout" here is a cart's payment collection together with who sent the
 * form: the signed-in customer, or nobody (a guest). Medusa replaces a
 * collection's session with a new one each time the storefront sends data, so
 * a storefront re-sending the same form into the same cart's collection (a
 * retry) is the same binding, and allowed.
 *
 * Only a hash of the form id is kept: the binding must not become one more
 * place a usable form id rests. Form ids are random UUIDs, so a plain SHA-256
 * cannot be reversed by trying them.
 */
export const FormBinding = model
  .define(
    { name: "form_binding", tableName: "servicescan_form_binding" },
    {
      id: model.id({ prefix: FORM_BINDING_ID_PREFIX }).primaryKey(),
      /** SHA-256 (hex) of the lower-cased form id (`formIdHash`). */
      form_hash: model.text(),
      /** The payment collection (of one cart) the form was first sent into. */
      payment_collection_id: model.text(),
      /** The signed-in customer who sent it; null for a guest. */
      customer_id: model.text().nullable(),
    }
  )
  .indexes([{ name: "IDX_servicescan_form_binding_form_hash_unique", on: ["form_hash"], unique: true }])
