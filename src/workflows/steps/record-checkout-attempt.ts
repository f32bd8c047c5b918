import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type RecordCheckoutAttemptStepInput = {
  payment_session_id: string
  cart_id: string
  /** Null for a session paying with a saved card. */
  form_id: string | null
  payment_method_id?: string | null
  request_id: string
}

type Previous = { id: string; attempted_at: Date; reconciled_at: Date | null } | { created: string }

/** Records a completion attempt before the card is authorized (see CheckoutAttempt). */
export const recordCheckoutAttemptStep = createStep(
  "servicescan-record-checkout-attempt",
  async (input: RecordCheckoutAttemptStepInput | null, { container }) => {
    if (!input) {
      return new StepResponse(undefined, undefined)
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const [existing] = await service.listCheckoutAttempts({ payment_session_id: input.payment_session_id }, { take: 1 })
    await service.recordCheckoutAttempt(input)
    const previous: Previous = existing
      ? { id: existing.id, attempted_at: existing.attempted_at, reconciled_at: existing.reconciled_at }
      : { created: input.payment_session_id }
    return new StepResponse(undefined, previous)
  },
  async (previous, { container }) => {
    if (!previous) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    if ("created" in previous) {
      const rows = await service.listCheckoutAttempts({ payment_session_id: previous.created }, { select: ["id"] })
      await service.deleteCheckoutAttempts(rows.map((row) => row.id))
    } else {
      await service.updateCheckoutAttempts({
        id: previous.id,
        attempted_at: previous.attempted_at,
        reconciled_at: previous.reconciled_at,
      })
    }
  }
)
