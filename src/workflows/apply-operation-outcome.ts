import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep } from "@medusajs/medusa/core-flows"
import { PaymentOperationFailedEvent, ServiceScanEvents } from "../modules/servicescan/types"
import type { OperationOutcome } from "../processors/types"
import { AppliedOperationOutcome, applyOperationOutcomesStep } from "./steps/apply-operation-outcomes"

export type { AppliedOperationOutcome } from "./steps/apply-operation-outcomes"

/** The input: the processor's later word on operations it answered `pending` (a webhook's items, read by its processor's code). */
export type ApplyOperationOutcomeWorkflowInput = OperationOutcome[]

/**
 * Applies a processor's asynchronous outcomes of captures, refunds and
 * cancels (Adyen's CAPTURE, REFUND, CANCELLATION … notifications) to the
 * payments' data: each found by the processor's id of the payment, decided
 * once (a repeated notification changes nothing; a success may still turn
 * into a failure, never back). Each newly failed operation is logged and
 * emitted as `servicescan.payment_operation.failed`, which the alert
 * subscriber sends to the admin's bell (and by email when configured).
 *
 * Answers one entry per outcome with its `effect`: `applied`, `unchanged`
 * (decided before), or `unmatched` (no payment records that operation: its
 * own answer may still be on its way into the payment's data, or it was made
 * outside Medusa). A webhook route may answer non-2xx for a recent
 * `unmatched` one, so the processor delivers it again.
 */
export const applyOperationOutcomeWorkflow = createWorkflow(
  "servicescan-apply-operation-outcome",
  (input: WorkflowData<ApplyOperationOutcomeWorkflowInput>) => {
    const applied = applyOperationOutcomesStep(input)
    const failed = transform({ applied }, ({ applied }) =>
      applied.filter((result) => result.effect === "applied" && !result.success).map(paymentOperationFailedEvent)
    )
    emitEventStep({ eventName: ServiceScanEvents.PAYMENT_OPERATION_FAILED, data: failed }).config({
      name: "servicescan-emit-payment-operation-failed",
    })
    return new WorkflowResponse(applied)
  }
)

/** The event of a failed operation: ids and the processor's words only (no card data, no amount). */
export function paymentOperationFailedEvent(result: AppliedOperationOutcome): PaymentOperationFailedEvent {
  return {
    id: result.transaction_id,
    operation: result.operation,
    payment_transaction_id: result.payment_transaction_id,
    payment_id: result.payment_id,
    order_id: result.order_id,
    reason: result.reason,
    occurred_at: result.occurred_at,
  }
}
