import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { deletePaymentSessionsWorkflow } from "@medusajs/medusa/core-flows"
import { CheckoutAttemptRef, inspectCheckoutSessionsStep } from "./steps/inspect-checkout-sessions"
import { markCheckoutAttemptsReconciledStep } from "./steps/mark-checkout-attempts-reconciled"

export type ReconcileCheckoutAttemptsInput = {
  /** Attempts last made long enough ago that no storefront is still completing them. */
  attempts: CheckoutAttemptRef[]
  now?: string
}

/**
 * One page of the checkout reconciliation job. An abandoned session (attempted,
 * never paid) is removed through Medusa's payment module, whose call to the
 * provider's `deletePayment` asks the processor what it holds under the
 * session's request id and releases a live authorization. A session the
 * provider could not settle (processor unreachable) is kept by Medusa and its
 * attempt stays open for the next run.
 */
export const reconcileCheckoutAttemptsWorkflow = createWorkflow(
  "servicescan-reconcile-checkout-attempts",
  (input: WorkflowData<ReconcileCheckoutAttemptsInput>) => {
    const sessions = inspectCheckoutSessionsStep(input.attempts)
    const ids = transform({ sessions }, ({ sessions }) => ({
      ids: sessions.abandoned.map((attempt) => attempt.payment_session_id),
    }))
    const deleted = deletePaymentSessionsWorkflow.runAsStep({ input: ids })
    const reconciled = transform({ sessions, deleted }, ({ sessions, deleted }) => {
      const gone = new Set(deleted)
      return [
        ...sessions.settled.map((attempt) => attempt.id),
        ...sessions.abandoned.filter((attempt) => gone.has(attempt.payment_session_id)).map((attempt) => attempt.id),
      ]
    })
    markCheckoutAttemptsReconciledStep({ ids: reconciled, now: input.now })
    const summary = transform({ sessions, reconciled }, ({ sessions, reconciled }) => ({
      settled: sessions.settled.length,
      abandoned: sessions.abandoned.length,
      reconciled: reconciled.length,
    }))
    return new WorkflowResponse(summary)
  }
)
