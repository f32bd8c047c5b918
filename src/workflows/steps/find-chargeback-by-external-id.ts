import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type ExistingChargeback = { id: string; status: string; order_id: string } | null

/** Reads only: the idempotency check of `recordChargebackWorkflow`. */
export const findChargebackByExternalIdStep = createStep(
  "servicescan-find-chargeback-by-external-id",
  async (input: { external_id: string }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const [existing] = await service.listChargebacks(
      { external_id: input.external_id },
      { select: ["id", "status", "order_id"], take: 1 }
    )
    return new StepResponse<ExistingChargeback>(existing ?? null)
  }
)
