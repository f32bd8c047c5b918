import {
  isAuthFailure,
  RequestSummary,
  ServiceScanAuthError,
  ServiceScanConnectionError,
  ServiceScanError,
  ServiceScanHttpError,
  ServiceScanTimeoutError,
} from "./errors"

/**
 * A small HTTP core for the ServiceScan service and processor gateways, in the
 * spirit of stripe-node and ky: one base URL, a timeout on every attempt,
 * retries only where repeating the request is safe, typed errors.
 *
 * It is built on Node's global fetch (undici), whose global dispatcher keeps
 * connections alive and reuses them per origin, so a poller that makes
 * thousands of calls pays the TCP handshake once per socket, not per call.
 * Using the global fetch also lets wire-level specs intercept it with MSW.
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
  /** A JSON-serialisable value, or a string sent as is (with a content type header from `headers`). */
  body?: unknown
  /**
   * Whether repeating the request is harmless. Defaults to true for GET.
   * The disputes PUT creates a new proof request each time, so it is not.
   */
  idempotent?: boolean
  /** How to read a 2xx body. Default "json". */
  responseType?: ResponseKind
  /** Overrides the client's key for this request (the service uses different keys per API). */
  apiKey?: string
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number
  /** Caller's cancellation. */
  signal?: AbortSignal
}

export type HttpResponse<T> = {
  status: number
  headers: Headers
  data: T
}

const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504])
const DEFAULT_TIMEOUT_MS = 10_000
const DEFAULT_MAX_RETRIES = 2
const DEFAULT_BACKOFF_BASE_MS = 200
const DEFAULT_BACKOFF_CAP_MS = 5_000
/** Never wait longer than this for a Retry-After, whatever the server asks. */
const MAX_RETRY_AFTER_MS = 30_000

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
    const url = this.url(options.path, options.query)
    const summary: RequestSummary = { method: options.method, url }
    const idempotent = options.idempotent ?? options.method === "GET"
    const attempts = 1 + (idempotent ? this.maxRetries : 0)

    let lastError: ServiceScanError | undefined
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        return await this.attempt<T>(url, summary, options)
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
    options: RequestOptions
  ): Promise<HttpResponse<T>> {
    const timeoutMs = options.timeoutMs ?? this.timeoutMs
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout

    const headers: Record<string, string> = {
      "user-agent": this.userAgent,
      accept: "application/json, text/plain;q=0.9, */*;q=0.8",
      ...options.headers,
    }
    const apiKey = options.apiKey ?? this.apiKey
    if (apiKey) {
      headers["x-api-key"] = apiKey
    }
    let body: string | undefined
    if (options.body !== undefined) {
      if (typeof options.body === "string") {
        body = options.body
      } else {
        body = JSON.stringify(options.body)
        headers["content-type"] ??= "application/json"
      }
    }

    let response: Response
    try {
      response = await fetch(url, { method: options.method, headers, body, signal })
    } catch (cause) {
      if (timeout.aborted && !options.signal?.aborted) {
        throw new ServiceScanTimeoutError(timeoutMs, { request: summary, cause })
      }
      if (options.signal?.aborted) {
        throw cause
      }
      throw new ServiceScanConnectionError({ request: summary, cause })
    }

    if (!response.ok) {
      const errorBody = await readErrorBody(response)
      const init = {
        request: summary,
        retryAfterMs: parseRetryAfter(response.headers.get("retry-after")),
      }
      if (isAuthFailure(response.status, errorBody)) {
        throw new ServiceScanAuthError(response.status, errorBody, init)
      }
      throw new ServiceScanHttpError(response.status, errorBody, init)
    }

    try {
      const data = await readBody(response, options.responseType ?? "json")
      return { status: response.status, headers: response.headers, data: data as T }
    } catch (cause) {
      if (timeout.aborted) {
        throw new ServiceScanTimeoutError(timeoutMs, { request: summary, cause })
      }
      throw new ServiceScanConnectionError({ request: summary, cause })
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

/** Whether an error is worth another attempt of an idempotent request. */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ServiceScanAuthError) {
    return false
  }
  if (error instanceof ServiceScanHttpError) {
    return RETRYABLE_STATUS.has(error.status)
  }
  return error instanceof ServiceScanTimeoutError || error instanceof ServiceScanConnectionError
}

async function readBody(response: Response, kind: ResponseKind): Promise<unknown> {
  switch (kind) {
    case "stream":
      return response.body
    case "bytes":
      return Buffer.from(await response.arrayBuffer())
    case "text":
      return response.text()
    case "json": {
      const text = await response.text()
      // The real service's documented JSON is not always well-formed; callers
      // validate the parsed value, so an unparseable body reaches them as text.
      return parseJsonOrText(text)
    }
  }
}

async function readErrorBody(response: Response): Promise<unknown> {
  try {
    return parseJsonOrText(await response.text())
  } catch {
    return undefined
  }
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
