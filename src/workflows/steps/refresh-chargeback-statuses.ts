import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type { ChargebackStatusChange } from "../../modules/servicescan/types"
import type ServiceScanModuleService from "../../modules/servicescan/service"

/** Derives each chargeback's status from its proof requests; answers the changes. */
export const refreshChargebackStatusesStep = createStep(
  "servicescan-refresh-chargeback-statuses",
  async (input: { chargeback_ids: string[] }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const changes = await service.refreshChargebackStatuses(input.chargeback_ids)
    return new StepResponse(changes, changes)
  },
  async (changes: ChargebackStatusChange[] | undefined, { container }) => {
    if (!changes?.length) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.restoreChargebackStatuses(changes)
  }
)
