/**
 * Typed errors of the ServiceScan HTTP client. Every error carries the request
 * it belongs to (method and URL, never headers: they hold the API key) so a log
 * line or an admin message can say which call failed without leaking secrets.
 */

export type RequestSummary = {
  method: string
  /** The URL without query string credentials; the API key travels in a header and is never part of it. */
  url: string
}

export type ServiceScanErrorOptions = {
  request: RequestSummary
  cause?: unknown
}

/** Base class: anything that went wrong while talking to the service. */
export class ServiceScanError extends Error {
  readonly request: RequestSummary

  constructor(message: string, options: ServiceScanErrorOptions) {
    super(message, { cause: options.cause })
    this.name = new.target.name
    this.request = options.request
  }
}

/**
 * For the errors that come without an answer: whether a connection to the
 * server was open when it happened. `false` proves the request never reached
 * the server (nothing can have been done); `true` means it may have, which is
 * what matters before repeating a request that is not idempotent.
 */
export type TransportErrorOptions = ServiceScanErrorOptions & { connected?: boolean }

/** The request did not complete within the configured timeout. */
export class ServiceScanTimeoutError extends ServiceScanError {
  readonly timeoutMs: number
  /** See `TransportErrorOptions`; true when unknown. */
  readonly connected: boolean

  constructor(timeoutMs: number, options: TransportErrorOptions) {
    super(
      `${options.request.method} ${options.request.url} timed out after ${timeoutMs} ms${
        options.connected === false ? " (while connecting)" : ""
      }`,
      options
    )
    this.timeoutMs = timeoutMs
    this.connected = options.connected ?? true
  }
}

/** No HTTP answer at all: refused, reset, DNS failure. */
export class ServiceScanConnectionError extends ServiceScanError {
  /** See `TransportErrorOptions`; true when unknown. */
  readonly connected: boolean

  constructor(options: TransportErrorOptions) {
    const reason = describeCause(options.cause)
    super(
      `Could not reach ${options.request.method} ${options.request.url}${reason ? `: ${reason}` : ""}`,
      options
    )
    this.connected = options.connected ?? true
  }
}

/** The service answered with a non-2xx status. */
export class ServiceScanHttpError extends ServiceScanError {
  readonly status: number
  /** Parsed JSON body when the service sent JSON, the raw text otherwise. */
  readonly body: unknown
  /** The `error` field of a JSON body, or the plain-text body, when there is one. */
  readonly serviceMessage: string | undefined
  readonly retryAfterMs: number | undefined

  constructor(
    status: number,
    body: unknown,
    options: ServiceScanErrorOptions & { retryAfterMs?: number }
  ) {
    const serviceMessage = extractServiceMessage(body)
    super(
      `${options.request.method} ${options.request.url} answered ${status}${
        serviceMessage ? `: ${serviceMessage}` : ""
      }`,
      options
    )
    this.status = status
    this.body = body
    this.serviceMessage = serviceMessage
    this.retryAfterMs = options.retryAfterMs
  }
}

/**
 * 401, or a 403 from the spec's authentication table: the key is missing,
 * unknown or lacks the permission. Retrying cannot help; the merchant's
 * configuration must change.
 */
export class ServiceScanAuthError extends ServiceScanHttpError {}

/**
 * The service's answer cannot be used: a 2xx body that does not match the
 * documented shape, or (streamed images) an answer whose HTTP framing is
 * malformed. Asking again would get the same answer: never retried.
 */
export class ServiceScanResponseError extends ServiceScanError {
  readonly body: unknown

  constructor(message: string, body: unknown, options: ServiceScanErrorOptions) {
    super(message, options)
    this.body = body
  }
}

const AUTH_MESSAGES = new Set([
  "An API key is required for authentication",
  "Invalid API key provided",
  "Key has invalid permissions",
])

/** True for the spec's authentication failures (plain-text 401/403 bodies). */
export function isAuthFailure(status: number, body: unknown): boolean {
  if (status === 401) {
    return true
  }
  return status === 403 && typeof body === "string" && AUTH_MESSAGES.has(body.trim())
}

function extractServiceMessage(body: unknown): string | undefined {
  if (typeof body === "string") {
    const text = body.trim()
    return text ? text.slice(0, 500) : undefined
  }
  if (body && typeof body === "object" && "error" in body) {
    const error = (body as { error: unknown }).error
    return typeof error === "string" ? error : undefined
  }
  return undefined
}

type ErrorLike = { message: string; code?: unknown; cause?: unknown }

/**
 * Duck-typed rather than `instanceof Error`: errors raised inside Node's own
 * modules come from another realm under jest's VM contexts and fail that check.
 */
function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === "object" && value !== null && typeof (value as ErrorLike).message === "string"
}

function describeCause(cause: unknown): string | undefined {
  if (!isErrorLike(cause)) {
    return undefined
  }
  // A wrapper (fetch's "fetch failed", say) keeps the socket error in `cause`.
  const socketError = isErrorLike(cause.cause) ? cause.cause : cause
  return typeof socketError.code === "string" && !socketError.message.includes(socketError.code)
    ? `${socketError.code} ${socketError.message}`
    : socketError.message
}
