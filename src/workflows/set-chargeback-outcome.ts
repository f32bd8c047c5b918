import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep, useQueryGraphStep } from "@medusajs/medusa/core-flows"
import { CaseDecidedEvent, ChargebackOutcome, ServiceScanEvents } from "../modules/servicescan/types"
import { updateChargebackStep } from "./steps/update-chargeback"

export type SetChargebackOutcomeWorkflowInput = { id: string; outcome: ChargebackOutcome }

/**
 * Records how the dispute ended: `won`, `lost` or `closed`. These statuses are
 * final for the plugin (evidence arriving later does not change them), but an
 * admin may correct one with another outcome. A change emits
 * `servicescan.case.decided` (setting the same outcome again emits nothing).
 */
export const setChargebackOutcomeWorkflow = createWorkflow(
  "servicescan-set-chargeback-outcome",
  (input: WorkflowData<SetChargebackOutcomeWorkflowInput>) => {
    // 404 for an unknown id before anything is written.
    const { data: found } = useQueryGraphStep({
      entity: "chargeback",
      fields: ["id", "status", "order_id", "dispute_case.case_id", "dispute_case.gateway"],
      filters: { id: input.id },
      options: { throwIfKeyNotFound: true },
    })
    const chargeback = updateChargebackStep({ id: input.id, status: input.outcome })
    const decided = transform({ found, input }, ({ found, input }) => {
      const before = found[0] as
        | { id: string; status: string; order_id: string; dispute_case?: { case_id: string; gateway: string } | null }
        | undefined
      if (!before || before.status === input.outcome) {
        return []
      }
      return [
        {
          id: before.id,
          order_id: before.order_id,
          outcome: input.outcome,
          decided_by: "admin",
          case_id: before.dispute_case?.case_id ?? null,
          gateway: before.dispute_case?.gateway ?? null,
        } satisfies CaseDecidedEvent,
      ]
    })
    emitEventStep({ eventName: ServiceScanEvents.CASE_DECIDED, data: decided }).config({ name: "servicescan-emit-case-decided" })
    return new WorkflowResponse(chargeback)
  }
)
