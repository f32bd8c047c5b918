import type { IPaymentModuleService, Logger } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { OperationOutcome } from "../../processors/types"
import { applyOperationOutcome, OutcomeEffect } from "../../providers/servicescan/operation-outcomes"
import { parsePaymentData } from "../../providers/servicescan/payment-data"

/** What one outcome did: the payment it found (if any) and the effect on its data. */
export type AppliedOperationOutcome = {
  operation: OperationOutcome["operation"]
  transaction_id: string
  payment_transaction_id: string
  success: boolean
  /** The Medusa payment whose data records the operation; null when none does. */
  payment_id: string | null
  effect: OutcomeEffect
}

type Previous = { id: string; data: Record<string, unknown> }

/**
 * Finds each outcome's payment by the processor's id of the payment (the
 * `PaymentRef` recorded when its order was placed; payment data's
 * `cnp_txn_id`), applies the outcome to its data (operation-outcomes.ts) and
 * saves it. The compensation puts back the data this run changed.
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
    for (const outcome of outcomes) {
      const base = {
        operation: outcome.operation,
        transaction_id: outcome.transactionId,
        payment_transaction_id: outcome.paymentTransactionId,
        success: outcome.success,
      }
      const candidates = refs.filter((ref) => ref.processor_transaction_id === outcome.paymentTransactionId)
      let applied: AppliedOperationOutcome = { ...base, payment_id: null, effect: "unmatched" }
      for (const ref of candidates) {
        const payment = await payments.retrievePayment(ref.payment_id, { select: ["id", "data"] })
        const data = parsePaymentData(payment.data ?? undefined)
        if (!data || data.cnp_txn_id !== outcome.paymentTransactionId) {
          continue
        }
        const { data: next, effect } = applyOperationOutcome(data, outcome)
        applied = { ...base, payment_id: payment.id, effect }
        if (effect === "applied") {
          previous.push({ id: payment.id, data: payment.data ?? {} })
          // The payment module's update takes `data` though its DTO type names only `id`.
          const update = { id: payment.id, data: next }
          await payments.updatePayment(update)
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
