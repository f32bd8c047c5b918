import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { findCardsToSaveStep } from "./steps/find-cards-to-save"
import { saveCardsStep } from "./steps/save-cards"

/**
 * Saves the cards the shoppers of an order asked to save ("Save this card"),
 * once the order is placed: the authorization has succeeded, never before.
 * Answers the saved cards' ids. Safe to repeat: a card already saved stays one card.
 */
export const saveCardsWorkflow = createWorkflow(
  "servicescan-save-cards",
  (input: WorkflowData<{ order_id: string }>) => {
    const cards = findCardsToSaveStep(input)
    return new WorkflowResponse(saveCardsStep(cards))
  }
)
