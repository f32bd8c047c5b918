/**
 * The processor side of a ServiceScan payment. The hosted form tokenizes the
 * card at the merchant's processor; a gateway then moves money with that
 * token. Worldpay (cnpAPI) is built in; a store owner whose processor differs
 * passes any object implementing {@link ProcessorGateway} as the provider's
 * `gateway` option.
 *
 * Contract for implementers:
 * - Amounts are integers in the currency's ISO 4217 minor unit (JPY 0, USD 2,
 *   KWD 3 decimals), already converted by the provider.
 * - Every request carries `requestId`, stable across retries of the same
 *   Medusa operation (at most 25 characters, derived from Medusa's idempotency
 *   key). Send it as the processor's idempotency / duplicate-detection key so a
 *   repeated request returns the original result instead of moving money twice.
 * - Return a {@link GatewayResult} for every answer the processor gave about
 *   the transaction itself, including declines; throw only when there is no
 *   such answer (network failure, timeout, credentials or request format
 *   refused). Throw {@link GatewayConfigurationError} when the merchant's
 *   setup is at fault, so the shopper is not told their card was declined.
 * - Never put the token, keys or passwords in results, errors or logs.
 */
export interface ProcessorGateway {
  /** Short name for logs and payment data, e.g. "worldpay". */
  readonly name: string
  /** Reserves the amount on the card (manual capture). */
  authorize(request: AuthorizeRequest): Promise<GatewayResult>
  /** Authorizes and captures in one step (automatic capture). */
  sale(request: AuthorizeRequest): Promise<GatewayResult>
  /** Captures an authorization, fully or (with `amount`) partially. */
  capture(request: CaptureRequest): Promise<GatewayResult>
  /** Refunds part or all of a capture or sale; may be repeated until it is fully refunded. */
  refund(request: RefundRequest): Promise<GatewayResult>
  /**
   * Cancels before money moves: `authorization` releases an authorization
   * (cnpAPI `authReversal`); `capture` voids a same-day capture or sale (cnpAPI `void`).
   */
  cancel(request: CancelRequest): Promise<GatewayResult>
  /**
   * Optional, and strongly recommended: what the processor holds under a
   * request id for one transaction type (cnpAPI `queryTransaction`), as its
   * answers to the original requests; empty when it never saw such a request.
   * With it the provider can tell whether an authorization whose answer was
   * lost exists, and whether it was released since, from the processor's own
   * records instead of any process's memory. Without it, an authorization
   * whose answer was lost and whose shopper walked away stays on the card
   * until the issuer drops it.
   */
  lookup?(request: LookupRequest): Promise<GatewayResult[]>
}

/** What {@link ProcessorGateway.lookup} looks for. */
export type LookupRequest = {
  /** The request id the original transaction was sent under. */
  requestId: string
  type: "authorization" | "sale" | "authReversal" | "void"
}

/** Fields shared by every gateway request. */
export type GatewayRequestBase = {
  /** Duplicate-detection key, at most 25 characters, stable across retries. */
  requestId: string
  /** Processor reporting bucket (cnpAPI `reportGroup`), when configured. */
  reportGroup?: string
}

export type AuthorizeRequest = GatewayRequestBase & {
  /** The merchant's order reference, at most 25 characters, stable across retries. */
  orderId: string
  /** Integer, in the currency's minor unit. */
  amount: number
  /** ISO 4217 code, lower case as Medusa stores it. */
  currencyCode: string
  /** The processor token from the form exchange. A secret: never store or log it. */
  token: string
  /** The Medusa customer id, when the shopper is logged in (at most 50 characters). */
  customerId?: string
}

export type CaptureRequest = GatewayRequestBase & {
  /** The processor's id of the authorization. */
  transactionId: string
  /** Integer minor units for a partial capture; omitted captures what remains. */
  amount?: number
}

export type RefundRequest = GatewayRequestBase & {
  /** The processor's id of the capture or sale being refunded. */
  transactionId: string
  /** Integer, in the currency's minor unit. */
  amount: number
  /** ISO 4217 code of the original payment. */
  currencyCode: string
}

export type CancelRequest = GatewayRequestBase & {
  /** The processor's id of the transaction to cancel. */
  transactionId: string
  /** What is being cancelled: an authorization (reversal) or a capture/sale (void). */
  target: "authorization" | "capture"
}

/**
 * The processor's verdict on a transaction.
 * - `approved`: done by this request (or by the original of a duplicate).
 * - `already_done`: refused because an earlier request already did it
 *   (authorization already captured or reversed); the provider treats it as success.
 * - `declined`: not done; see `reason`.
 */
export type GatewayOutcome = "approved" | "already_done" | "declined"

/**
 * Why a transaction was not approved, in processor-neutral terms. The
 * provider turns it into the shopper's message; the raw `responseCode` and
 * `message` stay with the merchant.
 */
export type DeclineReason =
  | "insufficient_funds"
  | "expired_card"
  | "invalid_card_number"
  | "invalid_expiry"
  | "invalid_cvv"
  | "exceeds_limit"
  | "partial_approval"
  | "call_issuer"
  | "restricted_card"
  | "do_not_honor"
  | "invalid_token"
  | "expired_token"
  | "issuer_unavailable"
  | "processing_error"
  | "merchant_configuration"
  | "invalid_amount"
  | "transaction_not_found"
  | "authorization_unavailable"
  | "exceeds_captured_amount"
  | "already_settled"
  | "already_captured"
  | "generic"

/** The card as the processor reports it; never more than the last four digits. */
export type GatewayCard = {
  last4?: string
  /** Brand code as the processor names it, e.g. cnpAPI's VI, MC, AX, DI. */
  type?: string
}

export type GatewayResult = {
  outcome: GatewayOutcome
  /** Present for declines (and optional otherwise). */
  reason?: DeclineReason
  /** The processor's id of this transaction (cnpAPI `cnpTxnId`), when it assigned one. */
  transactionId?: string
  /** The processor's raw response code, kept for the merchant (cnpAPI `response`, e.g. "000"). */
  responseCode: string
  /** The processor's raw message (cnpAPI `message`, e.g. "Approved"). */
  message: string
  /** True when the processor recognised `requestId` and answered with the original result. */
  duplicate?: boolean
  /** Issuer's authorization code. */
  authCode?: string
  /** Approved amount in minor units, when the processor states it. */
  approvedAmount?: number
  card?: GatewayCard
}

/**
 * Base of the errors a gateway throws when it got no verdict on the
 * transaction. Gateways may also let the HTTP core's typed errors
 * (HttpTimeoutError, HttpConnectionError, HttpStatusError)
 * propagate; the provider maps all of them.
 */
export class GatewayError extends Error {
  /** The gateway's name, e.g. "worldpay". */
  readonly gateway: string
  /** The processor's own code or status for the failure, when it gave one. */
  readonly responseCode?: string
  /** The processor's own message for the failure, when it gave one. */
  readonly processorMessage?: string

  constructor(
    message: string,
    options: { gateway: string; responseCode?: string; processorMessage?: string; cause?: unknown }
  ) {
    super(message, { cause: options.cause })
    this.name = new.target.name
    this.gateway = options.gateway
    this.responseCode = options.responseCode
    this.processorMessage = options.processorMessage
  }
}

/**
 * The processor refused the request as a whole because of the merchant's
 * setup: credentials, merchant id, request schema (cnpAPI `response="1"` on the
 * envelope). Not the shopper's fault, and retrying cannot help.
 */
export class GatewayConfigurationError extends GatewayError {}

/** The processor answered something the gateway cannot read. */
export class GatewayProtocolError extends GatewayError {}

const GATEWAY_METHODS = ["authorize", "sale", "capture", "refund", "cancel"] as const

/** The methods of {@link ProcessorGateway} that `value` lacks (empty when it implements all). */
export function missingGatewayMethods(value: unknown): string[] {
  if (typeof value !== "object" || value === null) {
    return [...GATEWAY_METHODS]
  }
  const record = value as Record<string, unknown>
  return GATEWAY_METHODS.filter((method) => typeof record[method] !== "function")
}

/** Whether `value` implements {@link ProcessorGateway}. */
export function isProcessorGateway(value: unknown): value is ProcessorGateway {
  return (
    missingGatewayMethods(value).length === 0 &&
    typeof (value as Record<string, unknown>).name === "string"
  )
}
