import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import type { OperationOutcome } from "../processors/types"
import { applyOperationOutcomesStep } from "./steps/apply-operation-outcomes"

export type { AppliedOperationOutcome } from "./steps/apply-operation-outcomes"

/** The input: the processor's later word on operations it answered `pending` (a webhook's items, read by its processor's code). */
export type ApplyOperationOutcomeWorkflowInput = OperationOutcome[]

/**
 * Applies a processor's asynchronous outcomes of captures, refunds and
 * cancels (Adyen's CAPTURE, REFUND, CANCELLATION … notifications) to the
 * payments' data: each found by the processor's id of the payment, decided
 * once (a repeated notification changes nothing). A failed capture or refund
 * is logged for the merchant; nothing else is emitted for now.
 *
 * Answers one entry per outcome with its `effect`: `applied`, `unchanged`
 * (decided before), or `unmatched` (no payment records that operation: its
 * own answer may still be on its way into the payment's data, or it was made
 * outside Medusa). A webhook route may answer non-2xx for a recent
 * `unmatched` one, so the processor delivers it again.
 */
export const applyOperationOutcomeWorkflow = createWorkflow(
  "servicescan-apply-operation-outcome",
  (input: WorkflowData<ApplyOperationOutcomeWorkflowInput>) => new WorkflowResponse(applyOperationOutcomesStep(input))
)
