import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { ChargebackStatus } from "../../modules/servicescan/types"

export type UpdateChargebackStepInput = {
  id: string
  status?: ChargebackStatus
  extra_scan_ids?: string[]
}

/** Updates a chargeback's status or attached scan ids; compensation puts the previous values back. */
export const updateChargebackStep = createStep(
  "servicescan-update-chargeback",
  async (input: UpdateChargebackStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const previous = await service.retrieveChargeback(input.id, { select: ["id", "status", "extra_scan_ids"] })
    const updated = await service.updateChargebacks({
      id: input.id,
      ...(input.status ? { status: input.status } : {}),
      ...(input.extra_scan_ids ? { extra_scan_ids: input.extra_scan_ids } : {}),
    })
    return new StepResponse(updated, {
      id: previous.id,
      status: previous.status as ChargebackStatus,
      extra_scan_ids: previous.extra_scan_ids as string[],
    })
  },
  async (previous, { container }) => {
    if (!previous) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.updateChargebacks(previous)
  }
)
