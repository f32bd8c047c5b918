import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { CheckoutSignalInput } from "../../modules/servicescan/types"

/**
 * Records what the shopper's completion looked like (IP, user agent, device
 * id, customer) as evidence for a later fraud dispute: one row per payment
 * session, a retried completion updating it (docs/privacy.md). Nothing when
 * the module's `checkoutSignals.enabled` is false. The compensation removes a
 * row this run created; a row it only refreshed stays (it holds the same
 * session's earlier completion, still true evidence). Null input: nothing to record.
 */
export const recordCheckoutSignalStep = createStep(
  "servicescan-record-checkout-signal",
  async (input: CheckoutSignalInput | null, { container }) => {
    if (!input) {
      return new StepResponse(false, null)
    }
    const recorded = await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).recordCheckoutSignal(input)
    return new StepResponse(recorded !== null, recorded?.inserted ? recorded.id : null)
  },
  async (createdId, { container }) => {
    if (createdId) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).deleteCheckoutSignals(createdId)
    }
  }
)
