import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { listSavedCardsStep } from "./steps/list-saved-cards"

/** A customer's saved cards, as the store API shows them (brand, last four; never a token). */
export const listSavedCardsWorkflow = createWorkflow(
  "servicescan-list-saved-cards",
  (input: WorkflowData<{ customer_id: string }>) => new WorkflowResponse(listSavedCardsStep(input))
)
