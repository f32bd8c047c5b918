import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep } from "@medusajs/medusa/core-flows"
import { CaseDueSoonEvent, ServiceScanEvents } from "../modules/servicescan/types"
import { claimDueSoonCasesStep, ClaimDueSoonCasesStepInput } from "./steps/claim-due-soon-cases"

export type AlertDueDisputeCasesWorkflowInput = ClaimDueSoonCasesStepInput

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * One page of the due-soon alert: claims cases still waiting for our answer
 * whose reply-by day is from `today` to `until` and that were never
 * announced, and emits `servicescan.case.due_soon` for each. The claim is
 * once per case ever (a column of the case), so the next run, in this process
 * or another, announces nothing twice; if the workflow fails, the claim is
 * undone and the next run tries again.
 */
export const alertDueDisputeCasesWorkflow = createWorkflow(
  "servicescan-alert-due-dispute-cases",
  (input: WorkflowData<AlertDueDisputeCasesWorkflowInput>) => {
    const claimed = claimDueSoonCasesStep(input)
    const events = transform({ claimed, input }, ({ claimed, input }) =>
      claimed.map(
        (row): CaseDueSoonEvent => ({
          ...row,
          days_left: Math.round((Date.parse(`${row.reply_by}T00:00:00Z`) - Date.parse(`${input.today}T00:00:00Z`)) / DAY_MS),
        })
      )
    )
    emitEventStep({ eventName: ServiceScanEvents.CASE_DUE_SOON, data: events }).config({ name: "servicescan-emit-case-due-soon" })
    return new WorkflowResponse(transform({ claimed }, ({ claimed }) => ({ alerted: claimed.length })))
  }
)
