import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import { DisputeAction, decideResponse } from "../../modules/servicescan/lifecycle/dispute-case"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseRow } from "../../modules/servicescan/types"
import type { DisputeAnswerOutcome } from "./send-dispute-answer"

/** Records what became of the answer, as the lifecycle decides; the compensation restores the case's answer fields. */
export const finishDisputeResponseStep = createStep(
  "servicescan-finish-dispute-response",
  async (input: { case_id: string; action: DisputeAction; outcome: DisputeAnswerOutcome; now: string }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const [row] = (await service.listDisputeCases({ id: input.case_id }, { take: 1 })) as DisputeCaseRow[]
    const today = input.now.slice(0, 10)
    const event = input.outcome.sent
      ? ({ type: "sent", action: input.action } as const)
      : ({ type: "failed", action: input.action, refused: input.outcome.refused, error: input.outcome.error } as const)
    const decision = decideResponse(row, event)
    const previous = {
      id: row.id,
      response_status: row.response_status,
      response_error: row.response_error,
      represented_at: row.represented_at,
      liability_accepted_at: row.liability_accepted_at,
    }
    if (!decision.ok) {
      return new StepResponse(row.response_status, previous)
    }
    const at = new Date(input.now)
    await service.updateDisputeCases({
      id: row.id,
      ...decision.change,
      ...(input.outcome.sent ? (input.action === "represent" ? { represented_at: at } : { liability_accepted_at: at }) : {}),
    })
    if (input.outcome.sent && input.outcome.record) {
      // The processor's activities after our answer (the timeline); its record agrees with the change above.
      await service.upsertDisputeCases(row.gateway, [input.outcome.record], today)
    }
    return new StepResponse(decision.change.response_status ?? row.response_status, previous)
  },
  async (previous, { container }) => {
    if (previous) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).updateDisputeCases(previous)
    }
  }
)
