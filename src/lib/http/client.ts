import {
  HttpAuthError,
  HttpConnectionError,
  HttpError,
  HttpStatusError,
  HttpTimeoutError,
  isAuthFailure,
  redactUrl,
  RequestSummary,
} from "./errors"
import { startExchange, StreamedBody } from "./exchange"

/**
 * A small HTTP core for the ServiceScan APIs and the processors' gateways, in
 * the spirit of stripe-node and ky: one base URL, a timeout on every attempt,
 * retries only where repeating the request is safe, typed errors.
 *
 * The transport is undici (./exchange.ts): a process-wide keep-alive pool, so
 * a poller making thousands of calls pays the handshake once per socket, not
 * per call, and answers read into one buffer of their declared length, or
 * streamed on to a sink with back-pressure (the evidence images). Not the
 * global fetch: with fetch, `npm run bench:disputes` (10,000 status checks in
 * one job run) took 12-14 s and peaked at 372-395 MB RSS, because each call's
 * WHATWG objects (Request, Headers, web streams, abort signals) lived long
 * enough to be promoted; on undici's dispatch it took 7.5 s and peaked at
 * 222 MB (node:http had taken 7-20 s and 242-247 MB, bench/RESULTS.md).
 *
 * MSW sees only the global fetch, not undici's own dispatchers: wire-level
 * specs route our dispatches through it (src/lib/__tests__/support/msw-listen.ts).
 */

export type HttpMethod = "GET" | "PUT" | "POST" | "DELETE"

export type ResponseKind = "json" | "text" | "bytes" | "stream"

export type HttpClientOptions = {
  /** Base URL; request paths are appended to it. */
  baseUrl: string
  /** Sent as `X-API-KEY` unless the request overrides it. Never logged. */
  apiKey?: string
  /** Per-attempt timeout. Default 10 s. */
  timeoutMs?: number
  /** Extra attempts for idempotent requests. Default 2. */
  maxRetries?: number
  /** Backoff base and cap, for tests and tuning. */
  backoff?: { baseMs?: number; capMs?: number }
  /** Value of the User-Agent header. */
  userAgent?: string
  /** Receives one line per retry; the line never contains a key. */
  onRetry?: (event: RetryEvent) => void
}

export type RetryEvent = {
  request: RequestSummary
  attempt: number
  delayMs: number
  reason: string
}

export type RequestOptions = {
  method: HttpMethod
  path: string
  query?: Record<string, string | number | undefined>
  /** Extra request headers. Host, Connection, Content-Length and Transfer-Encoding are the transport's and refused here. */
  headers?: Record<string, string>
  /**
   * A JSON-serialisable value, or a string or bytes (a `Uint8Array`, e.g. a
   * file) sent as is, with a content type header from `headers`.
   */
  body?: unknown
  /**
   * Whether repeating the request is harmless. Defaults to true for GET.
   * The disputes PUT creates a new proof request each time, so it is not.
   */
  idempotent?: boolean
  /**
   * How to read a 2xx body. Default "json". "stream" (GET only) answers a
   * `StreamedBody` to pipe on or read once.
   */
  responseType?: ResponseKind
  /** Overrides the client's key for this request (the service uses different keys per API). */
  apiKey?: string
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number
  /** Caller's cancellation. */
  signal?: AbortSignal
  /**
   * Largest answer body to buffer, in bytes (2xx bodies read as json, text or
   * bytes, and error bodies). Default `MAX_BUFFERED_BODY_BYTES` (16 MiB). A
   * caller that expects more (a day's chargeback cases) raises it for that
   * request only; one that expects little lowers it. A larger answer fails
   * with a `BodyTooLargeError` as soon as it is known to be larger, without
   * holding it.
   */
  maxBytes?: number
  /**
   * The answer may run to many megabytes (a day's chargeback cases): a GET
   * read on a connection of its own, closed after it, rather than one of the
   * pool's. Retries and the deadline are those of any buffered answer.
   */
  largeAnswer?: boolean
}

export type HttpResponse<T> = {
  status: number
  headers: Headers
  /** For `responseType: "stream"`, a `StreamedBody` the caller must read or destroy. */
  data: T
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504])
const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_MAX_RETRIES = 2
const DEFAULT_BACKOFF_BASE_MS = 200
const DEFAULT_BACKOFF_CAP_MS = 5_000
/** Never wait longer than this for a Retry-After, whatever the server asks. */
const MAX_RETRY_AFTER_MS = 30_000
/**
 * A buffered (JSON, text, bytes) answer larger than this is refused unless the
 * request sets its own `maxBytes`: no answer of the ServiceScan service comes close.
 */
export const MAX_BUFFERED_BODY_BYTES = 16 * 1024 * 1024

/** Framing headers: the transport writes them, a caller's copy could only contradict it. */
const TRANSPORT_HEADERS = /^(host|connection|content-length|transfer-encoding|keep-alive|upgrade|te|trailer|expect)$/i

/** What the timer destroys an attempt's exchange with, before the answer's head is in. */
class AttemptTimeout extends Error {
  constructor(timeoutMs: number) {
    super(`The request took longer than ${timeoutMs} ms`)
    this.name = "TimeoutError"
  }
}

export class HttpClient {
  readonly baseUrl: string
  private readonly apiKey: string | undefined
  private readonly timeoutMs: number
  private readonly maxRetries: number
  private readonly backoffBaseMs: number
  private readonly backoffCapMs: number
  private readonly userAgent: string
  private readonly onRetry?: (event: RetryEvent) => void

  constructor(options: HttpClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "")
    this.apiKey = options.apiKey
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES
    this.backoffBaseMs = options.backoff?.baseMs ?? DEFAULT_BACKOFF_BASE_MS
    this.backoffCapMs = options.backoff?.capMs ?? DEFAULT_BACKOFF_CAP_MS
    this.userAgent = options.userAgent ?? "medusa-plugin-servicescan"
    this.onRetry = options.onRetry
  }

  /** Builds the absolute URL of a path, as the client would request it. */
  url(path: string, query?: RequestOptions["query"]): string {
    const url = new URL(this.baseUrl + (path.startsWith("/") ? path : `/${path}`))
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) {
        url.searchParams.set(name, String(value))
      }
    }
    return url.toString()
  }

  async request<T = unknown>(options: RequestOptions): Promise<HttpResponse<T>> {
    if (options.maxBytes !== undefined && !(Number.isSafeInteger(options.maxBytes) && options.maxBytes > 0)) {
      throw new TypeError(`maxBytes must be a positive integer, got ${options.maxBytes}`)
    }
    if ((options.responseType === "stream" || options.largeAnswer) && (options.method !== "GET" || options.body !== undefined)) {
      throw new TypeError(`${options.responseType === "stream" ? 'responseType "stream"' : "largeAnswer"} is for a GET without a body`)
    }
    for (const name of Object.keys(options.headers ?? {})) {
      if (TRANSPORT_HEADERS.test(name)) {
        throw new TypeError(`HttpClient sets the ${name} header itself`)
      }
    }
    const url = new URL(this.url(options.path, options.query))
    const summary: RequestSummary = { method: options.method, url: redactUrl(url) }
    const idempotent = options.idempotent ?? options.method === "GET"
    const attempts = 1 + (idempotent ? this.maxRetries : 0)

    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt<T>(url, summary, options, idempotent)
      } catch (error) {
        if (!(error instanceof HttpError) || attempt >= attempts || !isRetryable(error) || options.signal?.aborted) {
          throw error
        }
        const delayMs = this.delayFor(attempt, error)
        this.onRetry?.({ request: summary, attempt, delayMs, reason: error.message })
        await sleep(delayMs, options.signal)
      }
    }
  }

  private async attempt<T>(
    url: URL,
    summary: RequestSummary,
    options: RequestOptions,
    idempotent: boolean
  ): Promise<HttpResponse<T>> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs
    const responseType = options.responseType ?? "json"
    const maxBytes = options.maxBytes ?? MAX_BUFFERED_BODY_BYTES
    if (options.signal?.aborted) {
      throw options.signal.reason
    }

    const exchange = startExchange({
      url,
      method: options.method,
      ...this.message(url, options),
      fresh: !idempotent || options.largeAnswer === true,
      idleTimeoutMs: timeoutMs,
      request: summary,
    })

    // The attempt's deadline covers the whole exchange: for a stream, the
    // caller's writes too, so past the head the caller's `pipeTo` fails with
    // the typed timeout (an admin who stops reading must not hold a download forever).
    let timedOut = false
    let headIn = false
    const timer = setTimeout(() => {
      timedOut = true
      exchange.destroy(headIn ? new HttpTimeoutError(timeoutMs, { request: summary }) : new AttemptTimeout(timeoutMs))
    }, timeoutMs)
    timer.unref?.()
    const onAbort = () => exchange.destroy(options.signal?.reason)
    options.signal?.addEventListener("abort", onAbort, { once: true })
    void exchange.over.then(() => {
      clearTimeout(timer)
      options.signal?.removeEventListener("abort", onAbort)
    })
    const failure = (cause: unknown) =>
      transportFailure(cause, { timedOut, timeoutMs, summary, connected: exchange.connected, signal: options.signal })

    let head: Awaited<typeof exchange.head>
    try {
      head = await exchange.head
    } catch (cause) {
      throw failure(cause)
    }
    if (head.status < 200 || head.status > 299) {
      const errorBody = await exchange.readAll(maxBytes).catch(() => undefined)
      throw answerError(head.status, head.headers, errorBody, summary)
    }
    if (responseType === "stream") {
      headIn = true
      return { status: head.status, headers: head.headers, data: exchange as StreamedBody as T }
    }
    try {
      const bytes = await exchange.readAll(maxBytes)
      return { status: head.status, headers: head.headers, data: decodeBody(bytes, responseType) as T }
    } catch (cause) {
      throw failure(cause)
    }
  }

  /** The request's headers and body, as they go on the wire. */
  private message(url: URL, options: RequestOptions): { headers: Record<string, string>; body?: string | Buffer } {
    const headers: Record<string, string> = {
      "user-agent": this.userAgent,
      accept: "application/json, text/plain;q=0.9, */*;q=0.8",
      ...options.headers,
    }
    const apiKey = options.apiKey ?? this.apiKey
    if (apiKey) {
      headers["x-api-key"] = apiKey
    }
    // Credentials in a configured URL are sent as Node's own client sent them (and redacted from every summary).
    if ((url.username || url.password) && !Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`
      headers.authorization = `Basic ${Buffer.from(credentials).toString("base64")}`
    }
    if (options.body === undefined) {
      return { headers }
    }
    let body: string | Buffer
    if (typeof options.body === "string") {
      body = options.body
    } else if (isBytes(options.body)) {
      body = Buffer.from(options.body.buffer, options.body.byteOffset, options.body.byteLength)
    } else {
      body = JSON.stringify(options.body)
      headers["content-type"] ??= "application/json"
    }
    // Declared rather than left to the transport, so a spec's MSW handler sees it as the service would.
    headers["content-length"] = String(Buffer.byteLength(body))
    return { headers, body }
  }

  private delayFor(attempt: number, error: HttpError): number {
    if (error instanceof HttpStatusError && error.retryAfterMs !== undefined) {
      return Math.min(error.retryAfterMs, MAX_RETRY_AFTER_MS)
    }
    // Full jitter (AWS architecture blog): spreads retries of many clients apart.
    const ceiling = Math.min(this.backoffCapMs, this.backoffBaseMs * 2 ** (attempt - 1))
    return Math.round(Math.random() * ceiling)
  }
}

/** Statuses that say "not now" rather than "no": worth another attempt, never a configuration problem. */
export function isTransientStatus(status: number): boolean {
  return RETRYABLE_STATUS.has(status)
}

/** Whether an error is worth another attempt of an idempotent request. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof HttpAuthError) {
    return false
  }
  if (error instanceof HttpStatusError) {
    return isTransientStatus(error.status)
  }
  return error instanceof HttpTimeoutError || error instanceof HttpConnectionError
}

/**
 * What a failed attempt is: the transport's typed error (an answer that cannot
 * be used, a connection failure), our timeout, the caller's abort, or our own
 * mistake refused before sending.
 */
function transportFailure(
  cause: unknown,
  attempt: { timedOut: boolean; timeoutMs: number; summary: RequestSummary; connected: boolean; signal?: AbortSignal }
): unknown {
  const { summary: request, connected, timeoutMs } = attempt
  if (cause instanceof HttpError) {
    return cause
  }
  if (attempt.timedOut) {
    return new HttpTimeoutError(timeoutMs, { request, cause, connected })
  }
  if (attempt.signal?.aborted) {
    return attempt.signal.reason
  }
  // undici's refusal of our own request (a header value with a line break, say): a TypeError of ours, not retried.
  return cause
}

/** A buffered 2xx body as the request asked for it. */
function decodeBody(bytes: Buffer, responseType: Exclude<ResponseKind, "stream">): unknown {
  return responseType === "bytes" ? bytes : responseType === "text" ? bytes.toString("utf8") : parseJsonOrText(bytes.toString("utf8"))
}

/** The typed error of a non-2xx answer, from its status, headers and (when read) body. */
function answerError(status: number, headers: Headers, bytes: Buffer | undefined, request: RequestSummary): HttpStatusError {
  const body = bytes === undefined ? undefined : parseJsonOrText(bytes.toString("utf8"))
  const init = { request, retryAfterMs: parseRetryAfter(headers.get("retry-after")) }
  return isAuthFailure(status, body) ? new HttpAuthError(status, body, init) : new HttpStatusError(status, body, init)
}

/**
 * A `Uint8Array` (a `Buffer` included), also one from another realm: jest's VM
 * contexts have their own `Uint8Array`, which `instanceof` would miss.
 */
function isBytes(value: unknown): value is Uint8Array {
  return ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === "[object Uint8Array]"
}

function parseJsonOrText(text: string): unknown {
  if (text === "") {
    return undefined
  }
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

function parseRetryAfter(value: string | null): number | undefined {
  if (!value) {
    return undefined
  }
  const seconds = Number(value)
  if (Number.isFinite(seconds) && seconds >= 0) {
    return seconds * 1000
  }
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener("abort", onAbort, { once: true })
  })
}
