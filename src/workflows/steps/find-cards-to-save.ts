import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { loadOrderServiceScanPayments, paymentText } from "../utils/order-payments"

/** A paid form whose card its shopper asked to save. */
export type CardToSave = {
  payment_id: string
  provider_id: string
  /** The customer who was signed in and ticked "Save this card". */
  customer_id: string
  form_id: string
  token_fingerprint: string | null
  card: { last4: string | null; type: string | null }
}

/**
 * The ServiceScan payments of an order whose shopper ticked "Save this card":
 * authorized (the order exists, so the authorization succeeded) and not
 * canceled since. Reads only.
 */
export const findCardsToSaveStep = createStep(
  "servicescan-find-cards-to-save",
  async (input: { order_id: string }, { container }) => {
    const cards = (await loadOrderServiceScanPayments(container, [input.order_id])).flatMap((payment): CardToSave[] => {
      const paid = payment.data
      const customerId = paymentText(paid.customer_id)
      const formId = paymentText(paid.form_id)
      if (paid.save_card !== true || paid.status === "canceled" || !customerId || !formId) {
        return []
      }
      const card = (paid.card ?? {}) as { last4?: unknown; type?: unknown }
      return [
        {
          payment_id: payment.id,
          provider_id: payment.provider_id,
          customer_id: customerId,
          form_id: formId,
          token_fingerprint: paymentText(paid.token_fingerprint),
          card: { last4: paymentText(card.last4), type: paymentText(card.type) },
        },
      ]
    })
    return new StepResponse(cards)
  }
)
