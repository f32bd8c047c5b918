import { MedusaError } from "@medusajs/framework/utils"
import { tooManyAttemptsMessage } from "../../lib/velocity/subjects"
import type { GatewayResult } from "../../processors/types"
import {
  Classified,
  classify,
  classifyDecline,
  FailureCategory,
  FailureContext,
  FailureStage,
  PaymentOperation,
  ProcessorResponse,
} from "./failures"
import {
  CHECKOUT_TRUST_REFUSALS,
  FORM_CODE_PROBLEMS,
  formCodeMessage,
  SAVED_CARD_DECLINES,
  SAVED_CARD_REFUSALS,
  SavedCardRefusal,
  SHOPPER_MESSAGES,
} from "./messages"

/**
 * Every error this provider throws is built here and nowhere else:
 *
 * - a failure of a remote call, whatever raised it (the HTTP core, the
 *   service, a gateway, a processor's decline, the form's own validation),
 *   becomes a ServiceScanPaymentError: a processor's decline through
 *   {@link declineError}, a form code through {@link formCodeError}, anything
 *   thrown through {@link toMedusaError}. All of them classify (failures.ts),
 *   then build the final error in one function;
 * - a request refused before anything is sent (data that is not ours, an
 *   amount out of range, a saved card that is not the shopper's) is a plain
 *   MedusaError with a sentence the reader can act on.
 *
 * Two audiences:
 * - The shopper, during authorization: a PAYMENT_AUTHORIZATION_ERROR with a
 *   plain-language message (messages.ts). Medusa's cart completion answers
 *   that type with HTTP 200 `{ type: "cart", cart, error: { message, name, type } }`,
 *   so the storefront can show the message and let the shopper try again; no
 *   order is created.
 * - The merchant: the raw processor code and message (`processorResponse`),
 *   the failure's category and a technical `detail`, on the error object and in
 *   one structured log line written by the provider. None of them ever holds
 *   the processor token, an API key or a password.
 */

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

/**
 * The cart error's `name` of a completion refused by a velocity limit. The
 * plugin's middleware on `POST /store/carts/:id/complete` answers it as a 429
 * with Retry-After; keep the two in step.
 */
export const TOO_MANY_ATTEMPTS = "ServiceScanTooManyAttempts"

// ---- failures of a remote call (ServiceScanPaymentError) ----------------------------

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
 * A saved card whose sealed token does not open for this session (sealed
 * under another secret, for another customer, or altered): nothing is sent
 * to the processor, and the shopper picks the card again or types one.
 */
export function savedCardUnopenedError(
  context: FailureContext,
  cardId: string,
  customerId: string | undefined
): ServiceScanPaymentError {
  const detail = `the saved card ${cardId} of this session does not open for ${
    customerId ? `customer ${customerId}` : "a session without a customer"
  } (another secret, another customer, or altered data); nothing was sent`
  return build(
    { category: "form_expired", shopperMessage: SHOPPER_MESSAGES.savedCardReselect, detail },
    { ...context, stage: "form" }
  )
}

/**
 * A card over its velocity limit (`limit`, the `velocity.perCard` option: too
 * many declines lately), refused before anything is sent to the processor.
 * The shopper's sentence says only when to try again; the merchant's detail
 * says which limit.
 */
export function tooManyAttemptsError(
  refusal: { retryAfterSeconds: number },
  limit: { max: number; windowSeconds: number },
  context: FailureContext
): ServiceScanPaymentError {
  const { retryAfterSeconds } = refusal
  const error = build(
    {
      category: "declined",
      shopperMessage: tooManyAttemptsMessage(retryAfterSeconds),
      detail: `the card was declined ${limit.max} times in ${limit.windowSeconds} s (velocity.perCard); nothing was sent to ${context.gateway ?? "the processor"}, retry after ${retryAfterSeconds} s`,
    },
    { ...context, stage: "processor" }
  )
  error.name = TOO_MANY_ATTEMPTS
  return error
}

/** A session whose data names neither a submitted form nor a saved card: the shopper enters the card first. */
export function missingFormError(): ServiceScanPaymentError {
  return build(
    {
      category: "declined",
      shopperMessage: SHOPPER_MESSAGES.missingForm,
      detail: "the session has no form_id and no payment_method_id: the storefront sent neither a submitted form nor a saved card",
    },
    { operation: "authorize", stage: "form" }
  )
}

/**
 * Session data this provider cannot authorize from (not made by it, or
 * altered): the shopper enters the card again, or picks the saved card again.
 */
export function unusableSessionError(savedCard: boolean, detail: string): ServiceScanPaymentError {
  return build(
    {
      category: "form_expired",
      shopperMessage: savedCard ? SHOPPER_MESSAGES.savedCardReselect : SHOPPER_MESSAGES.formExpired,
      detail,
    },
    { operation: "authorize", stage: "form" }
  )
}

/** A saved-card session past its deadline (`expiresAt`), or without one: the shopper chooses the card again. */
export function savedCardSessionExpiredError(expiresAt: string | undefined): ServiceScanPaymentError {
  return build(
    {
      category: "form_expired",
      shopperMessage: CHECKOUT_TRUST_REFUSALS.savedCardChooseAgain,
      detail: expiresAt
        ? `the saved-card session expired at ${expiresAt}; the shopper chooses the card again`
        : "the saved-card session has no deadline (made before sessions had one, or not by this provider)",
    },
    { operation: "authorize", stage: "form" }
  )
}

/**
 * The authorization of this session was released (canceled, or released by
 * Medusa's compensation): authorizing again would get the processor's stale
 * approval, so the shopper starts a new session.
 */
export function alreadyReleasedError(requestId: string): ServiceScanPaymentError {
  return build(
    {
      category: "form_expired",
      shopperMessage: SHOPPER_MESSAGES.formExpired,
      detail: `the authorization ${requestId} of this session was already released; a new session is needed`,
    },
    { operation: "authorize", stage: "processor" }
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

// ---- refusals before anything is sent (MedusaError) ---------------------------------

/** A refused saved-card request as the MedusaError the store API answers with (400 with the sentence). */
export function savedCardRefusal(reason: SavedCardRefusal): MedusaError {
  const type =
    reason === "formAndCard" || reason === "saveSavedCard"
      ? MedusaError.Types.INVALID_DATA
      : MedusaError.Types.NOT_ALLOWED
  return new MedusaError(type, SAVED_CARD_REFUSALS[reason])
}

/** A form id presented outside the checkout it was first sent into, as the store API answers it (400). */
export function formBoundElsewhereError(): MedusaError {
  return new MedusaError(MedusaError.Types.NOT_ALLOWED, CHECKOUT_TRUST_REFUSALS.formBoundElsewhere)
}

/**
 * Why a capture, refund or cancel is refused before anything is sent to the
 * processor. The reader is the merchant (the admin answers 400 with the
 * sentence), so each says what to do instead.
 */
export type OperationRefusal =
  | { reason: "captureCanceled" }
  | { reason: "captureUnreadable"; captureId?: string }
  | { reason: "captureNotPositive" }
  | { reason: "captureExceeds"; minor: number; remaining: number }
  | { reason: "refundCanceled" }
  | { reason: "refundNotCaptured" }
  | { reason: "refundExceeds" }
  | { reason: "refundCapturedElsewhere" }
  | { reason: "cancelRefunded" }
  | { reason: "cancelPartlyCaptured" }
  | { reason: "cancelCapturedElsewhere" }

/** A capture, refund or cancel refused before anything is sent (NOT_ALLOWED). */
export function operationRefusal(refusal: OperationRefusal): MedusaError {
  return new MedusaError(MedusaError.Types.NOT_ALLOWED, operationRefusalMessage(refusal))
}

function operationRefusalMessage(refusal: OperationRefusal): string {
  switch (refusal.reason) {
    case "captureCanceled":
      return "The payment was canceled at the processor and cannot be captured."
    case "captureUnreadable":
      return `The amount of this capture${refusal.captureId ? ` (${refusal.captureId})` : ""} could not be read from Medusa, so nothing was captured; try again.`
    case "captureNotPositive":
      return "The capture amount must be greater than 0."
    case "captureExceeds":
      return `The capture (${refusal.minor} minor units) exceeds what remains authorized at the processor (${refusal.remaining}); nothing was captured.`
    case "refundCanceled":
      return "The payment was canceled at the processor; there is nothing to refund."
    case "refundNotCaptured":
      return "The payment has not been captured yet; cancel it instead of refunding it."
    case "refundExceeds":
      return "The refund exceeds what remains captured on this payment at the processor."
    case "refundCapturedElsewhere":
      return "This payment was captured outside Medusa, so its capture reference is unknown; refund it in the processor's portal."
    case "cancelRefunded":
      return "The payment has refunds at the processor and can no longer be voided; refund the rest instead."
    case "cancelPartlyCaptured":
      return "Part of this payment was captured; refund what was captured instead of canceling it."
    case "cancelCapturedElsewhere":
      return "This payment was captured outside Medusa, so it cannot be voided from here; refund it in the processor's portal."
  }
}

/** A refund of nothing (INVALID_DATA). */
export function refundAmountError(): MedusaError {
  return new MedusaError(MedusaError.Types.INVALID_DATA, "The refund amount must be greater than 0.")
}

/** A session for a negative amount, refused when the session is created rather than at checkout (INVALID_DATA). */
export function negativeAmountError(): MedusaError {
  return new MedusaError(MedusaError.Types.INVALID_DATA, "The payment amount must not be negative.")
}

/** A key only the server sets, sent by a storefront with a payment session (INVALID_DATA). */
export function serverOnlyKeyError(key: string): MedusaError {
  return new MedusaError(
    MedusaError.Types.INVALID_DATA,
    `data.${key} is set by the server and cannot be sent with a payment session (send only form_id and response_code, or payment_method_id).`
  )
}

/** What a storefront sent with a payment session, refused with the schema's sentence, which names the field (INVALID_DATA). */
export function storefrontInputError(message: string): MedusaError {
  return new MedusaError(MedusaError.Types.INVALID_DATA, message)
}

/** Where a piece of data failed its schema, as `path: message`. */
export type DataIssue = { path: PropertyKey[]; message: string }

/** A capture, refund or cancel of data that holds no authorization of this provider (INVALID_DATA). */
export function unreadablePaymentDataError(operation: PaymentOperation, issue: DataIssue): MedusaError {
  return new MedusaError(
    MedusaError.Types.INVALID_DATA,
    `Cannot ${operation} this payment: its data holds no ServiceScan authorization (${where(issue)}).`
  )
}

/**
 * An account-holder or saved-card request this provider cannot serve (INVALID_DATA):
 * an account holder without its customer, account-holder data that is not this
 * provider's, a save without the account holder, or a save request that fails
 * its schema.
 */
export function accountHolderError(
  refusal:
    | { reason: "noCustomer" }
    | { reason: "notOurs"; issue: DataIssue }
    | { reason: "saveWithoutHolder" }
    | { reason: "saveRequest"; issue: DataIssue }
): MedusaError {
  const message =
    refusal.reason === "noCustomer"
      ? "An account holder needs the customer it belongs to."
      : refusal.reason === "notOurs"
        ? `The account holder's data is not a ServiceScan customer record (${where(refusal.issue)}).`
        : refusal.reason === "saveWithoutHolder"
          ? "Saving a card needs the customer's ServiceScan account holder in context.account_holder."
          : where(refusal.issue)
  return new MedusaError(MedusaError.Types.INVALID_DATA, message)
}

/** The form's token on a save is not the one its payment was made with (UNEXPECTED_STATE): nothing is saved. */
export function savedCardTokenMismatchError(): MedusaError {
  return new MedusaError(
    MedusaError.Types.UNEXPECTED_STATE,
    "The form's token is not the one the payment was made with, so the card was not saved."
  )
}

/**
 * Options the provider refuses when Medusa loads it (INVALID_DATA), naming
 * every invalid field. The problems never echo option values: some are secrets.
 */
export function invalidOptionsError(problems: string[]): MedusaError {
  return new MedusaError(
    MedusaError.Types.INVALID_DATA,
    `Invalid options for the ServiceScan payment provider (servicescan): ${problems.join("; ")}`
  )
}

function where(issue: DataIssue): string {
  return `${issue.path.join(".") || "data"}: ${issue.message}`
}

function sentence(value: string): string {
  return /[.!?]$/.test(value) ? value : `${value}.`
}

function capitalize(value: string): string {
  return value.charAt(0).toUpperCase() + value.slice(1)
}
