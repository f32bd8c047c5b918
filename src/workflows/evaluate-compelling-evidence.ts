import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { evaluateCompellingEvidenceStep } from "./steps/evaluate-compelling-evidence"

/** Whether chargebacks qualify for Visa Compelling Evidence 3.0, as the admin shows it, by chargeback id. */
export const evaluateCompellingEvidenceWorkflow = createWorkflow(
  "servicescan-evaluate-compelling-evidence",
  (input: WorkflowData<{ chargeback_ids: string[] }>) => new WorkflowResponse(evaluateCompellingEvidenceStep(input))
)
