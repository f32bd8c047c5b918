import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
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
 * session's earlier completion, still true evidence). Null input: nothing to
 * record. A write that fails never stops the checkout.
 */
export const recordCheckoutSignalStep = createStep(
  "servicescan-record-checkout-signal",
  async (input: CheckoutSignalInput | null, { container }) => {
    if (!input) {
      return new StepResponse(false, null)
    }
    let recorded: Awaited<ReturnType<ServiceScanModuleService["recordCheckoutSignal"]>>
    try {
      recorded = await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).recordCheckoutSignal(input)
    } catch (error) {
      // Evidence is optional, the shopper's checkout is not: a failed write is logged (its kind only,
      // never the values) and the completion goes on.
      container
        .resolve(ContainerRegistrationKeys.LOGGER)
        .warn(`servicescan: checkout signal not recorded (${error instanceof Error ? error.name : "error"}); the checkout goes on`)
      return new StepResponse(false, null)
    }
    return new StepResponse(recorded !== null, recorded?.inserted ? recorded.id : null)
  },
  async (createdId, { container }) => {
    if (createdId) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).deleteCheckoutSignals(createdId)
    }
  }
)
