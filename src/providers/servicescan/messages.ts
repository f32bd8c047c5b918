import type { DeclineReason } from "../../processors/types"

/**
 * What the shopper (and, for refusals, the merchant) reads when a payment
 * fails: every sentence the provider's errors carry, kept apart from how a
 * failure is classified (failures.ts) and from where the errors are built
 * (errors.ts, the only place). The storefront and the plugin's own routes
 * compare against these, so a sentence changes here or nowhere.
 */

export const SHOPPER_MESSAGES = {
  /**
   * Every decline that is about the card (its security code, funds, limit,
   * expiry, number, the issuer's "do not honor"...): one sentence, so that a
   * card tester learns nothing about the card from it. The exact reason stays
   * with the merchant: the processor's code and message on the error
   * (`processorResponse`) and in the provider's log line.
   */
  declined: "Your card was declined. Please check your card details or use a different card.",
  formExpired: "Your payment form expired. Please enter your card details again.",
  unavailable: "We could not reach the payment service. Please try again in a moment.",
  notProcessed: "We could not process your payment right now. Please try again in a moment.",
  configuration:
    "We could not process your payment right now. Please try again later or choose another payment method.",
  missingForm: "Please enter your card details before placing the order.",
  savedCardExpired: "This saved card has expired. Please enter your card details or choose another card.",
  savedCardUnusable: "This saved card can no longer be used. Please enter your card details or choose another card.",
  savedCardReselect: "We could not use your saved card. Please choose it again or enter your card details.",
} as const

/**
 * Why a saved card cannot be used or saved, before anything is sent anywhere.
 * Each is a request the shopper (or the storefront) can correct, so each says how.
 */
export const SAVED_CARD_REFUSALS = {
  disabled: "Saved cards are not enabled in this store. Enter your card details instead.",
  signInToPay: "Sign in to pay with a saved card, or enter your card details.",
  signInToSave: "Sign in to save your card, or pay without saving it.",
  notYours: "This saved card is not on your account. Choose one of your saved cards or enter your card details.",
  formAndCard: "Send either form_id (a card entered in the form) or payment_method_id (a saved card), not both.",
  saveSavedCard: "data.save_card applies to a card entered in the form; a saved card is already saved.",
} as const

export type SavedCardRefusal = keyof typeof SAVED_CARD_REFUSALS

/**
 * Why a payment session or a completion is refused because the card details
 * belong to another checkout, another customer or an older choice: a leaked
 * form id or cart id buys nothing. Each is refused before any call to the
 * service or the processor, and each tells the shopper what to do.
 */
export const CHECKOUT_TRUST_REFUSALS = {
  formBoundElsewhere: "These card details were entered for another checkout. Please enter your card details again.",
  savedCardSignIn: "Sign in to pay with this saved card, or enter your card details.",
  savedCardNotYours: SAVED_CARD_REFUSALS.notYours,
  savedCardChooseAgain: "Your saved card was chosen a while ago. Please choose the card again to pay.",
} as const

/** What the hosted form's validation codes other than 870 mean. */
export const FORM_CODE_PROBLEMS: Readonly<Record<string, string>> = {
  "871": "the card number is invalid",
  "872": "the card number is too short",
  "873": "the card number is too long",
  "874": "the card number must contain only digits",
  "875": "the card details could not be encrypted",
  "876": "the card details are invalid",
  "881": "the security code must contain only digits",
  "882": "the security code is too short",
  "883": "the security code is too long",
  "886": "the expiration date is invalid",
  "889": "the form could not be processed",
}

/** The shopper's message for a form validation code other than 870. */
export function formCodeMessage(code: string): string {
  const problem = FORM_CODE_PROBLEMS[code] ?? "the form reported a problem"
  return `The card details were not valid: ${problem} (${code}). Please check and try again.`
}

/**
 * The shopper's sentence per decline reason. Whatever is about the card gets
 * the one generic {@link SHOPPER_MESSAGES.declined}: a precise reason ("the
 * security code did not match", "insufficient funds", "the card has expired")
 * turns checkout into an oracle for someone testing stolen card numbers.
 * What stays specific tells nothing about the card and is something the
 * shopper can act on: the form or token is no longer usable (enter the card
 * again), the service, issuer or processor did not answer (try again in a
 * moment; the issuer is not named, as that would say where the card goes),
 * and the merchant's own setup (choose another payment method).
 */
export const DECLINE_MESSAGES: Readonly<Record<DeclineReason, string>> = {
  insufficient_funds: SHOPPER_MESSAGES.declined,
  expired_card: SHOPPER_MESSAGES.declined,
  invalid_card_number: SHOPPER_MESSAGES.declined,
  invalid_expiry: SHOPPER_MESSAGES.declined,
  invalid_cvv: SHOPPER_MESSAGES.declined,
  exceeds_limit: SHOPPER_MESSAGES.declined,
  partial_approval: SHOPPER_MESSAGES.declined,
  call_issuer: SHOPPER_MESSAGES.declined,
  restricted_card: SHOPPER_MESSAGES.declined,
  do_not_honor: SHOPPER_MESSAGES.declined,
  generic: SHOPPER_MESSAGES.declined,
  invalid_token: "We could not use your card details. Please enter your card details again.",
  expired_token: SHOPPER_MESSAGES.formExpired,
  issuer_unavailable: SHOPPER_MESSAGES.notProcessed,
  processing_error: SHOPPER_MESSAGES.notProcessed,
  merchant_configuration: SHOPPER_MESSAGES.configuration,
  invalid_amount: SHOPPER_MESSAGES.configuration,
  transaction_not_found: SHOPPER_MESSAGES.notProcessed,
  authorization_unavailable: SHOPPER_MESSAGES.notProcessed,
  exceeds_captured_amount: SHOPPER_MESSAGES.notProcessed,
  already_settled: SHOPPER_MESSAGES.notProcessed,
  already_captured: SHOPPER_MESSAGES.notProcessed,
}

/**
 * Decline reasons whose shopper message differs for a saved card (the card
 * itself has to change). They may say more than the generic decline: a saved
 * card pays only in its owner's signed-in session and was saved after it
 * paid, so telling the owner that their own card expired or can no longer be
 * used gives a card tester nothing to test with.
 */
export const SAVED_CARD_DECLINES: Partial<Record<DeclineReason, string>> = {
  expired_card: SHOPPER_MESSAGES.savedCardExpired,
  invalid_expiry: SHOPPER_MESSAGES.savedCardExpired,
  invalid_token: SHOPPER_MESSAGES.savedCardUnusable,
  expired_token: SHOPPER_MESSAGES.savedCardUnusable,
  invalid_card_number: SHOPPER_MESSAGES.savedCardUnusable,
}

/** Refusals a merchant can resolve from Medusa, and how. */
export const MERCHANT_HINTS: Partial<Record<DeclineReason, string>> = {
  // Typically a capture whose answer was lost: Medusa deleted its Capture, but
  // the processor took the money. A new capture reuses the request id, so the
  // processor answers with the original one and Medusa records it.
  already_captured:
    "The processor already captured this authorization, so it cannot be released: capture the payment in Medusa to record that capture, then refund it.",
}

/**
 * Whether a shopper's message says the payment could not be attempted (the
 * service or processor did not answer, the store's setup is broken) rather
 * than something about the card or the form: such a failure tells a card
 * tester nothing, and a shopper retrying through an outage must not use up
 * the velocity limits (api/store/carts/velocity.ts does not count it).
 */
export function isOutageMessage(message: unknown): boolean {
  return (
    message === SHOPPER_MESSAGES.unavailable ||
    message === SHOPPER_MESSAGES.notProcessed ||
    message === SHOPPER_MESSAGES.configuration
  )
}
