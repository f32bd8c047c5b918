import { createWorkflow, transform, when, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { processorIdFor } from "../providers/servicescan/ids"
import { findFormUsesStep } from "./steps/find-form-uses"
import { recordCheckoutAttemptStep } from "./steps/record-checkout-attempt"
import { CheckoutRefusal, checkoutRefusal, CheckoutSession } from "./utils/checkout-session"

export type GuardCartCompletionInput = {
  cart_id: string
  /** The ServiceScan session Medusa's completion will authorize (see `pickServiceScanSession`). */
  session: CheckoutSession
}

export type GuardCartCompletionResult = {
  /** Why the completion must not go ahead (the storefront starts a new session), or null. */
  refusal: CheckoutRefusal | null
}

/**
 * Runs before Medusa's cart completion for carts paid through ServiceScan
 * (the store route's middleware calls it, holding a lock on the form id).
 * Answers a refusal for a session whose payment was canceled or whose form
 * already paid elsewhere; otherwise records the attempt, so that a form is
 * spent once it has paid and an authorization whose answer was lost can be
 * found and released later (`reconcileCheckoutAttemptsWorkflow`).
 */
export const guardCartCompletionWorkflow = createWorkflow(
  "servicescan-guard-cart-completion",
  (input: WorkflowData<GuardCartCompletionInput>) => {
    const attempt = transform({ input }, ({ input }) => {
      const formId = input.session.data?.form_id
      // Only a session with a submitted form and no payment yet goes on to the processor.
      return typeof formId === "string" && formId !== "" && !input.session.payment
        ? {
            payment_session_id: input.session.id,
            cart_id: input.cart_id,
            form_id: formId.toLowerCase(),
            request_id: processorIdFor(input.session.id),
          }
        : null
    })
    const paidElsewhere = findFormUsesStep(attempt)
    const refusal = transform({ input, paidElsewhere }, ({ input, paidElsewhere }) =>
      checkoutRefusal(input.session, paidElsewhere)
    )
    when({ refusal, attempt }, ({ refusal, attempt }) => !refusal && !!attempt).then(() => {
      recordCheckoutAttemptStep(attempt)
    })
    return new WorkflowResponse(transform({ refusal }, ({ refusal }): GuardCartCompletionResult => ({ refusal })))
  }
)
