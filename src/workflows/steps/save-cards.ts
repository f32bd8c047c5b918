import type { ILockingModule, IPaymentModuleService, Logger } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { readAccountHolderData, savedCardSchema, withSavedCard } from "../../providers/servicescan/saved-cards"
import { accountHolderLockKey, loadServiceScanAccountHolders, readAccountHolder } from "../utils/account-holders"
import type { CardToSave } from "./find-cards-to-save"

type Previous = { account_holder_id: string; provider_id: string; data: Record<string, unknown> }

const LOCK_TIMEOUT_SECONDS = 15

/**
 * Adds each card to its customer's account holder: the provider makes the
 * card from the paid form (`savePaymentMethod`: the token again from the
 * exchange, sealed), and the account holder's data is written with it
 * (`updateAccountHolder`), under a lock per account holder so two saves at
 * once do not lose one. A card already saved stays one card. A card that
 * cannot be saved (the form expired, the customer has no account holder) is
 * logged and skipped: the order is placed either way. The compensation puts
 * back the data each write replaced.
 */
export const saveCardsStep = createStep(
  "servicescan-save-cards",
  async (cards: CardToSave[], { container }) => {
    const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    const locking = container.resolve<ILockingModule>(Modules.LOCKING)
    const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
    const previous: Previous[] = []
    const saved: string[] = []
    for (const card of cards) {
      const loaded = await loadServiceScanAccountHolders(container, card.customer_id)
      const holder = loaded?.holders.find((candidate) => candidate.provider_id === card.provider_id)
      if (!loaded || !holder) {
        logger.warn(`servicescan: card of payment ${card.payment_id} not saved: customer ${card.customer_id} has no account holder`)
        continue
      }
      try {
        await locking.execute(
          accountHolderLockKey(holder.id),
          async () => {
            // Read again under the lock: another save may have written since.
            const fresh = await readAccountHolder(container, holder.id)
            const current = readAccountHolderData(fresh?.data)
            if (!fresh || !current) {
              throw new Error(`the account holder ${holder.id} holds no ServiceScan customer record`)
            }
            const method = await payments.createPaymentMethods({
              provider_id: card.provider_id,
              data: {
                form_id: card.form_id,
                card: card.card,
                payment_id: card.payment_id,
                ...(card.token_fingerprint ? { token_fingerprint: card.token_fingerprint } : {}),
              },
              context: { account_holder: { data: current }, customer: loaded.customer, idempotency_key: card.payment_id },
            })
            const record = savedCardSchema.parse(method.data)
            await payments.updateAccountHolder({
              id: holder.id,
              provider_id: card.provider_id,
              context: { account_holder: { data: withSavedCard(current, record) }, customer: loaded.customer },
            })
            previous.push({ account_holder_id: holder.id, provider_id: card.provider_id, data: fresh.data ?? {} })
            saved.push(record.id)
          },
          { timeout: LOCK_TIMEOUT_SECONDS }
        )
      } catch (error) {
        logger.warn(
          `servicescan: card of payment ${card.payment_id} not saved: ${error instanceof Error ? error.message : String(error)}`
        )
      }
    }
    return new StepResponse(saved, previous)
  },
  async (previous, { container }) => {
    if (!previous?.length) {
      return
    }
    const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    // Newest first, so each account holder ends with the data it had before this step.
    for (const entry of [...previous].reverse()) {
      await payments.updateAccountHolder({
        id: entry.account_holder_id,
        provider_id: entry.provider_id,
        context: { account_holder: { data: entry.data } },
      })
    }
  }
)
