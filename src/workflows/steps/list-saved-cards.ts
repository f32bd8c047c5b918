import type { IPaymentModuleService } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import type { PublicSavedCard } from "../../providers/servicescan/saved-cards"
import { loadServiceScanAccountHolders } from "../utils/account-holders"

/** A saved card as the store API shows it to its customer. */
export type StoreSavedCard = PublicSavedCard & { id: string; provider_id: string }

/**
 * A customer's saved cards at this plugin's providers, through the payment
 * module (the provider's `listPaymentMethods`, which shows brand and last
 * four and never a token). Reads only.
 */
export const listSavedCardsStep = createStep(
  "servicescan-list-saved-cards",
  async (input: { customer_id: string }, { container }) => {
    const loaded = await loadServiceScanAccountHolders(container, input.customer_id)
    if (!loaded) {
      return new StepResponse<StoreSavedCard[]>([])
    }
    const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    const lists = await Promise.all(
      loaded.holders.map((holder) =>
        payments.listPaymentMethods({
          provider_id: holder.provider_id,
          context: { account_holder: { data: holder.data }, customer: loaded.customer },
        })
      )
    )
    const cards = lists.flat().map((method): StoreSavedCard => {
      const data = (method.data ?? {}) as Partial<PublicSavedCard>
      return {
        id: method.id,
        provider_id: method.provider_id,
        brand: data.brand ?? null,
        last4: data.last4 ?? null,
        saved_at: data.saved_at ?? "",
      }
    })
    // Most recently saved first: the card a returning shopper most likely wants.
    return new StepResponse(cards.sort((a, b) => b.saved_at.localeCompare(a.saved_at)))
  }
)
