import type { ILockingModule, IPaymentModuleService, Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { OperationOutcome } from "../../processors/types"
import { applyOperationOutcome, OutcomeEffect } from "../../providers/servicescan/operation-outcomes"
import { parsePaymentData } from "../../providers/servicescan/payment-data"
import { PAYMENT_LOCK_TIMEOUT_SECONDS, paymentLockKey } from "../../providers/servicescan/payment-lock"

/** What one outcome did: the payment it found (if any) and the effect on its data. */
export type AppliedOperationOutcome = {
  operation: OperationOutcome["operation"]
  transaction_id: string
  payment_transaction_id: string
  success: boolean
  /** The processor's words for a failure. */
  reason: string | null
  occurred_at: string
  /** The Medusa payment whose data records the operation; null when none does. */
  payment_id: string | null
  /** The order the payment belongs to, when it is known. */
  order_id: string | null
  effect: OutcomeEffect
}

type Previous = { id: string; data: Record<string, unknown> }

/**
 * Finds each outcome's payment by the processor's id of the payment (the
 * `PaymentRef` recorded when its order was placed; payment data's
 * `cnp_txn_id`), applies the outcome to its data (operation-outcomes.ts) and
 * saves it, holding the payment's lock (payment-lock.ts) from read to write.
 * The compensation puts back the data this run changed.
 */
export const applyOperationOutcomesStep = createStep(
  "servicescan-apply-operation-outcomes",
  async (outcomes: OperationOutcome[], { container }) => {
    const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
    const refs = outcomes.length
      ? await container
          .resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
          .listPaymentRefs(
            { processor_transaction_id: [...new Set(outcomes.map((outcome) => outcome.paymentTransactionId))] },
            { select: ["payment_id", "processor_transaction_id"], take: null }
          )
      : []
    const previous: Previous[] = []
    const results: AppliedOperationOutcome[] = []
    const locking = container.resolve<ILockingModule>(Modules.LOCKING)
    for (const outcome of outcomes) {
      const base = {
        operation: outcome.operation,
        transaction_id: outcome.transactionId,
        payment_transaction_id: outcome.paymentTransactionId,
        success: outcome.success,
        reason: outcome.reason ?? null,
        occurred_at: outcome.occurredAt,
        order_id: null,
      }
      const candidates = refs.filter((ref) => ref.processor_transaction_id === outcome.paymentTransactionId)
      let applied: AppliedOperationOutcome = { ...base, payment_id: null, effect: "unmatched" }
      for (const ref of candidates) {
        // Read, change and write under the payment's lock: a capture or refund running at the
        // same moment writes the same data (payment-lock.ts).
        const found = await locking.execute(
          paymentLockKey(ref.payment_id),
          async () => {
            const payment = await payments.retrievePayment(ref.payment_id, { select: ["id", "data", "payment_collection_id"] })
            const data = parsePaymentData(payment.data ?? undefined)
            if (!data || data.cnp_txn_id !== outcome.paymentTransactionId) {
              return null
            }
            const { data: next, effect } = applyOperationOutcome(data, outcome)
            if (effect === "applied") {
              previous.push({ id: payment.id, data: payment.data ?? {} })
              // The payment module's update takes `data` though its DTO type names only `id`.
              const update = { id: payment.id, data: next }
              await payments.updatePayment(update)
            }
            return { payment_id: payment.id, payment_collection_id: payment.payment_collection_id, effect }
          },
          { timeout: PAYMENT_LOCK_TIMEOUT_SECONDS }
        )
        if (!found) {
          continue
        }
        applied = { ...base, payment_id: found.payment_id, effect: found.effect }
        if (found.effect === "applied" && !outcome.success) {
          applied.order_id = await orderOf(container, found.payment_collection_id)
        }
        break
      }
      if (applied.effect === "applied" && !outcome.success) {
        logger.warn(
          `servicescan: the processor failed ${outcome.operation} ${outcome.transactionId} of payment ${applied.payment_id} after accepting it` +
            `${outcome.reason ? ` (${outcome.reason})` : ""}; Medusa still records it: check the payment at the processor and correct the order`
        )
      }
      results.push(applied)
    }
    return new StepResponse(results, previous)
  },
  async (previous, { container }) => {
    if (!previous?.length) {
      return
    }
    const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
    for (const { id, data } of previous) {
      const update = { id, data }
      await payments.updatePayment(update)
    }
  }
)

/** The order a payment collection belongs to, if any. */
async function orderOf(container: MedusaContainer, paymentCollectionId: string | undefined): Promise<string | null> {
  if (!paymentCollectionId) {
    return null
  }
  const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: "order_payment_collection",
    fields: ["order_id"],
    filters: { payment_collection_id: paymentCollectionId },
  })
  const orderId = (data[0] as { order_id?: string } | undefined)?.order_id
  return typeof orderId === "string" ? orderId : null
}
