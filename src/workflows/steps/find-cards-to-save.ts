import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_PROVIDER_PREFIX } from "../utils/checkout-session"

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

type OrderPayments = {
  payment_collections?: ({ payments?: ({ id: string; provider_id: string; data: Record<string, unknown> | null } | null)[] } | null)[]
}

/**
 * The ServiceScan payments of an order whose shopper ticked "Save this card":
 * authorized (the order exists, so the authorization succeeded) and not
 * canceled since. Reads only.
 */
export const findCardsToSaveStep = createStep(
  "servicescan-find-cards-to-save",
  async (input: { order_id: string }, { container }) => {
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const { data } = await query.graph({
      entity: "order",
      fields: ["id", "payment_collections.payments.id", "payment_collections.payments.provider_id", "payment_collections.payments.data"],
      filters: { id: input.order_id },
    })
    const text = (value: unknown) => (typeof value === "string" && value ? value : null)
    const cards = ((data[0] as OrderPayments | undefined)?.payment_collections ?? []).flatMap((collection) =>
      (collection?.payments ?? []).flatMap((payment): CardToSave[] => {
        const paid = payment?.data
        const customerId = text(paid?.customer_id)
        const formId = text(paid?.form_id)
        if (
          !payment?.provider_id.startsWith(SERVICESCAN_PROVIDER_PREFIX) ||
          paid?.save_card !== true ||
          paid.status === "canceled" ||
          !customerId ||
          !formId
        ) {
          return []
        }
        const card = (paid.card ?? {}) as { last4?: unknown; type?: unknown }
        return [
          {
            payment_id: payment.id,
            provider_id: payment.provider_id,
            customer_id: customerId,
            form_id: formId,
            token_fingerprint: text(paid.token_fingerprint),
            card: { last4: text(card.last4), type: text(card.type) },
          },
        ]
      })
    )
    return new StepResponse(cards)
  }
)
