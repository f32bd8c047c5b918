import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type KnownChargebacks = Record<string, { id: string; order_id: string }>

/** Reads only: the chargebacks already recorded under these processor dispute ids. */
export const findChargebacksByExternalIdsStep = createStep(
  "servicescan-find-chargebacks-by-external-ids",
  async (externalIds: string[], { container }) => {
    if (!externalIds.length) {
      return new StepResponse<KnownChargebacks>({})
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const rows = await service.listChargebacks({ external_id: externalIds }, { select: ["id", "external_id", "order_id"], take: null })
    return new StepResponse<KnownChargebacks>(
      Object.fromEntries(rows.map((row) => [row.external_id, { id: row.id, order_id: row.order_id }]))
    )
  }
)
