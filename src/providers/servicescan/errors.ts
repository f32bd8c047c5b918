import { MedusaError } from "@medusajs/framework/utils"
import {
  HttpAuthError,
  HttpConnectionError,
  HttpError,
  HttpStatusError,
  UnreadableResponseError,
  HttpTimeoutError,
  isTransientStatus,
} from "../../lib/http"
import {
  DeclineReason,
  GatewayConfigurationError,
  GatewayError,
  GatewayProtocolError,
  GatewayResult,
} from "./gateways/types"

/**
 * Every failure of a remote call, whatever raised it (the HTTP core, the
 * service, a gateway, a processor's decline, the form's own validation),
 * becomes a ServiceScanPaymentError here and nowhere else: a processor's
 * decline through {@link declineError}, a form code through
 * {@link formCodeError}, anything thrown through {@link toMedusaError}. All
 * three classify, then build the final error in one function.
 *
 * Two audiences:
 * - The shopper, during authorization: a PAYMENT_AUTHORIZATION_ERROR with a
 *   plain-language message. Medusa's cart completion answers that type with
 *   HTTP 200 `{ type: "cart", cart, error: { message, name, type } }`, so the
 *   storefront can show the message and let the shopper try again; no order is
 *   created.
 * - The merchant: the raw processor code and message (`processorResponse`),
 *   the failure's category and a technical `detail`, on the error object and in
 *   one structured log line written by the provider. None of them ever holds
 *   the processor token, an API key or a password.
 */

export type PaymentOperation =
  | "initiate"
  | "update"
  | "authorize"
  | "capture"
  | "refund"
  | "cancel"
  | "delete"
  | "save"

/** Where the failing call went. */
export type FailureStage = "form" | "exchange" | "processor"

/**
 * - declined: the processor (or the form's validation) said no; the shopper can act.
 * - form_expired: the form id is unknown or expired; the shopper re-enters the card.
 * - configuration: the merchant's setup is wrong (keys, credentials, processor); retrying cannot help.
 * - unavailable: no answer (timeout, connection, 5xx, 429); retrying may help.
 * - protocol: an answer nobody can read; retrying may help, the merchant should look.
 */
export type FailureCategory = "declined" | "form_expired" | "configuration" | "unavailable" | "protocol"

export type ProcessorResponse = { code: string; message: string }

/** The MedusaError this provider throws for remote failures; extra fields are for the merchant. */
export class ServiceScanPaymentError extends MedusaError {
  readonly operation: PaymentOperation
  readonly stage: FailureStage
  readonly category: FailureCategory
  /** The raw code and message of the processor (or the form's validation code), when there was one. */
  readonly processorResponse?: ProcessorResponse
  /** Technical description for logs and admins. Never holds secrets. */
  readonly detail: string
  /** True when the processor may have done the operation although we saw no answer (timeouts). */
  readonly outcomeUnknown: boolean

  constructor(init: {
    type: string
    message: string
    operation: PaymentOperation
    stage: FailureStage
    category: FailureCategory
    detail: string
    processorResponse?: ProcessorResponse
    outcomeUnknown?: boolean
  }) {
    super(init.type, init.message)
    this.name = "ServiceScanPaymentError"
    this.operation = init.operation
    this.stage = init.stage
    this.category = init.category
    this.detail = init.detail
    this.processorResponse = init.processorResponse
    this.outcomeUnknown = init.outcomeUnknown ?? false
  }
}

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

/** A refused saved-card request as the MedusaError the store API answers with (400 with the sentence). */
export function savedCardRefusal(reason: SavedCardRefusal): MedusaError {
  const type =
    reason === "formAndCard" || reason === "saveSavedCard"
      ? MedusaError.Types.INVALID_DATA
      : MedusaError.Types.NOT_ALLOWED
  return new MedusaError(type, SAVED_CARD_REFUSALS[reason])
}

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

/** A form id presented outside the checkout it was first sent into, as the store API answers it (400). */
export function formBoundElsewhereError(): MedusaError {
  return new MedusaError(MedusaError.Types.NOT_ALLOWED, CHECKOUT_TRUST_REFUSALS.formBoundElsewhere)
}

/**
 * A saved card whose sealed token does not open for this session (sealed
 * under another secret, for another customer, or altered): nothing is sent
 * to the processor, and the shopper picks the card again or types one.
 */
export function savedCardUnopenedError(context: FailureContext, detail: string): ServiceScanPaymentError {
  return build(
    { category: "form_expired", shopperMessage: SHOPPER_MESSAGES.savedCardReselect, detail },
    { ...context, stage: "form" }
  )
}

const FORM_CODE_PROBLEMS: Readonly<Record<string, string>> = {
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
const DECLINE_MESSAGES: Readonly<Record<DeclineReason, string>> = {
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

/** Decline reasons that are the merchant's setup, not the card. */
const CONFIGURATION_REASONS: ReadonlySet<DeclineReason> = new Set([
  "merchant_configuration",
  "invalid_amount",
])
/** Decline reasons where trying again later may succeed. */
const TRANSIENT_REASONS: ReadonlySet<DeclineReason> = new Set(["issuer_unavailable", "processing_error"])

const OPERATION_VERBS: Readonly<Record<PaymentOperation, string>> = {
  initiate: "start the payment",
  update: "update the payment",
  authorize: "authorize the payment",
  capture: "capture the payment",
  refund: "refund the payment",
  cancel: "cancel the payment",
  delete: "release the payment",
  save: "save the card",
}

type Classified = {
  category: FailureCategory
  /** The shopper's message (authorize only). */
  shopperMessage: string
  detail: string
  processorResponse?: ProcessorResponse
  outcomeUnknown?: boolean
  /** What the merchant can do about a refusal (admin operations only). */
  merchantHint?: string
}

/** Refusals a merchant can resolve from Medusa, and how. */
const MERCHANT_HINTS: Partial<Record<DeclineReason, string>> = {
  // Typically a capture whose answer was lost: Medusa deleted its Capture, but
  // the processor took the money. A new capture reuses the request id, so the
  // processor answers with the original one and Medusa records it.
  already_captured:
    "The processor already captured this authorization, so it cannot be released: capture the payment in Medusa to record that capture, then refund it.",
}

/** Where a failure happened, and how to keep secrets out of its texts. */
export type FailureContext = {
  operation: PaymentOperation
  stage: FailureStage
  gateway?: string
  /** Applied to the error's message and detail before they exist anywhere (the provider's redaction). */
  scrub?: (text: string) => string
  /** The card is one the customer saved: its problems are told as the saved card's. */
  savedCard?: boolean
}

/**
 * Decline reasons whose shopper message differs for a saved card (the card
 * itself has to change). They may say more than the generic decline: a saved
 * card pays only in its owner's signed-in session and was saved after it
 * paid, so telling the owner that their own card expired or can no longer be
 * used gives a card tester nothing to test with.
 */
const SAVED_CARD_DECLINES: Partial<Record<DeclineReason, string>> = {
  expired_card: SHOPPER_MESSAGES.savedCardExpired,
  invalid_expiry: SHOPPER_MESSAGES.savedCardExpired,
  invalid_token: SHOPPER_MESSAGES.savedCardUnusable,
  expired_token: SHOPPER_MESSAGES.savedCardUnusable,
  invalid_card_number: SHOPPER_MESSAGES.savedCardUnusable,
}

/**
 * Whether a processor's answer is the card being declined (the reasons the
 * shopper gets the generic decline for; not an outage, the merchant's setup
 * or an unusable token): what the per-card velocity limit counts.
 */
export function isCardDecline(result: GatewayResult): boolean {
  return result.outcome === "declined" && DECLINE_MESSAGES[result.reason ?? "generic"] === SHOPPER_MESSAGES.declined
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

/**
 * The cart error's `name` of a completion refused by a velocity limit. The
 * plugin's middleware on `POST /store/carts/:id/complete` answers it as a 429
 * with Retry-After; keep the two in step.
 */
export const TOO_MANY_ATTEMPTS = "ServiceScanTooManyAttempts"

/**
 * A card over its velocity limit (too many declines lately), refused before
 * anything is sent to the processor. The shopper's sentence says only when to
 * try again; the merchant's detail says which limit.
 */
export function tooManyAttemptsError(
  refusal: { message: string; detail: string },
  context: FailureContext
): ServiceScanPaymentError {
  const error = build(
    { category: "declined", shopperMessage: refusal.message, detail: refusal.detail },
    { ...context, stage: "processor" }
  )
  error.name = TOO_MANY_ATTEMPTS
  return error
}

/** A processor's answer that was not an approval, as the error the provider throws. */
export function declineError(result: GatewayResult, context: FailureContext): ServiceScanPaymentError {
  const classified = classifyDecline(context.gateway ?? "the processor", result)
  const savedCardMessage = context.savedCard ? SAVED_CARD_DECLINES[result.reason ?? "generic"] : undefined
  return build(savedCardMessage ? { ...classified, shopperMessage: savedCardMessage } : classified, context)
}

/** The hosted form's validation code other than 870, as the error the provider throws. Nothing was sent anywhere. */
export function formCodeError(code: string, context: FailureContext): ServiceScanPaymentError {
  return build(
    {
      category: "declined",
      shopperMessage: formCodeMessage(code),
      detail: `the hosted form reported validation code ${code}; nothing was sent to the service`,
      processorResponse: { code, message: FORM_CODE_PROBLEMS[code] ?? "form validation failed" },
    },
    { ...context, stage: "form" }
  )
}

/**
 * Maps any failure of a remote call to the MedusaError this provider throws.
 *
 * - authorize: PAYMENT_AUTHORIZATION_ERROR with the shopper's message, or
 *   CONFLICT when the processor may have acted without our seeing its answer.
 * - capture / refund / cancel / delete (admin and compensation paths):
 *   NOT_ALLOWED (HTTP 400) for the processor's refusals, UNEXPECTED_STATE for
 *   setup, network and protocol failures; the message names the raw processor
 *   code, since the reader is the merchant.
 *
 * A MedusaError passes through unchanged.
 */
export function toMedusaError(error: unknown, context: FailureContext): MedusaError {
  if (error instanceof MedusaError || (error instanceof Error && MedusaError.isMedusaError(error))) {
    return error as MedusaError
  }
  return build(classify(error, context), context)
}

/** The one place a ServiceScanPaymentError is made from what a failure was classified as. */
function build(classified: Classified, context: FailureContext): ServiceScanPaymentError {
  const { stage } = context
  const scrub = context.scrub ?? ((text: string) => text)
  classified = { ...classified, detail: scrub(classified.detail) }

  if (context.operation === "authorize") {
    return new ServiceScanPaymentError({
      // The processor may have authorized although no answer came back. A
      // PAYMENT_AUTHORIZATION_ERROR would reach the storefront as a settled
      // failure (200 with a cart error), and a storefront then pays again in a
      // new session: a second authorization. CONFLICT (HTTP 409) says "not
      // settled": completing the same session again reuses the request id, and
      // the processor's duplicate detection answers with the original result.
      type:
        classified.outcomeUnknown && stage === "processor"
          ? MedusaError.Types.CONFLICT
          : MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
      message: classified.shopperMessage,
      operation: context.operation,
      stage,
      category: classified.category,
      detail: classified.detail,
      processorResponse: classified.processorResponse,
      outcomeUnknown: classified.outcomeUnknown,
    })
  }

  const who = stage === "processor" ? capitalize(context.gateway ?? "the processor") : "The ServiceScan service"
  const code = classified.processorResponse
    ? ` (${classified.processorResponse.code} ${classified.processorResponse.message})`.trimEnd()
    : ""
  const message =
    classified.category === "declined"
      ? `${who} did not ${OPERATION_VERBS[context.operation]}${code}.${classified.merchantHint ? ` ${classified.merchantHint}` : ""}`
      : `Could not ${OPERATION_VERBS[context.operation]}: ${sentence(classified.detail)}${
          classified.outcomeUnknown
            ? " The outcome is unknown; retrying is safe (the request id is reused)."
            : ""
        }`
  return new ServiceScanPaymentError({
    type:
      classified.category === "declined"
        ? MedusaError.Types.NOT_ALLOWED
        : MedusaError.Types.UNEXPECTED_STATE,
    message: scrub(message),
    operation: context.operation,
    stage,
    category: classified.category,
    detail: classified.detail,
    processorResponse: classified.processorResponse,
    outcomeUnknown: classified.outcomeUnknown,
  })
}

function classifyDecline(gateway: string, result: GatewayResult): Classified {
  const reason = result.reason ?? "generic"
  return {
    category: CONFIGURATION_REASONS.has(reason)
      ? "configuration"
      : TRANSIENT_REASONS.has(reason)
        ? "unavailable"
        : "declined",
    shopperMessage: DECLINE_MESSAGES[reason],
    detail: `${gateway} answered ${result.responseCode} ${result.message} (${reason})`,
    processorResponse: { code: result.responseCode, message: result.message },
    merchantHint: MERCHANT_HINTS[reason],
  }
}

function classify(error: unknown, context: FailureContext): Classified {
  if (error instanceof GatewayConfigurationError) {
    return {
      category: "configuration",
      shopperMessage: SHOPPER_MESSAGES.configuration,
      detail: `${error.message}. Check the provider's gateway options (merchant id, user, password, url).`,
      processorResponse: gatewayResponse(error),
    }
  }
  if (error instanceof GatewayProtocolError) {
    return {
      category: "protocol",
      shopperMessage: SHOPPER_MESSAGES.notProcessed,
      detail: error.message,
      outcomeUnknown: true,
    }
  }
  if (error instanceof GatewayError) {
    return {
      category: "unavailable",
      shopperMessage: SHOPPER_MESSAGES.notProcessed,
      detail: error.message,
      processorResponse: gatewayResponse(error),
      outcomeUnknown: true,
    }
  }

  if (error instanceof HttpError) {
    return context.stage === "exchange"
      ? classifyExchangeFailure(error)
      : classifyProcessorTransportFailure(error, context.gateway ?? "the processor")
  }

  // A custom gateway threw something untyped: we cannot know what happened.
  return {
    category: "unavailable",
    shopperMessage: SHOPPER_MESSAGES.notProcessed,
    detail: `unexpected error from ${context.gateway ?? context.stage}: ${describe(error)}`,
    outcomeUnknown: context.stage === "processor",
  }
}

/**
 * The spec leaves the exchange's errors unstated. The mapping follows what the
 * service's form records can be (and what the sandbox answers): unknown (404)
 * or expired (410) form, a form that failed validation (422 with its
 * `responseCode`), a card the processor refused to tokenize (402 with
 * `processorResponse`), a key problem (401/403), or an outage.
 */
function classifyExchangeFailure(error: HttpError): Classified {
  if (error instanceof HttpAuthError) {
    return {
      category: "configuration",
      shopperMessage: SHOPPER_MESSAGES.configuration,
      detail: `the token exchange refused the payment-token API key (${[error.status, error.serviceMessage]
        .filter(Boolean)
        .join(" ")}). Check the paymentTokenApiKey option.`,
    }
  }
  if (error instanceof HttpTimeoutError || error instanceof HttpConnectionError) {
    return { category: "unavailable", shopperMessage: SHOPPER_MESSAGES.unavailable, detail: error.message }
  }
  if (error instanceof UnreadableResponseError) {
    return {
      category: "protocol",
      shopperMessage: SHOPPER_MESSAGES.notProcessed,
      detail: `${error.message} (${String(error.body)})`,
    }
  }
  if (error instanceof HttpStatusError) {
    const body = record(error.body)
    const detail = [`the token exchange answered ${error.status}`, error.serviceMessage].filter(Boolean).join(" ")
    if (error.status === 404 && /processor/i.test(error.serviceMessage ?? "")) {
      return {
        category: "configuration",
        shopperMessage: SHOPPER_MESSAGES.configuration,
        detail: `${detail}. Check the processor option.`,
      }
    }
    if (error.status === 404 || error.status === 410) {
      return { category: "form_expired", shopperMessage: SHOPPER_MESSAGES.formExpired, detail }
    }
    const formCode = typeof body?.responseCode === "string" ? body.responseCode : undefined
    if (formCode && formCode !== "870") {
      return {
        category: "declined",
        shopperMessage: formCodeMessage(formCode),
        detail,
        processorResponse: { code: formCode, message: error.serviceMessage ?? "form validation failed" },
      }
    }
    if (error.status === 402) {
      const code = stringOf(body?.processorResponse)
      return {
        // The processor would not register the card number: that says whether a number is real.
        category: "declined",
        shopperMessage: SHOPPER_MESSAGES.declined,
        detail,
        processorResponse: code
          ? { code, message: stringOf(body?.processorMessage) ?? "" }
          : undefined,
      }
    }
    if (isTransientStatus(error.status) || error.status >= 500) {
      return { category: "unavailable", shopperMessage: SHOPPER_MESSAGES.unavailable, detail }
    }
    return {
      category: "form_expired",
      shopperMessage: "We could not read your card details. Please enter them again.",
      detail,
    }
  }
  return { category: "unavailable", shopperMessage: SHOPPER_MESSAGES.unavailable, detail: error.message }
}

function classifyProcessorTransportFailure(error: HttpError, gateway: string): Classified {
  if (error instanceof HttpAuthError) {
    return {
      category: "configuration",
      shopperMessage: SHOPPER_MESSAGES.configuration,
      detail: `${gateway} refused the credentials (${error.status}). Check the provider's gateway options.`,
    }
  }
  if (error instanceof HttpStatusError && !isTransientStatus(error.status) && error.status < 500) {
    return {
      category: "configuration",
      shopperMessage: SHOPPER_MESSAGES.configuration,
      detail: `${[`${gateway} answered ${error.status}`, error.serviceMessage?.slice(0, 200)]
        .filter(Boolean)
        .join(" ")}. Check the gateway url.`,
    }
  }
  // Timeouts, resets and 5xx once a connection was up: the processor may have
  // acted. Retrying the same Medusa operation reuses the request id, so
  // cnpAPI's duplicate detection answers with the original result instead of
  // acting twice. Only a connection that never opened proves nothing was sent.
  const neverConnected =
    (error instanceof HttpConnectionError || error instanceof HttpTimeoutError) && !error.connected
  return {
    category: "unavailable",
    shopperMessage: SHOPPER_MESSAGES.unavailable,
    detail: error.message,
    outcomeUnknown: !neverConnected,
  }
}

function gatewayResponse(error: GatewayError): ProcessorResponse | undefined {
  return error.responseCode !== undefined
    ? { code: error.responseCode, message: error.processorMessage ?? "" }
    : undefined
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

function stringOf(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined
}

function sentence(value: string): string {
  return /[.!?]$/.test(value) ? value : `${value}.`
}

function capitalize(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1)
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    return `${error.name}: ${error.message}`
  }
  return typeof error === "string" ? error : "a non-Error value"
}
