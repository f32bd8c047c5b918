/**
 * Typed errors of the HTTP core, named for HTTP and not for any one service:
 * ServiceScan's APIs and Worldpay's both throw them, and a log line must say
 * which host failed, not suggest a ServiceScan outage when Worldpay timed out.
 *
 * Every error carries the request it belongs to (method and URL, never
 * headers: they hold keys and passwords) so a log line or an admin message can
 * say which call failed without leaking secrets. The URL is redacted too
 * ({@link redactUrl}): credentials in it, and query parameters named like one.
 *
 * ```
 * HttpError
 * ├── HttpTimeoutError          no complete answer in time (`connected`)
 * ├── HttpConnectionError       no answer at all: refused, reset, DNS, TLS (`connected`)
 * ├── HttpStatusError           a non-2xx answer (`status`, `body`, `bodyExcerpt`)
 * │   └── HttpAuthError         401, or a 403 of a key's refusal
 * └── UnreadableResponseError   an answer that cannot be used (malformed framing or body)
 *     └── BodyTooLargeError     larger than the request's cap, refused while reading
 * ```
 */

export type RequestSummary = {
  method: string
  /** The URL as requested, with credentials and secret-looking query values redacted ({@link redactUrl}). */
  url: string
}

export type HttpErrorOptions = {
  request: RequestSummary
  cause?: unknown
}

/** Base class: anything that went wrong while talking to a remote HTTP service. */
export class HttpError extends Error {
  readonly request: RequestSummary

  constructor(message: string, options: HttpErrorOptions) {
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
export type TransportErrorOptions = HttpErrorOptions & { connected?: boolean }

/** The request did not complete within the configured timeout. */
export class HttpTimeoutError extends HttpError {
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

/** No HTTP answer at all: refused, reset, DNS failure, a certificate refused. */
export class HttpConnectionError extends HttpError {
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

/** Characters of a body kept in `bodyExcerpt` and in a message. */
const EXCERPT_CHARS = 500

/** The server answered with a non-2xx status. */
export class HttpStatusError extends HttpError {
  readonly status: number
  /** Parsed JSON body when the server sent JSON, the raw text otherwise (undefined when too large to read). */
  readonly body: unknown
  /** The body's first 500 characters as text, for a log line. */
  readonly bodyExcerpt: string | undefined
  /** The `error` field of a JSON body, or the plain-text body (its first 500 characters), when there is one. */
  readonly serviceMessage: string | undefined
  readonly retryAfterMs: number | undefined

  constructor(status: number, body: unknown, options: HttpErrorOptions & { retryAfterMs?: number }) {
    const serviceMessage = extractServiceMessage(body)
    super(
      `${options.request.method} ${options.request.url} answered ${status}${
        serviceMessage ? `: ${serviceMessage}` : ""
      }`,
      options
    )
    this.status = status
    this.body = body
    this.bodyExcerpt = excerpt(body)
    this.serviceMessage = serviceMessage
    this.retryAfterMs = options.retryAfterMs
  }
}

/**
 * 401, or a 403 from the ServiceScan spec's authentication table: the key is
 * missing, unknown or lacks the permission. Retrying cannot help; the
 * merchant's configuration must change.
 */
export class HttpAuthError extends HttpStatusError {}

/**
 * The answer cannot be used: a 2xx body that does not match the documented
 * shape, or an answer whose HTTP framing is malformed (both Content-Length and
 * Transfer-Encoding, say). Asking again would get the same answer: never retried.
 */
export class UnreadableResponseError extends HttpError {
  readonly body: unknown

  constructor(message: string, body: unknown, options: HttpErrorOptions) {
    super(message, options)
    this.body = body
  }
}

/**
 * The answer's body is larger than the request allows: refused as soon as its
 * Content-Length says so, or once the bytes read pass the cap, never held whole.
 */
export class BodyTooLargeError extends UnreadableResponseError {
  readonly maxBytes: number

  constructor(maxBytes: number, options: HttpErrorOptions) {
    super(`The answer is larger than ${maxBytes} bytes`, undefined, options)
    this.maxBytes = maxBytes
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

/** Query parameters whose value is a secret by their name: redacted in every summary. */
const SECRET_PARAMETER = /key|token|secret|passw|signature|^sig$|auth|credential|session/i

/**
 * A URL fit for a log line: user name and password replaced, and the value of
 * any query parameter named like a secret. Our keys travel in headers, so
 * nothing changes for the URLs we build today; this keeps it so when a
 * configured base URL or a caller's query carries one.
 */
export function redactUrl(url: string | URL): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "(an invalid URL)"
  }
  let changed = false
  if (parsed.username || parsed.password) {
    parsed.username = "REDACTED"
    parsed.password = ""
    changed = true
  }
  for (const name of new Set(parsed.searchParams.keys())) {
    if (SECRET_PARAMETER.test(name)) {
      parsed.searchParams.set(name, "REDACTED")
      changed = true
    }
  }
  return changed ? parsed.toString() : typeof url === "string" ? url : url.toString()
}

function extractServiceMessage(body: unknown): string | undefined {
  if (typeof body === "string") {
    const text = body.trim()
    return text ? text.slice(0, EXCERPT_CHARS) : undefined
  }
  if (body && typeof body === "object" && "error" in body) {
    const error = (body as { error: unknown }).error
    return typeof error === "string" ? error : undefined
  }
  return undefined
}

function excerpt(body: unknown): string | undefined {
  if (body === undefined) {
    return undefined
  }
  const text = typeof body === "string" ? body : JSON.stringify(body)
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text
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
