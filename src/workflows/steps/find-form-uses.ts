import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type FindFormUsesStepInput = { form_id: string; payment_session_id: string }

/**
 * The other payment sessions whose completion carried this hosted form id and
 * that hold a live (not canceled) payment: the form already paid there.
 * Reads only.
 */
export const findFormUsesStep = createStep(
  "servicescan-find-form-uses",
  async (input: FindFormUsesStepInput | null, { container }) => {
    if (!input) {
      return new StepResponse([] as string[])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const others = await service.listFormUses(input.form_id, input.payment_session_id)
    if (!others.length) {
      return new StepResponse([] as string[])
    }
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const { data } = await query.graph({
      entity: "payment_session",
      fields: ["id", "payment.id", "payment.canceled_at"],
      filters: { id: others },
    })
    const paid = (data as { id: string; payment?: { id: string; canceled_at: unknown } | null }[])
      .filter((session) => session.payment && !session.payment.canceled_at)
      .map((session) => session.id)
    return new StepResponse(paid)
  }
)
