import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import { CHARGEBACK_ID_PREFIX } from "../../modules/servicescan/models/chargeback"
import { newEntityId } from "../../modules/servicescan/repositories/entity-id"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { CreateChargebackStepInput } from "./create-chargeback"

/** `createChargebackStep` for a page of chargebacks: one insert, the same compensation per chargeback. */
export const createChargebacksStep = createStep(
  "servicescan-create-chargebacks",
  async (inputs: CreateChargebackStepInput[], { container }) => {
    if (!inputs.length) {
      return new StepResponse([] as { id: string; order_id: string; external_id: string }[], [] as string[])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const created = await service.createChargebacks(
      inputs.map((input) => ({
        ...input,
        id: newEntityId(CHARGEBACK_ID_PREFIX),
        // The DML infers `number` for bigNumber columns; they store any BigNumberInput exactly.
        amount: input.amount as number,
        currency_code: input.currency_code.toLowerCase(),
        due_by: input.due_by ? new Date(input.due_by) : null,
        status: "open" as const,
      }))
    )
    const rows = created.map((row) => ({ id: row.id, order_id: row.order_id, external_id: row.external_id }))
    return new StepResponse(rows, rows.map((row) => row.id))
  },
  async (ids, { container }) => {
    if (!ids?.length) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    // As in createChargebackStep: a chargeback whose proof request may exist at ServiceScan stays on record.
    const keep = await Promise.all(ids.map((id) => service.chargebackHasRemoteProof(id)))
    const drop = ids.filter((_, index) => !keep[index])
    if (drop.length) {
      await service.deleteChargebacks(drop)
    }
  }
)
