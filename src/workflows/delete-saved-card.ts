import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { removeSavedCardStep, RemoveSavedCardStepInput } from "./steps/remove-saved-card"

/** Deletes a customer's saved card (see removeSavedCardStep). */
export const deleteSavedCardWorkflow = createWorkflow(
  "servicescan-delete-saved-card",
  (input: WorkflowData<RemoveSavedCardStepInput>) => new WorkflowResponse(removeSavedCardStep(input))
)
