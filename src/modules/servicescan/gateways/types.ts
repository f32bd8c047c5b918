/**
 * The processor side of a dispute, beside the payment side's
 * `ProcessorGateway` (providers/servicescan/gateways/types.ts): a processor
 * publishes each chargeback as a *case*, takes evidence documents for it and a
 * represent-or-accept decision. Worldpay's eComm Chargeback API is built in
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
  /** Contests the chargeback (Worldpay `MERCHANT_REPRESENT`), optionally for part of the amount. */
  represent(caseId: string, input: { note: string; amountMinor?: number }): Promise<DisputeUpdateResult>
  /** Accepts the chargeback (Worldpay `MERCHANT_ACCEPTS_LIABILITY`). */
  acceptLiability(caseId: string, input: { note: string }): Promise<DisputeUpdateResult>
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
