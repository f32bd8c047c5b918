import { createWorkflow, transform, when, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { processorIdFor } from "../providers/servicescan/ids"
import { checkSavedCardStep } from "./steps/check-saved-card"
import { findFormUsesStep } from "./steps/find-form-uses"
import { recordCheckoutAttemptStep } from "./steps/record-checkout-attempt"
import { CheckoutRefusal, checkoutRefusal, CheckoutSession, sessionSavedCard } from "./utils/checkout-session"

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
 * (the store route's middleware calls it, holding a lock on the form id, or
 * on the session for a saved card). Answers a refusal for a session whose
 * payment was canceled, whose form already paid elsewhere, or whose saved
 * card its customer has removed; otherwise records the attempt, so that a
 * form is spent once it has paid and an authorization whose answer was lost
 * can be found and released later (`reconcileCheckoutAttemptsWorkflow`).
 */
export const guardCartCompletionWorkflow = createWorkflow(
  "servicescan-guard-cart-completion",
  (input: WorkflowData<GuardCartCompletionInput>) => {
    const attempt = transform({ input }, ({ input }) => {
      const formId = input.session.data?.form_id
      const savedCard = sessionSavedCard(input.session)
      const hasForm = typeof formId === "string" && formId !== ""
      // Only a session with a submitted form or a saved card, and no payment yet, goes on to the processor.
      return (hasForm || savedCard) && !input.session.payment
        ? {
            payment_session_id: input.session.id,
            cart_id: input.cart_id,
            form_id: hasForm ? formId.toLowerCase() : null,
            payment_method_id: hasForm ? null : (savedCard?.card_id ?? null),
            request_id: processorIdFor(input.session.id),
          }
        : null
    })
    const formUse = transform({ attempt }, ({ attempt }) =>
      attempt?.form_id ? { form_id: attempt.form_id, payment_session_id: attempt.payment_session_id } : null
    )
    const paidElsewhere = findFormUsesStep(formUse)
    const cardCheck = transform({ input }, ({ input }) => {
      const savedCard = input.session.payment ? null : sessionSavedCard(input.session)
      return savedCard ? { ...savedCard, provider_id: input.session.provider_id } : null
    })
    const savedCardGone = checkSavedCardStep(cardCheck)
    const refusal = transform({ input, paidElsewhere, savedCardGone }, ({ input, paidElsewhere, savedCardGone }) =>
      checkoutRefusal(input.session, paidElsewhere, savedCardGone)
    )
    when({ refusal, attempt }, ({ refusal, attempt }) => !refusal && !!attempt).then(() => {
      recordCheckoutAttemptStep(attempt)
    })
    return new WorkflowResponse(transform({ refusal }, ({ refusal }): GuardCartCompletionResult => ({ refusal })))
  }
)
