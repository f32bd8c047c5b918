import { createHash } from "node:crypto"
import type { z } from "@medusajs/framework/zod"
import { HttpClient, HttpStatusError } from "../../lib/http"
import {
  AuthorizeRequest,
  CancelRequest,
  CaptureRequest,
  GatewayConfigurationError,
  GatewayError,
  GatewayProtocolError,
  GatewayResult,
  ProcessorGateway,
  RefundRequest,
  ReleaseByReferenceRequest,
} from "../types"
import {
  additionalText,
  ModificationResponse,
  modificationResponseSchema,
  PaymentResponse,
  paymentResponseSchema,
  ServiceError,
  serviceErrorOf,
} from "./checkout-wire"
import { ADYEN, adyenAuthHeaders, adyenCheckoutUrl, AdyenGatewayOptions, DEFAULT_ADYEN_RETURN_URL } from "./options"
import { cardTypeOf, classifyPayment, declineOfServiceError } from "./result-codes"

/** Adyen's longest `Idempotency-Key` (CheckoutService-v71.json `components.parameters.Idempotency-Key`). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 64

/** What each call is, inside its Idempotency-Key: Adyen keeps keys per company account, not per endpoint. */
export type AdyenOperation = "authorize" | "sale" | "capture" | "refund" | "cancel" | "reversal" | "release"

/** `errorCode` of "request already processed or in progress": the key's first request has not answered yet. */
const IN_FLIGHT = "704"
/** How often a call whose key is in flight is tried again, waiting a little longer each time, before giving up. */
const IN_FLIGHT_RETRIES = 4
const IN_FLIGHT_DELAY_MS = 250

/**
 * The `Idempotency-Key` of one operation: its name, then the provider's
 * request id (stable across retries of the same Medusa operation), so a
 * capture that shares the authorization's request id (the first whole
 * capture does) is still a key of its own. A key over Adyen's 64 characters
 * (only a store's own longer request ids) keeps the name and hashes the rest.
 */
export function adyenIdempotencyKey(operation: AdyenOperation, requestId: string): string {
  const key = `${operation}:${requestId}`
  if (key.length <= MAX_IDEMPOTENCY_KEY_LENGTH) {
    return key
  }
  return `${operation}:${createHash("sha256").update(requestId, "utf8").digest("base64url").slice(0, 43)}`
}

/**
 * The built-in gateway for Adyen's Checkout API v71: a card on file, the one
 * the `adyen` token exchange stored, paid from the server.
 *
 * - Every modifying call carries an `Idempotency-Key` ({@link adyenIdempotencyKey}),
 *   so the HTTP core may repeat it after a timeout or a 5xx: Adyen answers a
 *   repeated key with the first answer instead of acting twice. A key whose
 *   first request is still in flight (409, `704`) is tried again here, shortly.
 * - `/payments` answers a verdict at once. Captures, refunds and cancels answer
 *   `201 received` and are decided later, by notification: they return
 *   `approved` with `pending: true` and the modification's own `pspReference`.
 * - Results are classified in result-codes.ts, and only there.
 * - Adyen has no read of a payment by the merchant's reference, so there is no
 *   `lookup`; `releaseByReference` (standalone `POST /cancels`) releases an
 *   authorization whose answer was lost.
 */
export class AdyenGateway implements ProcessorGateway {
  readonly name = ADYEN

  private readonly http: HttpClient
  private readonly path: string
  // An ES private field: util.inspect and JSON.stringify of the gateway never show the credentials.
  readonly #auth: Record<string, string>
  private readonly merchantAccount: string
  private readonly returnUrl: string
  private readonly inFlightDelayMs: number

  constructor(options: AdyenGatewayOptions) {
    const url = new URL(adyenCheckoutUrl(options))
    this.http = new HttpClient({
      baseUrl: url.origin,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      backoff: options.backoff,
      onRetry: options.onRetry,
    })
    this.path = url.pathname.replace(/\/+$/, "")
    this.#auth = adyenAuthHeaders(options)
    this.merchantAccount = options.merchantAccount
    this.returnUrl = options.returnUrl ?? DEFAULT_ADYEN_RETURN_URL
    this.inFlightDelayMs = options.backoff?.baseMs ?? IN_FLIGHT_DELAY_MS
  }

  /** `/payments` held for a later capture (`additionalData.manualCapture`). */
  authorize(request: AuthorizeRequest): Promise<GatewayResult> {
    return this.payment("authorize", request, { additionalData: { manualCapture: "true" } })
  }

  /** `/payments` captured at once (`captureDelayHours: 0`), whatever the account's capture delay. */
  sale(request: AuthorizeRequest): Promise<GatewayResult> {
    return this.payment("sale", request, { captureDelayHours: 0 })
  }

  /** `POST /payments/{psp}/captures`: Adyen's capture always names its amount, so a whole capture sends what remains. */
  async capture(request: CaptureRequest): Promise<GatewayResult> {
    const value = request.amount ?? request.remainingAmount
    if (value === undefined || !request.currencyCode) {
      // The provider sets both for every capture; a store calling the gateway itself must too.
      throw new GatewayError("Adyen captures name their amount: the request needs amount (or remainingAmount) and currencyCode", {
        gateway: this.name,
      })
    }
    return this.modification("capture", request.requestId, `/payments/${encodeURIComponent(request.transactionId)}/captures`, {
      amount: { value, currency: request.currencyCode.toUpperCase() },
    })
  }

  /** `POST /payments/{psp}/refunds`, by the payment's pspReference (Adyen refunds a payment, not a capture). */
  refund(request: RefundRequest): Promise<GatewayResult> {
    const payment = request.paymentTransactionId ?? request.transactionId
    return this.modification("refund", request.requestId, `/payments/${encodeURIComponent(payment)}/refunds`, {
      amount: { value: request.amount, currency: request.currencyCode.toUpperCase() },
    })
  }

  /**
   * An authorization is cancelled (`/cancels`); a captured payment is reversed
   * (`/reversals`: Adyen refunds it whole, or cancels it if the capture has not
   * happened yet), the nearest thing to cnpAPI's void.
   */
  cancel(request: CancelRequest): Promise<GatewayResult> {
    const payment = encodeURIComponent(request.paymentTransactionId ?? request.transactionId)
    return request.target === "authorization"
      ? this.modification("cancel", request.requestId, `/payments/${payment}/cancels`, {})
      : this.modification("reversal", request.requestId, `/payments/${payment}/reversals`, {})
  }

  /**
   * Standalone `POST /cancels` by the payment's own `reference`: cancels what
   * Adyen authorized under it, when the `/payments` answer (and its
   * pspReference) was lost. When nothing was authorized, its notification
   * says so and no money moves.
   */
  releaseByReference(request: ReleaseByReferenceRequest): Promise<GatewayResult> {
    return this.modification("release", request.requestId, "/cancels", { paymentReference: request.orderId })
  }

  private async payment(
    operation: "authorize" | "sale",
    request: AuthorizeRequest,
    capture: { additionalData?: Record<string, string>; captureDelayHours?: number }
  ): Promise<GatewayResult> {
    const shopperReference = request.customerId ?? request.formId
    if (!shopperReference) {
      // The token is stored under one of the two ("The shopper reference", docs/architecture.md).
      throw new GatewayError("Adyen pays a stored card for its shopper: the request needs customerId or formId", {
        gateway: this.name,
      })
    }
    const body = {
      amount: { currency: request.currencyCode.toUpperCase(), value: request.amount },
      reference: request.orderId,
      paymentMethod: { type: "scheme", storedPaymentMethodId: request.token },
      shopperReference,
      shopperInteraction: "ContAuth",
      recurringProcessingModel: "CardOnFile",
      returnUrl: this.returnUrl,
      merchantAccount: this.merchantAccount,
      ...capture,
    }
    const answer = await this.post(operation, request.requestId, "/payments", body, paymentResponseSchema)
    return "decline" in answer ? answer.decline : this.paymentResult(operation, answer.data)
  }

  private paymentResult(operation: "authorize" | "sale", response: PaymentResponse): GatewayResult {
    const verdict = classifyPayment(response.resultCode, response.refusalReasonCode)
    if (verdict.outcome === "pending") {
      // No verdict, and none this request can wait for: nobody can tell yet whether the card was charged.
      throw new GatewayError(`Adyen answered ${operation} with resultCode ${response.resultCode}: no verdict yet`, {
        gateway: this.name,
        responseCode: response.resultCode,
      })
    }
    if (verdict.outcome === "approved" && !response.pspReference) {
      throw new GatewayProtocolError(`Adyen approved ${operation} without a pspReference`, { gateway: this.name })
    }
    const declined = verdict.outcome === "declined"
    return {
      outcome: verdict.outcome,
      reason: "reason" in verdict ? verdict.reason : undefined,
      transactionId: response.pspReference,
      responseCode: declined && response.refusalReasonCode ? response.refusalReasonCode : response.resultCode,
      message: response.refusalReason ?? response.resultCode,
      authCode: additionalText(response.additionalData, "authCode"),
      approvedAmount: declined ? undefined : response.amount?.value,
      card: {
        last4: additionalText(response.additionalData, "cardSummary"),
        type: cardTypeOf(response.paymentMethod?.brand ?? additionalText(response.additionalData, "paymentMethod")),
      },
    }
  }

  /** A capture, refund or cancel: `201 received`, decided later by its notification. */
  private async modification(
    operation: AdyenOperation,
    requestId: string,
    path: string,
    fields: Record<string, unknown>
  ): Promise<GatewayResult> {
    const body = { merchantAccount: this.merchantAccount, ...fields, reference: requestId }
    const answer = await this.post(operation, requestId, path, body, modificationResponseSchema)
    return "decline" in answer ? answer.decline : modificationResult(answer.data)
  }

  /**
   * One POST with its Idempotency-Key; a refusal Adyen states about the
   * transaction is a decline, any other refusal a thrown error.
   */
  private async post<T>(
    operation: AdyenOperation,
    requestId: string,
    path: string,
    body: Record<string, unknown>,
    schema: z.ZodType<T>
  ): Promise<{ data: T } | { decline: GatewayResult }> {
    const idempotencyKey = adyenIdempotencyKey(operation, requestId)
    for (let attempt = 1; ; attempt++) {
      let data: unknown
      try {
        const response = await this.http.request<unknown>({
          method: "POST",
          path: `${this.path}${path}`,
          headers: { ...this.#auth, "content-type": "application/json", "idempotency-key": idempotencyKey },
          body,
          // Safe: a repeat carries the same Idempotency-Key and gets the first answer.
          idempotent: true,
        })
        data = response.data
      } catch (error) {
        const refusal = error instanceof HttpStatusError ? serviceErrorOf(error.body) : undefined
        if (error instanceof HttpStatusError && refusal?.errorCode === IN_FLIGHT && attempt <= IN_FLIGHT_RETRIES) {
          await new Promise((resolve) => setTimeout(resolve, this.inFlightDelayMs * attempt))
          continue
        }
        if (error instanceof HttpStatusError) {
          const decline = this.refusalOf(operation, error, refusal)
          if (decline) {
            return { decline }
          }
        }
        throw error
      }
      const parsed = schema.safeParse(data)
      if (!parsed.success) {
        throw new GatewayProtocolError(`Adyen answered ${operation} with an unreadable body: ${parsed.error.issues[0]?.message ?? "invalid"}`, {
          gateway: this.name,
        })
      }
      return { data: parsed.data }
    }
  }

  /**
   * A non-2xx answer: a decline when Adyen's code is a verdict on the
   * transaction (result-codes.ts), else thrown as the merchant's setup
   * (credentials, merchant account, a request Adyen's schema refuses) or left
   * to propagate (5xx and the like: the provider maps the HTTP core's errors).
   */
  private refusalOf(operation: AdyenOperation, error: HttpStatusError, refusal: ServiceError | undefined): GatewayResult | undefined {
    const code = refusal?.errorCode
    const reason = error.status === 422 ? declineOfServiceError(code) : undefined
    if (reason) {
      return {
        outcome: "declined",
        reason,
        responseCode: code ?? String(error.status),
        message: refusal?.message ?? `HTTP ${error.status}`,
      }
    }
    if (error.status === 400 || error.status === 401 || error.status === 403 || error.status === 422) {
      const said = [code, refusal?.message].filter(Boolean).join(" ")
      throw new GatewayConfigurationError(
        `Adyen refused the ${operation} request (HTTP ${error.status}${said ? `: ${said}` : ""})${
          error.status === 401 || error.status === 403 ? "; check the API key or user and password, and the merchant account" : ""
        }`,
        { gateway: this.name, responseCode: code ?? String(error.status), processorMessage: refusal?.message, cause: error }
      )
    }
    return undefined
  }
}

/** A modification's `201 received`: taken, not yet done. */
function modificationResult(response: ModificationResponse): GatewayResult {
  return {
    outcome: "approved",
    pending: true,
    transactionId: response.pspReference,
    responseCode: response.status,
    message: "received",
    approvedAmount: response.amount?.value,
  }
}
