import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export const markCheckoutAttemptsReconciledStep = createStep(
  "servicescan-mark-checkout-attempts-reconciled",
  async (input: { ids: string[]; now?: string }, { container }) => {
    if (!input.ids.length) {
      return new StepResponse(undefined, [] as string[])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.updateCheckoutAttempts({
      selector: { id: input.ids },
      data: { reconciled_at: input.now ? new Date(input.now) : new Date() },
    })
    return new StepResponse(undefined, input.ids)
  },
  async (ids, { container }) => {
    if (!ids?.length) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.updateCheckoutAttempts({ selector: { id: ids }, data: { reconciled_at: null } })
  }
)
