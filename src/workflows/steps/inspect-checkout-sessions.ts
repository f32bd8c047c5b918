import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"

export type CheckoutAttemptRef = { id: string; payment_session_id: string }

/**
 * Sorts attempts by what became of their session:
 * - `settled`: the session got a payment (the order's, or one canceled and
 *   released by Medusa's compensation), or it is gone (whoever removed it went
 *   through the provider's `deletePayment`, which released any authorization;
 *   had that failed, Medusa would have kept the session);
 * - `abandoned`: the session still exists without a payment, so an
 *   authorization whose answer was lost may hold the shopper's funds.
 * Reads only.
 */
export const inspectCheckoutSessionsStep = createStep(
  "servicescan-inspect-checkout-sessions",
  async (attempts: CheckoutAttemptRef[], { container }) => {
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const { data } = await query.graph({
      entity: "payment_session",
      fields: ["id", "payment.id"],
      filters: { id: attempts.map((attempt) => attempt.payment_session_id) },
    })
    const open = new Set(
      (data as { id: string; payment?: { id: string } | null }[])
        .filter((session) => !session.payment)
        .map((session) => session.id)
    )
    const abandoned = attempts.filter((attempt) => open.has(attempt.payment_session_id))
    const settled = attempts.filter((attempt) => !open.has(attempt.payment_session_id))
    return new StepResponse({ abandoned, settled })
  }
)
