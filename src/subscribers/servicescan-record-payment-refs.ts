import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys, OrderWorkflowEvents } from "@medusajs/framework/utils"
import { recordPaymentRefsWorkflow } from "../workflows/record-payment-refs"

/**
 * When an order is placed, records how the processor names its ServiceScan
 * payments, so a chargeback case imported later finds the order by the
 * disputed transaction (see PaymentRef). The import job records the
 * missing ones of older orders by itself too (a failed run here loses nothing).
 */
export default async function recordPaymentRefsHandler({ event: { data }, container }: SubscriberArgs<{ id: string }>) {
  try {
    await recordPaymentRefsWorkflow(container).run({ input: { order_ids: [data.id] } })
  } catch (error) {
    container
      .resolve(ContainerRegistrationKeys.LOGGER)
      .warn(`servicescan: could not record the processor references of order ${data.id}: ${(error as Error).message}`)
  }
}

export const config: SubscriberConfig = {
  event: OrderWorkflowEvents.PLACED,
}
