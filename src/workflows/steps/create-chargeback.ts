import { BigNumberInput } from "@medusajs/framework/types"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { ChargebackSource } from "../../modules/servicescan/types"
import { chargebackOnAnotherOrderError } from "./find-chargeback-by-external-id"

/** A chargeback as recorded; `recordChargebackWorkflow`'s input is built on it. */
export type CreateChargebackStepInput = {
  /** The processor's dispute id. Recording the same one again changes nothing. */
  external_id: string
  order_id: string
  /** In the currency's major unit, like every Medusa amount. */
  amount: BigNumberInput
  currency_code: string
  reason?: string | null
  reason_code?: string | null
  /** When the answer to the processor is due. */
  due_by?: Date | string | null
  metadata?: Record<string, unknown> | null
  source: ChargebackSource
  /** Scan ids an admin or the caller gave, on top of those of the order's payments. */
  extra_scan_ids?: string[]
}

export type CreatedChargeback = {
  id: string
  order_id: string
  /** False when the same dispute was recorded by a concurrent delivery first. */
  created: boolean
}

/**
 * Creates the chargeback. The workflow's lock serialises deliveries of one
 * dispute within a locking provider's reach; beyond it (two processes with
 * per-process locking), the unique index on `external_id` decides, and the
 * delivery that lost the race answers with the winner's chargeback, as a
 * repeat, instead of failing.
 */
export const createChargebackStep = createStep(
  "servicescan-create-chargeback",
  async (input: CreateChargebackStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    try {
      const chargeback = await service.createChargebacks({
        ...input,
        // The DML infers `number` for bigNumber columns; they store any BigNumberInput exactly.
        amount: input.amount as number,
        currency_code: input.currency_code.toLowerCase(),
        due_by: input.due_by ? new Date(input.due_by) : null,
        status: "open",
      })
      return new StepResponse<CreatedChargeback, string | null>(
        { id: chargeback.id, order_id: chargeback.order_id, created: true },
        chargeback.id
      )
    } catch (error) {
      const [winner] = await service.listChargebacks(
        { external_id: input.external_id },
        { select: ["id", "order_id"], take: 1 }
      )
      if (!winner) {
        throw error
      }
      if (winner.order_id !== input.order_id) {
        throw chargebackOnAnotherOrderError(input.external_id, winner.order_id, input.order_id)
      }
      // Not ours: nothing to compensate.
      return new StepResponse<CreatedChargeback, string | null>(
        { id: winner.id, order_id: winner.order_id, created: false },
        null
      )
    }
  },
  async (chargebackId, { container }) => {
    if (!chargebackId) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    // A proof request that may exist at ServiceScan stays on record (see
    // createProofRequestStep), and so does its chargeback, as its owner.
    if (!(await service.chargebackHasRemoteProof(chargebackId))) {
      await service.deleteChargebacks(chargebackId)
    }
  }
)
