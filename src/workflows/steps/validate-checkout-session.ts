import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { assertSessionCanPay, CheckoutSession } from "../utils/checkout-session"

/** Refuses a completion that would place an order with nothing paid, or pay twice with one form. */
export const validateCheckoutSessionStep = createStep(
  "servicescan-validate-checkout-session",
  async (input: { session: CheckoutSession; paid_elsewhere: string[] }) => {
    assertSessionCanPay(input.session, input.paid_elsewhere)
    return new StepResponse(undefined)
  }
)
