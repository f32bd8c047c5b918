import { MedusaError } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import { DisputeAction, decideResponse } from "../../modules/servicescan/lifecycle/dispute-case"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseRow } from "../../modules/servicescan/types"

export type StartDisputeResponseStepInput = { case_id: string; action: DisputeAction; today: string }

/**
 * Claims the case for an answer (`representing` / `accepting`), as the
 * lifecycle allows: never twice, never after the reply-by day, never while the
 * processor does not wait for the merchant. A retry of an answer whose outcome
 * was lost goes on (the next steps read the case before writing).
 */
export const startDisputeResponseStep = createStep(
  "servicescan-start-dispute-response",
  async (input: StartDisputeResponseStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const [row] = (await service.listDisputeCases({ id: input.case_id }, { take: 1 })) as DisputeCaseRow[]
    if (!row) {
      throw new MedusaError(MedusaError.Types.NOT_FOUND, `Dispute case ${input.case_id} was not found`)
    }
    const decision = decideResponse(row, { type: "start", action: input.action, today: input.today })
    if (!decision.ok) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `Cannot ${input.action === "represent" ? "represent" : "accept"} case ${row.case_id}: ${decision.reason}`)
    }
    if (Object.keys(decision.change).length) {
      await service.updateDisputeCases({ id: row.id, ...decision.change })
    }
    return new StepResponse(row, { id: row.id, response_status: row.response_status, response_error: row.response_error })
  },
  async (previous, { container }) => {
    if (previous) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).updateDisputeCases(previous)
    }
  }
)
