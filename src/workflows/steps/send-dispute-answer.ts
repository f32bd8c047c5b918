import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import { DisputeGatewayConfigurationError, DisputeGatewayRefusal } from "../../processors/types"
import type { DisputeCaseRecord } from "../../processors/types"
import type { DisputeAction } from "../../modules/servicescan/lifecycle/dispute-case"
import { reconcileWithProcessor } from "../../modules/servicescan/lifecycle/dispute-case"
import { reasonFamilyOf } from "../../lib/reason-family"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseRow } from "../../modules/servicescan/types"

export type SendDisputeAnswerStepInput = {
  case: DisputeCaseRow
  action: DisputeAction
  note: string
  today: string
}

export type DisputeAnswerOutcome =
  | { sent: true; reconciled: boolean; record: DisputeCaseRecord | null }
  | { sent: false; refused: boolean; error: string }

/**
 * Sends the answer to the processor (represent, or accept liability), once:
 * the case is read first, and an answer the processor already shows (a lost
 * acknowledgement of an earlier try) is not sent again. Failures are answered,
 * not thrown: a refusal settles the answer, an unknown outcome leaves it for
 * the next try to reconcile.
 *
 * No compensation, on purpose: an answer the processor took cannot be taken
 * back, and whether it took it is exactly what the next try reads.
 */
export const sendDisputeAnswerStep = createStep(
  "servicescan-send-dispute-answer",
  async (input: SendDisputeAnswerStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const gateway = service.getDisputeGateway(input.case.gateway)
    if (!gateway) {
      return new StepResponse<DisputeAnswerOutcome>({ sent: false, refused: true, error: `No dispute gateway named ${input.case.gateway} is configured` })
    }
    const done = input.action === "represent" ? "represented" : "liability_accepted"
    try {
      // Pushed cases (a gateway with a webhook) have no read: such a gateway's answer is idempotent itself
      // (one already taken is success), and the case's record comes with the processor's next notification.
      const pushed = Boolean(gateway.webhook)
      if (!pushed) {
        const current = await gateway.getCase(input.case.case_id)
        if (!current) {
          return new StepResponse<DisputeAnswerOutcome>({ sent: false, refused: true, error: `The processor does not know case ${input.case.case_id}` })
        }
        if (reconcileWithProcessor(input.case, current, input.today).response_status === done) {
          return new StepResponse<DisputeAnswerOutcome>({ sent: true, reconciled: true, record: current })
        }
      }
      if (input.action === "represent") {
        await gateway.represent(input.case.case_id, { note: input.note, reasonFamily: reasonFamilyOf(input.case.reason_code, input.case.card_type) })
      } else {
        await gateway.acceptLiability(input.case.case_id, { note: input.note })
      }
      // Read back so the stored timeline shows the answer at once, not after the next import. Best effort:
      // the answer is in, and the next import brings the activities anyway.
      const after = pushed ? null : await gateway.getCase(input.case.case_id).catch(() => null)
      return new StepResponse<DisputeAnswerOutcome>({ sent: true, reconciled: false, record: after })
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      // Settled: the processor said no, or the request could not be made at all (credentials, a note it
      // would refuse). Anything else (no answer) may have landed: the next try reads the case first.
      const settled =
        error instanceof DisputeGatewayRefusal || error instanceof DisputeGatewayConfigurationError || error instanceof TypeError
      return new StepResponse<DisputeAnswerOutcome>({ sent: false, refused: settled, error: message })
    }
  }
)
