import http, { IncomingMessage } from "node:http"
import https from "node:https"
import {
  isAuthFailure,
  RequestSummary,
  ServiceScanAuthError,
  ServiceScanConnectionError,
  ServiceScanError,
  ServiceScanHttpError,
  ServiceScanResponseError,
  ServiceScanTimeoutError,
} from "./errors"
import { BodyCollector, BodyTooLargeError, HttpProtocolError, StreamedBody, streamedGet } from "./streamed-get"

/**
 * A small HTTP core for the ServiceScan service and processor gateways, in the
 * spirit of stripe-node and ky: one base URL, a timeout on every attempt,
 * retries only where repeating the request is safe, typed errors.
 *
 * It is built on `node:http`/`node:https` with keep-alive agents, so a poller
 * making thousands of calls pays the handshake once per socket, not per call.
 * Not on the global fetch: with fetch, `npm run bench:disputes` (10,000
 * status checks in one job run) took 12-14 s and peaked at 372-395 MB RSS,
 * because each call's WHATWG objects (Request, Headers, web streams, abort
 * signals) lived long enough to be promoted; on `node:http` it takes ~8 s
 * and peaks at ~250 MB, reached before the run even starts.
 * MSW intercepts `node:http` as it does fetch, so wire-level specs still work.
 *
 * Streamed answers (`responseType: "stream"`, the evidence images) and large
 * ones (`largeAnswer`, Worldpay's case lists) are the exception: they are read
 * by `streamedGet`, into pooled buffers that are reused, on a connection of
 * their own (see there why). MSW does not see those; their specs run against
 * real local servers.
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
   * `StreamedBody` to pipe on or read once, on a connection of its own.
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
   * with a `ServiceScanResponseError` as soon as it is known to be larger,
   * without holding it.
   */
  maxBytes?: number
  /**
   * The answer may run to many megabytes (a day's chargeback cases). A GET
   * read as json, text or bytes then goes on a connection of its own and is
   * read through `streamedGet`'s pooled socket reads into one buffer of the
   * declared length (an answer without a Content-Length is gathered in parts
   * and joined). Node's HTTP client would allocate every byte twice, in
   * Buffers V8 collects only 32 MB at a time (bench/README.md, "The RSS
   * growth, found and fixed"). Retries and the deadline are those of any
   * buffered answer.
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

/**
 * One keep-alive pool per protocol for the whole process. Node's agent retires
 * an idle socket a second before the server's `Keep-Alive: timeout=` hint, so
 * reused sockets are rarely closed under us; requests that must not be
 * repeated avoid the pool altogether (see `attempt`).
 */
const keepAliveAgents = {
  "http:": new http.Agent({ keepAlive: true, scheduling: "lifo" }),
  "https:": new https.Agent({ keepAlive: true, scheduling: "lifo" }),
}

/** What the timer destroys an attempt's request with. */
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
    const url = this.url(options.path, options.query)
    const summary: RequestSummary = { method: options.method, url }
    const idempotent = options.idempotent ?? options.method === "GET"
    const attempts = 1 + (idempotent ? this.maxRetries : 0)

    let lastError: ServiceScanError | undefined
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        return await this.attempt<T>(url, summary, options, idempotent)
      } catch (error) {
        if (!(error instanceof ServiceScanError)) {
          throw error
        }
        lastError = error
        if (attempt === attempts || !isRetryable(error) || options.signal?.aborted) {
          throw error
        }
        const delayMs = this.delayFor(attempt, error)
        this.onRetry?.({ request: summary, attempt, delayMs, reason: error.message })
        await sleep(delayMs, options.signal)
      }
    }
    // Unreachable: the loop either returns or throws. Kept for the type checker.
    throw lastError as ServiceScanError
  }

  private async attempt<T>(
    url: string,
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

    const headers: Record<string, string> = {
      "user-agent": this.userAgent,
      accept: "application/json, text/plain;q=0.9, */*;q=0.8",
      ...options.headers,
    }
    const apiKey = options.apiKey ?? this.apiKey
    if (apiKey) {
      headers["x-api-key"] = apiKey
    }
    let body: string | Uint8Array | undefined
    if (options.body !== undefined) {
      if (typeof options.body === "string" || isBytes(options.body)) {
        body = options.body
      } else {
        body = JSON.stringify(options.body)
        headers["content-type"] ??= "application/json"
      }
      headers["content-length"] = String(Buffer.byteLength(body))
    }

    const target = new URL(url)
    if (responseType === "stream" || options.largeAnswer) {
      return this.attemptStream<T>(target, headers, summary, options, timeoutMs, maxBytes)
    }
    const transport = target.protocol === "https:" ? https : http
    // A request that must not be repeated goes on a fresh connection: if a
    // pooled socket is reset as we write to it, nobody can tell whether the
    // service processed the request, and such a request cannot be retried.
    // `agent: false`, not `undefined`: the latter means Node's global agent,
    // which keeps connections alive (and pools them) since Node 19.
    const agent = idempotent ? keepAliveAgents[target.protocol as "http:" | "https:"] : false
    const request = transport.request(target, {
      method: options.method,
      headers: idempotent ? headers : { ...headers, connection: "close" },
      agent,
    })

    // Whether the request can have reached the server: a pooled socket is
    // connected already, a new one once its TCP connection is up.
    let connected = false
    request.once("socket", (socket) => {
      if (socket.connecting) {
        socket.once("connect", () => {
          connected = true
        })
      } else {
        connected = true
      }
    })

    // The attempt's deadline covers the whole exchange.
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      request.destroy(new AttemptTimeout(timeoutMs))
    }, timeoutMs)
    timer.unref?.()
    const onAbort = () => request.destroy(options.signal?.reason)
    options.signal?.addEventListener("abort", onAbort, { once: true })
    const done = () => {
      clearTimeout(timer)
      options.signal?.removeEventListener("abort", onAbort)
    }
    const failure = (cause: unknown) => transportFailure(cause, { timedOut, timeoutMs, summary, connected, signal: options.signal })

    let response: IncomingMessage
    try {
      response = await new Promise<IncomingMessage>((resolve, reject) => {
        request.once("response", resolve)
        request.once("error", reject)
        request.end(body)
      })
    } catch (cause) {
      done()
      throw failure(cause)
    }

    const status = response.statusCode ?? 0
    const responseHeaders = toHeaders(response)
    if (status < 200 || status > 299) {
      const errorBody = await readBuffered(response, maxBytes).finally(done).catch(() => undefined)
      throw answerError(status, responseHeaders, errorBody, summary)
    }

    try {
      const bytes = await readBuffered(response, maxBytes)
      return { status, headers: responseHeaders, data: decodeBody(bytes, responseType) as T }
    } catch (cause) {
      throw unreadableAnswer(cause, maxBytes, summary) ?? failure(cause)
    } finally {
      done()
    }
  }

  /**
   * A GET on a connection of its own (`streamedGet`). For `responseType:
   * "stream"` the caller streams the body, and the attempt's deadline covers
   * the whole download, the caller's writes included: past the head, the
   * caller's `pipeTo` fails with the typed timeout. A `largeAnswer` is read
   * whole here, within the attempt, so that it is retried like any other.
   */
  private async attemptStream<T>(
    target: URL,
    headers: Record<string, string>,
    summary: RequestSummary,
    options: RequestOptions,
    timeoutMs: number,
    maxBytes: number
  ): Promise<HttpResponse<T>> {
    if (options.method !== "GET" || options.body !== undefined) {
      throw new TypeError(`${options.responseType === "stream" ? 'responseType "stream"' : "largeAnswer"} is for a GET without a body`)
    }
    const exchange = streamedGet(target, { headers })
    let timedOut = false
    let headIn = false
    const timer = setTimeout(() => {
      timedOut = true
      exchange.destroy(headIn ? new ServiceScanTimeoutError(timeoutMs, { request: summary }) : new AttemptTimeout(timeoutMs))
    }, timeoutMs)
    timer.unref?.()
    const onAbort = () => exchange.destroy(options.signal?.reason)
    options.signal?.addEventListener("abort", onAbort, { once: true })
    // Until the caller's writes are done too: an admin who stops reading must not hold a download forever.
    void exchange.over.then(() => {
      clearTimeout(timer)
      options.signal?.removeEventListener("abort", onAbort)
    })

    // A malformed answer will be malformed again: unreadable, not worth a retry.
    const failure = (cause: unknown) =>
      unreadableAnswer(cause, maxBytes, summary) ??
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
    if (options.responseType === "stream") {
      headIn = true
      return { status: head.status, headers: head.headers, data: exchange as StreamedBody as T }
    }
    // Settled either way, readAll has closed the connection and given back its buffers.
    try {
      const bytes = await exchange.readAll(maxBytes)
      return { status: head.status, headers: head.headers, data: decodeBody(bytes, options.responseType ?? "json") as T }
    } catch (cause) {
      throw failure(cause)
    }
  }

  private delayFor(attempt: number, error: ServiceScanError): number {
    if (error instanceof ServiceScanHttpError && error.retryAfterMs !== undefined) {
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
  if (error instanceof ServiceScanAuthError) {
    return false
  }
  if (error instanceof ServiceScanHttpError) {
    return isTransientStatus(error.status)
  }
  return error instanceof ServiceScanTimeoutError || error instanceof ServiceScanConnectionError
}

/** What a failed attempt without an answer is: our timeout, the caller's abort, or the connection. */
function transportFailure(
  cause: unknown,
  attempt: { timedOut: boolean; timeoutMs: number; summary: RequestSummary; connected: boolean; signal?: AbortSignal }
): unknown {
  const { summary: request, connected } = attempt
  if (attempt.timedOut) {
    return new ServiceScanTimeoutError(attempt.timeoutMs, { request, cause, connected })
  }
  if (attempt.signal?.aborted) {
    return attempt.signal.reason
  }
  return new ServiceScanConnectionError({ request, cause, connected })
}

/** A buffered 2xx body as the request asked for it. */
function decodeBody(bytes: Buffer, responseType: Exclude<ResponseKind, "stream">): unknown {
  return responseType === "bytes" ? bytes : responseType === "text" ? bytes.toString("utf8") : parseJsonOrText(bytes.toString("utf8"))
}

/** An answer that arrived but cannot be used: too large, or malformed framing. Not worth a retry. */
function unreadableAnswer(cause: unknown, maxBytes: number, request: RequestSummary): ServiceScanResponseError | undefined {
  if (cause instanceof BodyTooLargeError) {
    return new ServiceScanResponseError(`The answer is larger than ${maxBytes} bytes`, undefined, { request })
  }
  if (cause instanceof HttpProtocolError) {
    return new ServiceScanResponseError(cause.message, undefined, { request, cause })
  }
  return undefined
}

/** The typed error of a non-2xx answer, from its status, headers and (when read) body. */
function answerError(status: number, headers: Headers, bytes: Buffer | undefined, request: RequestSummary): ServiceScanHttpError {
  const body = bytes === undefined ? undefined : parseJsonOrText(bytes.toString("utf8"))
  const init = { request, retryAfterMs: parseRetryAfter(headers.get("retry-after")) }
  return isAuthFailure(status, body) ? new ServiceScanAuthError(status, body, init) : new ServiceScanHttpError(status, body, init)
}

/** The whole body of an answer, up to `maxBytes`. */
async function readBuffered(response: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers["content-length"])
  let body: BodyCollector
  try {
    body = new BodyCollector(Number.isSafeInteger(declared) ? declared : undefined, maxBytes)
    for await (const chunk of response) {
      body.add(chunk as Buffer, true)
    }
  } catch (error) {
    response.destroy()
    throw error
  }
  return body.result()
}

/**
 * A `Uint8Array` (a `Buffer` included), also one from another realm: jest's VM
 * contexts have their own `Uint8Array`, which `instanceof` would miss.
 */
function isBytes(value: unknown): value is Uint8Array {
  return ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === "[object Uint8Array]"
}

/** The answer's headers as a WHATWG `Headers`, repeated ones joined as fetch would. */
function toHeaders(response: IncomingMessage): Headers {
  const headers = new Headers()
  const raw = response.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    headers.append(raw[i], raw[i + 1])
  }
  return headers
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
