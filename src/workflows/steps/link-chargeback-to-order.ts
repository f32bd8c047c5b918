import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type LinkChargebackToOrderStepInput = { chargeback_id: string; order_id: string }

/**
 * Links a new chargeback to its order. Not Medusa's `createRemoteLinkStep`:
 * its compensation always dismisses the link, while a rolled-back chargeback
 * whose proof request may exist at ServiceScan is kept (see
 * `createChargebackStep`), and a kept chargeback must stay on its order: a
 * repeated delivery finds it "already recorded" and would never link it.
 */
export const linkChargebackToOrderStep = createStep(
  "servicescan-link-chargeback-to-order",
  async (input: LinkChargebackToOrderStepInput, { container }) => {
    const link = container.resolve(ContainerRegistrationKeys.LINK)
    const definition = {
      [Modules.ORDER]: { order_id: input.order_id },
      [SERVICESCAN_MODULE]: { chargeback_id: input.chargeback_id },
    }
    await link.create(definition)
    return new StepResponse(undefined, input)
  },
  async (input, { container }) => {
    if (!input) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    if (await service.chargebackHasRemoteProof(input.chargeback_id)) {
      return
    }
    await container.resolve(ContainerRegistrationKeys.LINK).dismiss({
      [Modules.ORDER]: { order_id: input.order_id },
      [SERVICESCAN_MODULE]: { chargeback_id: input.chargeback_id },
    })
  }
)
