import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys, OrderWorkflowEvents } from "@medusajs/framework/utils"
import { recordPaymentRefsWorkflow } from "../workflows/record-payment-refs"

/**
 * When an order is placed, records how the processor names its ServiceScan
 * payments, so a chargeback case imported later finds the order by the
 * disputed transaction (see PaymentRef). If this fails, a case still finds
 * its order through the order reference it carries, which names the payment
 * session (matchDisputeCasesStep); only the other scans of a saved card are
 * found through these records alone.
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
