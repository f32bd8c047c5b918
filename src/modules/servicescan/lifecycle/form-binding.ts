import type { FormCheckout } from "../types"

/**
 * Whether a hosted form sent by `checkout` may pay: it is bound (see the
 * FormBinding model) to that same checkout, the same cart's payment
 * collection sent by the same customer or by a guest both times.
 */
export function sameCheckout(bound: FormCheckout, checkout: FormCheckout): boolean {
  return bound.payment_collection_id === checkout.payment_collection_id && (bound.customer_id ?? null) === (checkout.customer_id ?? null)
}
