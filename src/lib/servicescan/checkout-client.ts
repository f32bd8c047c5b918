import { HttpClient, RetryEvent, UnreadableResponseError } from "../http"

/**
 * The merchant-backend side of the hosted card form: exchanging a form id for
 * a processor token (`GET {checkout_url}/api/v1/<processor>/form/<form_id>`
 * with the payment-token API key in `X-API-KEY`).
 *
 * The token it returns is a card credential at the processor. Callers keep it
 * in a local variable for the one processor call that needs it and never store
 * or log it; this client never puts it in an error either.
 */

export type CheckoutClientOptions = {
  /** The service's checkout host, e.g. `https://checkout.example.com`. */
  checkoutUrl: string
  /** Sent as `X-API-KEY`. Never logged, never part of an error. */
  paymentTokenApiKey: string
  /** The processor path segment, e.g. `worldpay`. */
  processor: string
  /** Per-attempt timeout. */
  timeoutMs?: number
  /** Extra attempts after a timeout, a connection failure, 429 or 5xx (the exchange is a GET). */
  maxRetries?: number
  /** Backoff tuning, for tests. */
  backoff?: { baseMs?: number; capMs?: number }
  /** Told about each retry; the event never carries the key. */
  onRetry?: (event: RetryEvent) => void
}

/** The exchange's answer: the processor token for the card entered in the form. */
export type TokenExchangeResult = {
  token: string
}

/** Longest token accepted; processor tokens are short (Worldpay: 13 to 25 digits). */
const MAX_TOKEN_LENGTH = 512

export class CheckoutClient {
  private readonly http: HttpClient
  private readonly processor: string

  constructor(options: CheckoutClientOptions) {
    this.http = new HttpClient({
      baseUrl: options.checkoutUrl,
      apiKey: options.paymentTokenApiKey,
      timeoutMs: options.timeoutMs,
      maxRetries: options.maxRetries,
      backoff: options.backoff,
      onRetry: options.onRetry,
    })
    this.processor = options.processor
  }

  /** The URL the exchange for `formId` requests (for logs and tests; it holds no secret). */
  exchangeUrl(formId: string): string {
    return this.http.url(this.exchangePath(formId))
  }

  /**
   * Exchanges a form id for the processor token. GET, so the HTTP core retries
   * it on transient failures; the service answers a repeated exchange with the
   * same token, so a retry cannot register the card twice.
   *
   * @throws HttpStatusError / HttpAuthError for non-2xx answers
   * (status and body kept), HttpTimeoutError, HttpConnectionError,
   * and UnreadableResponseError when a 2xx body carries no usable token.
   */
  async exchangeFormId(
    formId: string,
    options: { signal?: AbortSignal } = {}
  ): Promise<TokenExchangeResult> {
    const path = this.exchangePath(formId)
    const response = await this.http.request<unknown>({
      method: "GET",
      path,
      signal: options.signal,
    })
    const token = readToken(response.data)
    if (token === undefined) {
      // The body is deliberately not attached: a malformed answer may still hold the token.
      throw new UnreadableResponseError(
        "The token exchange answered without a token string",
        describeShape(response.data),
        { request: { method: "GET", url: this.http.url(path) } }
      )
    }
    return { token }
  }

  private exchangePath(formId: string): string {
    return `/api/v1/${encodeURIComponent(this.processor)}/form/${encodeURIComponent(formId)}`
  }
}

function readToken(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null || !("token" in body)) {
    return undefined
  }
  const token = (body as { token: unknown }).token
  if (typeof token !== "string") {
    return undefined
  }
  const trimmed = token.trim()
  return trimmed !== "" && trimmed.length <= MAX_TOKEN_LENGTH ? trimmed : undefined
}

/** What the body looked like, without any of its values. */
function describeShape(body: unknown): string {
  if (body === undefined) {
    return "empty body"
  }
  if (typeof body !== "object" || body === null) {
    return `a ${typeof body} body`
  }
  return `an object with keys ${Object.keys(body).slice(0, 10).join(", ") || "(none)"}`
}
