import { MedusaError } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type ExistingChargeback = { id: string; status: string; order_id: string } | null

/**
 * The same dispute id on another order is a mistake somewhere upstream, and
 * answering "already recorded" would hide it. DUPLICATE_ERROR (422) rather
 * than CONFLICT: Medusa's error handler replaces a CONFLICT's message with
 * advice to retry, the wrong advice here.
 */
export function chargebackOnAnotherOrderError(externalId: string, recordedOn: string, asked: string): MedusaError {
  return new MedusaError(
    MedusaError.Types.DUPLICATE_ERROR,
    `Chargeback ${externalId} is already recorded on order ${recordedOn}, not ${asked}`
  )
}

/** Reads only: the idempotency check of `recordChargebackWorkflow`. */
export const findChargebackByExternalIdStep = createStep(
  "servicescan-find-chargeback-by-external-id",
  async (input: { external_id: string; order_id: string }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const [existing] = await service.listChargebacks(
      { external_id: input.external_id },
      { select: ["id", "status", "order_id"], take: 1 }
    )
    if (existing && existing.order_id !== input.order_id) {
      throw chargebackOnAnotherOrderError(input.external_id, existing.order_id, input.order_id)
    }
    return new StepResponse<ExistingChargeback>(existing ?? null)
  }
)
