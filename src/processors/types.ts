/**
 * The two contracts a processor fulfils, one section each:
 * - {@link ProcessorGateway}: the payment side, which the payment provider
 *   calls to move money with the token the hosted form registered;
 * - {@link DisputeGateway}: the dispute side, which the disputes module calls
 *   to read chargeback cases and answer them.
 *
 * A built-in processor implements them under `processors/<name>/` and is
 * listed in `processors/index.ts`; a store whose processor differs passes its
 * own object implementing one of them as the option instead.
 */

import type { ReasonFamily } from "../lib/reason-family"

// ---- payments -----------------------------------------------------------------------

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
 *   repeated request returns the original result instead of moving money twice
 *   (cnpAPI: the `id` attribute; Adyen: inside the `Idempotency-Key`, with the
 *   operation's name, since Adyen keeps keys per company, not per endpoint).
 * - A processor that takes a request and decides it later (Adyen's `201
 *   received` for captures, refunds and cancels) answers `approved` with
 *   `pending: true`; the provider records the operation as pending, and the
 *   processor's later report is applied as an {@link OperationOutcome}.
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
  /**
   * Optional, for a processor with no {@link lookup} (Adyen has no read by the
   * merchant's id): releases whatever it authorized under `orderId`, the
   * reference the authorization was sent with, without knowing the
   * authorization's own id (Adyen's standalone `POST /cancels` by payment
   * reference). The provider sends it for a session that may have been
   * authorized without its answer arriving; when nothing was authorized, the
   * processor finds nothing and moves no money. Not called when `lookup` exists.
   */
  releaseByReference?(request: ReleaseByReferenceRequest): Promise<GatewayResult>
}

/** What {@link ProcessorGateway.releaseByReference} releases. */
export type ReleaseByReferenceRequest = GatewayRequestBase & {
  /** The `orderId` the authorization (or sale) was sent with. */
  orderId: string
  /** Which it was: an authorization, or a sale (automatic capture). */
  target: "authorization" | "capture"
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
  /**
   * The hosted form whose card `token` is (absent for a saved card). Adyen
   * stores a guest's card under it: see "The shopper reference" in docs/architecture.md.
   */
  formId?: string
}

export type CaptureRequest = GatewayRequestBase & {
  /** The processor's id of the authorization. */
  transactionId: string
  /** Integer minor units for a partial capture; omitted captures what remains. */
  amount?: number
  /**
   * What remains authorized, in minor units: what a capture without `amount`
   * takes. Set by the provider, for a processor whose capture always names
   * its amount (Adyen).
   */
  remainingAmount?: number
  /** ISO 4217 code of the authorization. Set by the provider, for the same processors. */
  currencyCode?: string
}

export type RefundRequest = GatewayRequestBase & {
  /** The processor's id of the capture or sale being refunded. */
  transactionId: string
  /**
   * The processor's id of the authorization or sale the capture belongs to.
   * Set by the provider, for a processor that refunds a payment by its own id
   * rather than its capture's (Adyen).
   */
  paymentTransactionId?: string
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
  /** The authorization's or sale's id, as for {@link RefundRequest.paymentTransactionId} (Adyen reverses a payment by it). */
  paymentTransactionId?: string
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
  /**
   * The processor took the request and decides it later (Adyen: `201
   * received`). `outcome` is then "approved" and `transactionId` names the
   * operation; its fate comes as an {@link OperationOutcome}.
   */
  pending?: boolean
  /** Issuer's authorization code. */
  authCode?: string
  /** Approved amount in minor units, when the processor states it. */
  approvedAmount?: number
  card?: GatewayCard
}

/**
 * A processor's later word on an operation it answered `pending` (a capture,
 * refund or cancel): Adyen's CAPTURE, REFUND, CANCELLATION (and their
 * `_FAILED` / `success: "false"` variants) notifications, read by that
 * processor's webhook code. The provider's payment data applies it with
 * `applyOperationOutcome` (providers/servicescan/operation-outcomes.ts).
 */
export type OperationOutcome = {
  /** What the operation was. */
  operation: "capture" | "refund" | "cancel"
  /** The processor's id of the payment (authorization or sale): payment data's `cnp_txn_id`. */
  paymentTransactionId: string
  /** The processor's id of the operation, as the gateway answered it (`GatewayResult.transactionId`). */
  transactionId: string
  /** Done (true), or refused after all (false: nothing moved, or a later failure undid it). */
  success: boolean
  /** The processor's words for a failure, for the merchant. */
  reason?: string
  /** When the processor decided, ISO 8601. */
  occurredAt: string
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

// ---- disputes -----------------------------------------------------------------------

/**
 * The processor side of a dispute, beside the payment side's
 * {@link ProcessorGateway}: a processor publishes each chargeback as a *case*,
 * takes evidence documents for it and a represent-or-accept decision. Worldpay's eComm Chargeback API is built in
 * (`WorldpayDisputeGateway`); a store whose processor differs passes any
 * object implementing {@link DisputeGateway} as the disputes module's
 * `disputeGateway` option.
 *
 * Contract for implementers:
 * - Amounts are integers in the currency's ISO 4217 minor unit; currency codes
 *   upper or lower case; days are `YYYY-MM-DD` in the processor's calendar.
 * - Reads return what the processor holds; a case it does not know is `null`.
 * - Writes (documents, updates) have no idempotency key at most processors:
 *   the caller reads the case's documents and activities before writing again
 *   after a lost answer. Throw on any failure that is not the processor's
 *   answer about the case itself; refusals about the case (wrong queue, past
 *   the deadline, file too large) throw {@link DisputeGatewayRefusal}.
 * - Never put credentials in results, errors or logs.
 */
export interface DisputeGateway {
  /** Short name for logs and stored cases, e.g. "worldpay". */
  readonly name: string
  /** Cases with an activity on that day (the import job's cursor walks days, with an overlap). */
  listCasesByActivityDate(day: string): Promise<DisputeCaseRecord[]>
  /** Cases waiting for the merchant's answer, whatever their activity dates. */
  listActionableCases(): Promise<DisputeCaseRecord[]>
  getCase(caseId: string): Promise<DisputeCaseRecord | null>
  /** The ids of the documents on a case, in upload order. */
  listDocuments(caseId: string): Promise<string[]>
  /** Adds a document, or replaces its content when the id is taken. */
  putDocument(caseId: string, documentId: string, file: { bytes: Uint8Array; contentType: string }): Promise<void>
  deleteDocument(caseId: string, documentId: string): Promise<void>
  /**
   * Contests the chargeback (Worldpay `MERCHANT_REPRESENT`), optionally for part of the amount.
   * `reasonFamily` (lib/reason-family.ts) says what the evidence answers,
   * for a gateway that picks a defense by it (the note already names it).
   */
  represent(caseId: string, input: { note: string; amountMinor?: number; reasonFamily?: ReasonFamily }): Promise<DisputeUpdateResult>
  /** Accepts the chargeback (Worldpay `MERCHANT_ACCEPTS_LIABILITY`). */
  acceptLiability(caseId: string, input: { note: string }): Promise<DisputeUpdateResult>
  /**
   * Present when the processor pushes its cases by webhook instead of
   * publishing them for reading (Adyen). Such a gateway has no read of a case:
   * its lists answer nothing and `getCase` null, so the caller skips the
   * read-before-write; in exchange its `represent` and `acceptLiability` are
   * idempotent themselves (an answer the processor already took is success).
   */
  readonly webhook?: ProcessorWebhook
}

/**
 * A processor's notification webhook, read by the processor's own code: the
 * route and workflows see only {@link PushedEvent}s.
 */
export interface ProcessorWebhook {
  /** The body of the 2xx answer the processor expects (Adyen: `[accepted]`). */
  readonly acknowledgement: string
  /** How old an event may be and still be taken; older is stale and creates nothing (why this bound: the processor's folder). */
  readonly maxAgeMs: number
  /**
   * Checks one delivery (signature, the webhook's credentials) and reads its
   * events. Throws {@link WebhookRejection}: nothing of a rejected delivery is kept.
   */
  receive(request: { body: Uint8Array; authorization?: string }): PushedEvent[]
  /** The case as all of its stored events say, whatever order they arrived in. */
  caseRecord(events: readonly PushedEvent[]): DisputeCaseRecord
}

/** One event of a webhook delivery, in processor-neutral terms. */
export type PushedEvent = {
  /** What makes two deliveries the same event: a retry or a replay has the same key (stored unique). */
  key: string
  /** A case's event (opening, update, decision), an operation's outcome, or anything else (acknowledged, kept, ignored). */
  kind: "case" | "operation" | "ignored"
  /** The processor's case id (`kind: "case"`). */
  caseId?: string
  /** When the processor says it happened, ISO 8601. */
  occurredAt: string
  /** What became of a pending operation (`kind: "operation"`). */
  operation?: OperationOutcome
  /** The event as received, without its signature: what `caseRecord` reads back. */
  data: Record<string, unknown>
}

/** A webhook delivery refused as a whole: `forged` (signature or credentials) or `malformed` (not the processor's notification). */
export class WebhookRejection extends Error {
  readonly reason: "forged" | "malformed"

  constructor(message: string, reason: "forged" | "malformed") {
    super(message)
    this.name = "WebhookRejection"
    this.reason = reason
  }
}

/** The processor's acknowledgement of an update. */
export type DisputeUpdateResult = { transactionId?: string }

/** One activity on a case, newest first as processors list them. */
export type DisputeActivity = {
  /** `YYYY-MM-DD`. */
  date: string
  /** The processor's own words, e.g. Worldpay's "Merchant Represent", "Case Won". */
  type: string
  fromQueue?: string
  toQueue?: string
  /** Minor units, when the activity moved money. */
  settlementAmountMinor?: number
  settlementCurrencyCode?: string
  notes?: string
}

/** A chargeback case as the processor publishes it. Absent values are undefined. */
export type DisputeCaseRecord = {
  caseId: string
  merchantId?: string
  /** The processor's id of the disputed authorization or sale (Worldpay `vantivCnpTxnId`): the best match. */
  transactionId?: string
  /** The merchant's order reference sent with that transaction (cnpAPI `orderId`): the second-best match. */
  orderId?: string
  /** The request id the transaction was sent with (Worldpay `merchantTxnId`). */
  merchantTxnId?: string
  customerId?: string
  cardLast4?: string
  cardType?: string
  amountMinor: number
  currencyCode: string
  /** e.g. "First Chargeback", "Pre-Arbitration", "Retrieval Request". */
  cycle?: string
  reasonCode?: string
  reasonDescription?: string
  /** Whose move it is, e.g. Worldpay's "Merchant", "Vantiv", "Merchant Assumed". */
  queue?: string
  /** The case waits for the merchant's answer (Worldpay: queue "Merchant"): documents and an answer are taken. */
  awaitingMerchant: boolean
  /** The network's decision, when an activity reports one. */
  outcome?: "won" | "lost"
  issuedOn?: string
  receivedOn?: string
  originalTransactionOn?: string
  /** The last day the merchant can answer. */
  replyBy?: string
  acquirerReferenceNumber?: string
  chargebackReferenceNumber?: string
  representedAmountMinor?: number
  activities: DisputeActivity[]
}

/**
 * The processor refused an action on a case (not a transport failure): the
 * case is no longer in the merchant's queue, the reply-by day passed, the
 * file is too large or of a type it does not take. Retrying the same request
 * cannot help.
 */
export class DisputeGatewayRefusal extends Error {
  readonly gateway: string
  /** The processor's own code, e.g. Worldpay document code "012", or an HTTP status. */
  readonly code?: string

  constructor(message: string, options: { gateway: string; code?: string; cause?: unknown }) {
    super(message, { cause: options.cause })
    this.name = "DisputeGatewayRefusal"
    this.gateway = options.gateway
    this.code = options.code
  }
}

/** The processor answered something the gateway cannot read. */
export class DisputeGatewayProtocolError extends Error {
  readonly gateway: string

  constructor(message: string, options: { gateway: string; cause?: unknown }) {
    super(message, { cause: options.cause })
    this.name = "DisputeGatewayProtocolError"
    this.gateway = options.gateway
  }
}

/**
 * The processor refused the gateway's credentials or account: HTTP 401/403
 * from a chargeback API. Retrying cannot help; the merchant's configuration
 * (user, password, API access at the processor) must change. The message
 * says what to check and never carries the credentials themselves.
 */
export class DisputeGatewayConfigurationError extends Error {
  readonly gateway: string
  /** The HTTP status the processor answered, e.g. 401. */
  readonly status?: number

  constructor(message: string, options: { gateway: string; status?: number; cause?: unknown }) {
    super(message, { cause: options.cause })
    this.name = "DisputeGatewayConfigurationError"
    this.gateway = options.gateway
    this.status = options.status
  }
}

/** What `isDisputeGateway` requires of a store's own gateway object, besides a string `name`. */
export const DISPUTE_GATEWAY_METHODS = [
  "listCasesByActivityDate",
  "listActionableCases",
  "getCase",
  "listDocuments",
  "putDocument",
  "deleteDocument",
  "represent",
  "acceptLiability",
] as const

/** Whether `value` implements {@link DisputeGateway}. */
export function isDisputeGateway(value: unknown): value is DisputeGateway {
  if (typeof value !== "object" || value === null) {
    return false
  }
  const record = value as Record<string, unknown>
  return typeof record.name === "string" && DISPUTE_GATEWAY_METHODS.every((method) => typeof record[method] === "function")
}
