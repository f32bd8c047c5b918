import type { Logger } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
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
 * canceled since, and whose form was sent by that same signed-in customer:
 * the form id's binding (the checkout it was first sent into) names them. A
 * card is saved only for the customer whose own session sent the form, so a
 * form id taken from someone else can never put their card on an account.
 * Reads only.
 */
export const findCardsToSaveStep = createStep(
  "servicescan-find-cards-to-save",
  async (input: { order_id: string }, { container }) => {
    const asked = (await loadOrderServiceScanPayments(container, [input.order_id])).flatMap((payment): CardToSave[] => {
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
    if (!asked.length) {
      return new StepResponse<CardToSave[]>([])
    }
    const bindings = await container
      .resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
      .readFormBindings(asked.map((card) => card.form_id))
    const cards = asked.filter((card) => {
      const bound = bindings.get(card.form_id.toLowerCase())
      if (bound?.customer_id === card.customer_id) {
        return true
      }
      container
        .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
        .warn(`servicescan: card of payment ${card.payment_id} not saved: its form was not sent by customer ${card.customer_id}`)
      return false
    })
    return new StepResponse(cards)
  }
)
