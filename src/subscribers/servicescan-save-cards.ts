import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys, OrderWorkflowEvents } from "@medusajs/framework/utils"
import { saveCardsWorkflow } from "../workflows/save-cards"

/**
 * When an order is placed, saves the cards its shopper asked to save: the
 * authorization has succeeded by then. A card that cannot be saved is logged;
 * the order stands either way.
 */
export default async function saveCardsHandler({ event: { data }, container }: SubscriberArgs<{ id: string }>) {
  try {
    await saveCardsWorkflow(container).run({ input: { order_id: data.id } })
  } catch (error) {
    container
      .resolve(ContainerRegistrationKeys.LOGGER)
      .warn(`servicescan: could not save the cards of order ${data.id}: ${(error as Error).message}`)
  }
}

export const config: SubscriberConfig = {
  event: OrderWorkflowEvents.PLACED,
}
