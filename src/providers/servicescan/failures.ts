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
} from "../../processors/types"
import { DECLINE_MESSAGES, MERCHANT_HINTS, SHOPPER_MESSAGES, formCodeMessage } from "./messages"

/**
 * What a failed remote call was: which operation, where it failed, and what
 * kind of failure it is, told from whatever raised it (the HTTP core, the
 * service, a gateway, a processor's decline). Classifying only: the error the
 * provider throws is built from a classification in errors.ts, and nowhere else.
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

/** A failure as classified, before errors.ts builds the error from it. */
export type Classified = {
  category: FailureCategory
  /** The shopper's message (authorize only). */
  shopperMessage: string
  detail: string
  processorResponse?: ProcessorResponse
  outcomeUnknown?: boolean
  /** What the merchant can do about a refusal (admin operations only). */
  merchantHint?: string
}

/** Decline reasons that are the merchant's setup, not the card. */
const CONFIGURATION_REASONS: ReadonlySet<DeclineReason> = new Set([
  "merchant_configuration",
  "invalid_amount",
])
/** Decline reasons where trying again later may succeed. */
const TRANSIENT_REASONS: ReadonlySet<DeclineReason> = new Set(["issuer_unavailable", "processing_error"])

/**
 * Whether a processor's answer is the card being declined (the reasons the
 * shopper gets the generic decline for; not an outage, the merchant's setup
 * or an unusable token): what the per-card velocity limit counts.
 */
export function isCardDecline(result: GatewayResult): boolean {
  return result.outcome === "declined" && DECLINE_MESSAGES[result.reason ?? "generic"] === SHOPPER_MESSAGES.declined
}

/** A processor's answer that was not an approval. */
export function classifyDecline(gateway: string, result: GatewayResult): Classified {
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

/** Anything a remote call threw: a gateway's typed errors, the HTTP core's, or something untyped. */
export function classify(error: unknown, context: FailureContext): Classified {
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

function describe(error: unknown): string {
  if (error instanceof Error) {
    return `${error.name}: ${error.message}`
  }
  return typeof error === "string" ? error : "a non-Error value"
}
