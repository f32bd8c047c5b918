import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { ChargebackStatus } from "../../modules/servicescan/types"

/** Sets chargebacks' statuses (a processor's decision); the compensation puts the previous ones back. */
export const setChargebackStatusesStep = createStep(
  "servicescan-set-chargeback-statuses",
  async (updates: { id: string; status: ChargebackStatus }[], { container }) => {
    if (!updates.length) {
      return new StepResponse([] as string[], [] as { id: string; status: ChargebackStatus }[])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const current = await service.listChargebacks({ id: updates.map((u) => u.id) }, { select: ["id", "status"], take: null })
    const was = new Map(current.map((row) => [row.id, row.status as ChargebackStatus]))
    const changed = updates.filter((u) => was.has(u.id) && was.get(u.id) !== u.status)
    if (changed.length) {
      await service.updateChargebacks(changed)
    }
    return new StepResponse(
      changed.map((u) => u.id),
      changed.map((u) => ({ id: u.id, status: was.get(u.id) as ChargebackStatus }))
    )
  },
  async (previous, { container }) => {
    if (previous?.length) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).updateChargebacks(previous)
    }
  }
)
