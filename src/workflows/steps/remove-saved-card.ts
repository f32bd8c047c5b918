import type { ILockingModule, IPaymentModuleService } from "@medusajs/framework/types"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { findSavedCard, readAccountHolderData, withoutSavedCard } from "../../providers/servicescan/saved-cards"
import { accountHolderLockKey, loadServiceScanAccountHolders, readAccountHolder } from "../utils/account-holders"

export type RemoveSavedCardStepInput = { customer_id: string; card_id: string }

type Previous = { account_holder_id: string; provider_id: string; data: Record<string, unknown> }

const LOCK_TIMEOUT_SECONDS = 15

/**
 * Removes a saved card from its customer's account holder, the one place it
 * lives (the provider is told too: `deletePaymentMethod`, which has nothing to
 * remove at the processor). A session created with the card before is
 * refused at checkout from then on (the guard reads the account holder).
 *
 * @throws MedusaError NOT_FOUND when the customer has no such card: another
 * customer's card is as unknown as one that never existed.
 */
export const removeSavedCardStep = createStep(
  "servicescan-remove-saved-card",
  async (input: RemoveSavedCardStepInput, { container }) => {
    const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    const locking = container.resolve<ILockingModule>(Modules.LOCKING)
    const loaded = await loadServiceScanAccountHolders(container, input.customer_id)
    const holder = loaded?.holders.find((candidate) => findSavedCard(candidate.data, input.card_id))
    if (!loaded || !holder) {
      throw new MedusaError(MedusaError.Types.NOT_FOUND, `Saved card ${input.card_id} was not found on your account.`)
    }
    const previous = await locking.execute(
      accountHolderLockKey(holder.id),
      async (): Promise<Previous> => {
        const fresh = await readAccountHolder(container, holder.id)
        const current = readAccountHolderData(fresh?.data)
        if (!fresh || !current || !findSavedCard(current, input.card_id)) {
          throw new MedusaError(MedusaError.Types.NOT_FOUND, `Saved card ${input.card_id} was not found on your account.`)
        }
        // Medusa 2.16 added deletePaymentMethods; on older versions there is nothing to tell the provider.
        if (typeof payments.deletePaymentMethods === "function") {
          await payments.deletePaymentMethods([
            { id: input.card_id, provider_id: holder.provider_id, context: { account_holder: { data: current } } },
          ])
        }
        await payments.updateAccountHolder({
          id: holder.id,
          provider_id: holder.provider_id,
          context: { account_holder: { data: withoutSavedCard(current, input.card_id) }, customer: loaded.customer },
        })
        return { account_holder_id: holder.id, provider_id: holder.provider_id, data: fresh.data ?? {} }
      },
      { timeout: LOCK_TIMEOUT_SECONDS }
    )
    return new StepResponse({ id: input.card_id, deleted: true }, previous)
  },
  async (previous, { container }) => {
    if (!previous) {
      return
    }
    const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    await payments.updateAccountHolder({
      id: previous.account_holder_id,
      provider_id: previous.provider_id,
      context: { account_holder: { data: previous.data } },
    })
  }
)
