import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { applyStoredProcessorEvents } from "../jobs/_apply-processor-events"
import { ProcessorEventsReceivedEvent, ServiceScanEvents } from "../modules/servicescan/types"

/**
 * Applies the events a processor's webhook just stored (a pushed chargeback,
 * an operation's outcome): `applyStoredProcessorEvents`. What fails here is
 * left unapplied and caught up by the case import job.
 */
export default async function applyProcessorEventsHandler({ event: { data }, container }: SubscriberArgs<ProcessorEventsReceivedEvent>) {
  const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
  try {
    const { errors } = await applyStoredProcessorEvents(container, data.gateway, data.ids)
    for (const error of errors) {
      logger.warn(`servicescan: ${data.gateway} webhook event: ${error}`)
    }
  } catch (error) {
    logger.error(`servicescan: applying ${data.gateway} webhook events failed (the case import retries): ${(error as Error).message}`)
  }
}

export const config: SubscriberConfig = {
  event: ServiceScanEvents.PROCESSOR_EVENTS_RECEIVED,
}
