import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep } from "@medusajs/medusa/core-flows"
import { ProcessorEventsReceivedEvent, ServiceScanEvents } from "../modules/servicescan/types"
import type { PushedEvent } from "../processors/types"
import { storeProcessorEventsStep } from "./steps/store-processor-events"

export type ReceiveProcessorEventsWorkflowInput = {
  /** The dispute gateway whose webhook delivered them, e.g. `adyen`. */
  gateway: string
  /** Authentic, fresh events, as the processor's webhook code read them. */
  events: PushedEvent[]
}

/**
 * The webhook's fast half: stores each event once and announces the new ones
 * (`servicescan.processor_events.received`); the webhook answers the
 * processor as soon as this returns, and `applyProcessorEventsWorkflow` does
 * the work from the event. A retried or replayed delivery stores and
 * announces nothing.
 */
export const receiveProcessorEventsWorkflow = createWorkflow(
  "servicescan-receive-processor-events",
  (input: WorkflowData<ReceiveProcessorEventsWorkflowInput>) => {
    const ids = storeProcessorEventsStep(input)
    const announced = transform({ ids, input }, ({ ids, input }): ProcessorEventsReceivedEvent[] =>
      ids.length ? [{ gateway: input.gateway, ids }] : []
    )
    emitEventStep({ eventName: ServiceScanEvents.PROCESSOR_EVENTS_RECEIVED, data: announced }).config({
      name: "servicescan-emit-processor-events-received",
    })
    return new WorkflowResponse(transform({ ids }, ({ ids }) => ({ stored: ids.length })))
  }
)
