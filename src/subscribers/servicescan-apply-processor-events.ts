import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { drainProcessorEvents } from "../jobs/_apply-processor-events"
import { ProcessorEventsReceivedEvent, ServiceScanEvents } from "../modules/servicescan/types"

/**
 * Applies what a processor's webhook just stored (a pushed chargeback, an
 * operation's outcome) by draining the gateway's pending events
 * (`drainProcessorEvents`): when another drain is running already, it takes
 * this delivery's events too, and this run ends at once. What fails here is
 * left unapplied and caught up by the case import job.
 */
export default async function applyProcessorEventsHandler({ event: { data }, container }: SubscriberArgs<ProcessorEventsReceivedEvent>) {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  try {
    const drained = await drainProcessorEvents(container, data.gateway)
    for (const error of drained?.errors ?? []) {
      logger.warn(`servicescan: ${data.gateway} webhook event: ${error}`)
    }
  } catch (error) {
    logger.error(`servicescan: applying ${data.gateway} webhook events failed (the case import retries): ${(error as Error).message}`)
  }
}

export const config: SubscriberConfig = {
  event: ServiceScanEvents.PROCESSOR_EVENTS_RECEIVED,
}
