import { randomUUID } from "node:crypto"
import { HttpClient } from "../../lib/http"
import {
  AuthorizeRequest,
  CancelRequest,
  CaptureRequest,
  GatewayConfigurationError,
  GatewayError,
  GatewayProtocolError,
  GatewayResult,
  LookupRequest,
  ProcessorGateway,
  RefundRequest,
} from "../types"
import { classifyResponseCode } from "./response-codes"
import {
  buildCnpRequest,
  CnpActionType,
  CnpCredentials,
  CnpTransaction,
  CnpEnvelopeResponse,
  CnpTransactionAttributes,
  parseCnpResponse,
} from "./cnp-xml"
import { CnpParseError } from "./errors"
import { DEFAULT_CNP_VERSION, DEFAULT_REPORT_GROUP, WORLDPAY, WorldpayGatewayOptions } from "./options"

/** cnpAPI's `origActionType` for each type `lookup` takes. */
const ACTION_TYPES: Readonly<Record<LookupRequest["type"], CnpActionType>> = {
  authorization: "A",
  sale: "S",
  authReversal: "AR",
  void: "V",
}
/** queryTransaction's own response codes: original found / not found. */
const QUERY_FOUND = "150"
const QUERY_NOT_FOUND = "151"

/**
 * The built-in gateway for Worldpay eCommerce (cnpAPI, formerly Litle/Vantiv),
 * the processor whose tokens the hosted form registers.
 *
 * Every transaction is sent with the caller's `requestId` as its `id`
 * attribute. cnpAPI treats a second request with the same id and type as a
 * duplicate and answers with the original result (`duplicate="true"`), so
 * these POSTs are safe to retry and the HTTP core may repeat them after a
 * timeout or a 5xx.
 */
export class WorldpayGateway implements ProcessorGateway {
  readonly name = WORLDPAY

  private readonly http: HttpClient
  private readonly path: string
  private readonly credentials: CnpCredentials
  private readonly reportGroup: string
  private readonly version: string

  constructor(options: WorldpayGatewayOptions) {
    const url = new URL(options.url)
    this.http = new HttpClient({
      baseUrl: url.origin,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      backoff: options.backoff,
      onRetry: options.onRetry,
    })
    this.path = `${url.pathname}${url.search}`
    this.credentials = {
      merchantId: options.merchantId,
      user: options.user,
      password: options.password,
    }
    this.reportGroup = options.reportGroup ?? DEFAULT_REPORT_GROUP
    this.version = options.version ?? DEFAULT_CNP_VERSION
  }

  authorize(request: AuthorizeRequest): Promise<GatewayResult> {
    return this.tokenPayment("authorization", request)
  }

  sale(request: AuthorizeRequest): Promise<GatewayResult> {
    return this.tokenPayment("sale", request)
  }

  capture(request: CaptureRequest): Promise<GatewayResult> {
    return this.send({
      type: "capture",
      attributes: { ...this.attributes(request), partial: request.amount !== undefined || undefined },
      cnpTxnId: request.transactionId,
      amount: request.amount,
    })
  }

  refund(request: RefundRequest): Promise<GatewayResult> {
    return this.send({
      type: "credit",
      attributes: this.attributes(request),
      cnpTxnId: request.transactionId,
      amount: request.amount,
    })
  }

  cancel(request: CancelRequest): Promise<GatewayResult> {
    // An authorization is released with authReversal (no amount: all of what
    // remains); a capture or sale is voided, which cnpAPI allows until settlement.
    return request.target === "authorization"
      ? this.send({
          type: "authReversal",
          attributes: this.attributes(request),
          cnpTxnId: request.transactionId,
        })
      : this.send({
          type: "void",
          attributes: this.attributes(request),
          cnpTxnId: request.transactionId,
        })
  }

  /**
   * cnpAPI `queryTransaction` by the original's `id` and type. "Not found"
   * (151) is an empty list; "found, answer not available yet" (152) throws
   * a GatewayError, since nobody can tell yet what happened.
   */
  async lookup(request: LookupRequest): Promise<GatewayResult[]> {
    const answer = await this.post({
      type: "queryTransaction",
      // A fresh id of its own: a query is a read, and reusing an id could get
      // an earlier query's answer back from duplicate detection.
      attributes: this.attributes({ requestId: randomUUID().replace(/-/g, "").slice(0, 25) }),
      origId: request.requestId,
      origActionType: ACTION_TYPES[request.type],
    })
    const query = answer.query
    if (!query) {
      throw new GatewayProtocolError("Worldpay answered queryTransaction without a <queryTransactionResponse> element", {
        gateway: this.name,
      })
    }
    if (query.response === QUERY_NOT_FOUND) {
      return []
    }
    if (query.response !== QUERY_FOUND) {
      throw new GatewayError(`Worldpay could not look up ${request.type} ${request.requestId}: ${query.response} ${query.message}`, {
        gateway: this.name,
        responseCode: query.response,
        processorMessage: query.message,
      })
    }
    return query.results
      .filter((result) => result.type === request.type)
      .map((result) => {
        const { outcome, reason } = classifyResponseCode(result.type, result.response)
        return {
          outcome,
          reason,
          transactionId: result.cnpTxnId,
          responseCode: result.response,
          message: result.message,
          authCode: result.authCode,
          approvedAmount: result.approvedAmount,
        }
      })
  }

  private tokenPayment(type: "authorization" | "sale", request: AuthorizeRequest): Promise<GatewayResult> {
    return this.send(
      {
        type,
        attributes: { ...this.attributes(request), customerId: request.customerId },
        orderId: request.orderId,
        amount: request.amount,
        orderSource: "ecommerce",
        token: request.token,
      },
      // cnpAPI tokens keep the card's last four digits.
      { last4: /\d{4}$/.test(request.token) ? request.token.slice(-4) : undefined }
    )
  }

  private attributes(request: { requestId: string; reportGroup?: string }): CnpTransactionAttributes {
    return { id: request.requestId, reportGroup: request.reportGroup ?? this.reportGroup }
  }

  /** Posts one transaction and reads the envelope; a refused envelope is the merchant's configuration. */
  private async post(transaction: CnpTransaction): Promise<CnpEnvelopeResponse> {
    const body = buildCnpRequest(this.credentials, this.version, transaction)
    const response = await this.http.request<string>({
      method: "POST",
      path: this.path,
      headers: { "content-type": "text/xml; charset=utf-8", accept: "text/xml, application/xml" },
      body,
      responseType: "text",
      // Safe: the request id makes cnpAPI answer a repeat with the original result.
      idempotent: true,
    })

    let parsed
    try {
      parsed = parseCnpResponse(response.data)
    } catch (error) {
      throw new GatewayProtocolError(
        `Worldpay answered ${transaction.type} with an unreadable document: ${
          error instanceof CnpParseError ? error.message : String(error)
        }`,
        { gateway: this.name, cause: error }
      )
    }

    if (parsed.response !== "0") {
      // The envelope was refused as a whole: wrong credentials or merchant id,
      // or a request the schema rejects. The card was never looked at.
      throw new GatewayConfigurationError(
        `Worldpay refused the ${transaction.type} request (response="${parsed.response}"): ${parsed.message}`,
        { gateway: this.name, responseCode: parsed.response, processorMessage: parsed.message }
      )
    }
    return parsed
  }

  private async send(
    transaction: Exclude<CnpTransaction, { type: "queryTransaction" }>,
    fallbackCard: { last4?: string } = {}
  ): Promise<GatewayResult> {
    const parsed = await this.post(transaction)
    const txn = parsed.transaction
    if (!txn || txn.type !== transaction.type) {
      throw new GatewayProtocolError(
        `Worldpay answered ${transaction.type} without a <${transaction.type}Response> element`,
        { gateway: this.name }
      )
    }

    const { outcome, reason } = classifyResponseCode(txn.type, txn.response)
    const last4 = txn.card?.last4 ?? fallbackCard.last4
    return {
      outcome,
      reason,
      transactionId: txn.cnpTxnId,
      responseCode: txn.response,
      message: txn.message,
      duplicate: txn.duplicate,
      authCode: txn.authCode,
      approvedAmount: txn.approvedAmount,
      card:
        transaction.type === "authorization" || transaction.type === "sale"
          ? { last4, type: txn.card?.type }
          : undefined,
    }
  }
}
