import { createWorkflow, transform, when, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { processorIdFor } from "../providers/servicescan/ids"
import { guardCheckoutStep } from "./steps/guard-checkout"
import { recordCheckoutSignalStep } from "./steps/record-checkout-signal"
import { CheckoutRefusal, CheckoutSession, sessionSavedCard } from "./utils/checkout-session"

export type GuardCartCompletionInput = {
  cart_id: string
  /** The ServiceScan session Medusa's completion will authorize (see `pickServiceScanSession`). */
  session: CheckoutSession
  /**
   * The customer the completing request is signed in as (the store route's
   * `auth_context`); null or absent for a guest. A session with a saved card
   * completes only for its owner.
   */
  customer_id?: string | null
  /**
   * The completing request as Express resolved it: the client IP under
   * Medusa's trusted-proxy setting (`req.ip`) and the User-Agent header.
   * Recorded with the session's device id once the card goes to the processor.
   */
  request?: { ip: string | null; user_agent: string | null }
}

export type GuardCartCompletionResult = {
  /** Why the completion must not go ahead (the storefront starts a new session), or null. */
  refusal: CheckoutRefusal | null
}

/**
 * Runs before Medusa's cart completion for carts paid through ServiceScan
 * (the store route's middleware calls it, holding a lock on the form id, or
 * on the session for a saved card). Answers a refusal for a saved-card
 * session completed by anyone but its signed-in owner or past its deadline,
 * a form id bound to another checkout, a session whose payment was canceled,
 * whose form already paid elsewhere, or whose saved card its customer has
 * removed; otherwise records the attempt, so that a
 * form is spent once it has paid and an authorization whose answer was lost
 * can be found and released later (`reconcileCheckoutAttemptsWorkflow`),
 * and records the checkout's signals as evidence (`recordCheckoutSignalStep`).
 * Two steps: it runs on every checkout (see `guardCheckoutStep`).
 */
export const guardCartCompletionWorkflow = createWorkflow(
  "servicescan-guard-cart-completion",
  (input: WorkflowData<GuardCartCompletionInput>) => {
    const guard = transform({ input }, ({ input }) => {
      const formId = input.session.data?.form_id
      const savedCard = sessionSavedCard(input.session)
      const hasForm = typeof formId === "string" && formId !== ""
      // Only a session with a submitted form or a saved card, and no payment yet, goes on to the processor.
      const attempt =
        (hasForm || savedCard) && !input.session.payment
          ? {
              payment_session_id: input.session.id,
              cart_id: input.cart_id,
              form_id: hasForm ? formId.toLowerCase() : null,
              payment_method_id: hasForm ? null : (savedCard?.card_id ?? null),
              request_id: processorIdFor(input.session.id),
            }
          : null
      return { session: input.session, attempt, customer_id: input.customer_id ?? null }
    })
    const guarded = guardCheckoutStep(guard)
    const signal = transform({ input, guard }, ({ input, guard }) =>
      guard.attempt
        ? {
            payment_session_id: guard.attempt.payment_session_id,
            cart_id: guard.attempt.cart_id,
            customer_id: guard.customer_id,
            ip_address: input.request?.ip ?? null,
            user_agent: input.request?.user_agent ?? null,
            // Checked when the session was created (bound-session-data.ts); the module bounds it again.
            device_id: typeof input.session.data?.device_id === "string" ? input.session.data.device_id : null,
          }
        : null
    )
    // Only a completion that goes on to the processor is evidence of anything.
    when("servicescan-checkout-goes-ahead", { guarded, signal }, ({ guarded, signal }) => !guarded.refusal && signal !== null).then(() => {
      recordCheckoutSignalStep(signal)
    })
    return new WorkflowResponse<GuardCartCompletionResult>(guarded)
  }
)
