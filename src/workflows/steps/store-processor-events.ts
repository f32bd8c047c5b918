import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { PushedEvent } from "../../processors/types"

/**
 * Stores a webhook's events, each once (by gateway and event key): answers
 * the ids stored now, none for a retry or a replay. The compensation removes
 * what this step stored, so a failure later in the workflow leaves the
 * delivery new for the processor's retry.
 */
export const storeProcessorEventsStep = createStep(
  "servicescan-store-processor-events",
  async (input: { gateway: string; events: PushedEvent[] }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const ids = await service.storeProcessorEvents(input.gateway, input.events)
    return new StepResponse(ids, ids)
  },
  async (ids, { container }) => {
    if (ids?.length) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).deleteProcessorEvents(ids)
    }
  }
)
