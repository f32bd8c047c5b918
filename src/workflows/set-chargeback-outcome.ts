import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { useQueryGraphStep } from "@medusajs/medusa/core-flows"
import { ChargebackOutcome } from "../modules/servicescan/types"
import { updateChargebackStep } from "./steps/update-chargeback"

export type SetChargebackOutcomeWorkflowInput = { id: string; outcome: ChargebackOutcome }

/**
 * Records how the dispute ended: `won`, `lost` or `closed`. These statuses are
 * final for the plugin (evidence arriving later does not change them), but an
 * admin may correct one with another outcome.
 */
export const setChargebackOutcomeWorkflow = createWorkflow(
  "servicescan-set-chargeback-outcome",
  (input: WorkflowData<SetChargebackOutcomeWorkflowInput>) => {
    // 404 for an unknown id before anything is written.
    useQueryGraphStep({
      entity: "chargeback",
      fields: ["id"],
      filters: { id: input.id },
      options: { throwIfKeyNotFound: true },
    })
    const chargeback = updateChargebackStep({ id: input.id, status: input.outcome })
    return new WorkflowResponse(chargeback)
  }
)
