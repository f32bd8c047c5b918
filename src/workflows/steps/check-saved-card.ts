import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { findSavedCard } from "../../providers/servicescan/saved-cards"

export type CheckSavedCardStepInput = {
  card_id: string
  /** The customer the session was created for (its hosted form's `customerId`). */
  customer_id: string | null
  provider_id: string
} | null

/**
 * Whether the saved card a session pays with is gone: no longer on the
 * account holder of the customer the session was created for (they deleted
 * it since), or that customer is unknown. The session copied the card when it
 * was created, so without this check a deleted card could still pay. Reads only.
 */
export const checkSavedCardStep = createStep(
  "servicescan-check-saved-card",
  async (input: CheckSavedCardStepInput, { container }) => {
    if (!input) {
      return new StepResponse(false)
    }
    if (!input.customer_id) {
      return new StepResponse(true)
    }
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const { data } = await query.graph({
      entity: "customer",
      fields: ["id", "account_holders.id", "account_holders.provider_id", "account_holders.data"],
      filters: { id: input.customer_id },
    })
    const holders = ((data[0] as { account_holders?: ({ provider_id: string; data: unknown } | null)[] } | undefined)
      ?.account_holders ?? [])
    const holder = holders.find((candidate) => candidate?.provider_id === input.provider_id)
    return new StepResponse(!holder || !findSavedCard(holder.data, input.card_id))
  }
)
