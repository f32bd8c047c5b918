import type { Writable } from "node:stream"
import { Agent, Client, Dispatcher } from "undici"
import {
  BodyTooLargeError,
  HttpConnectionError,
  HttpError,
  HttpTimeoutError,
  RequestSummary,
  UnreadableResponseError,
} from "./errors"

/**
 * One request and its answer, over undici (Node's own HTTP client, kept by
 * Node's core team): undici does the HTTP/1.1 framing (llhttp), the keep-alive
 * pool and the socket timeouts; this file only decides what becomes of the
 * answer's bytes.
 *
 * It is an undici dispatch handler rather than `request()` or `stream()`,
 * which are thin handlers over the same `dispatch`: this one is told when the
 * request goes onto a connected socket (`onConnect`, which the typed errors'
 * `connected` needs) and gets the function that aborts it there, so a
 * deadline needs no AbortSignal per request. The body's chunks go straight to
 * the caller's sink or buffer, with no Readable in between, and reading pauses
 * (`onData` answers false) while more than `STREAM_HIGH_WATER_BYTES` wait for
 * the sink: back-pressure down to the socket.
 *
 * The chunks are views of the socket's own reads, which undici never reuses,
 * so a chunk handed to a sink stays the caller's, whatever happens next.
 */

/** How much body may wait for the caller (held or being written) before reading pauses. */
export const STREAM_HIGH_WATER_BYTES = 64 * 1024

/**
 * One keep-alive pool for the whole process. undici retires an idle socket a
 * second before the server's `Keep-Alive: timeout=` hint, so reused sockets
 * are rarely closed under us; requests that must not be repeated avoid the
 * pool altogether (see `startExchange`). Certificates are always verified.
 */
const pool = new Agent({ keepAliveTimeout: 4_000, keepAliveMaxTimeout: 60_000 })

let replacement: Dispatcher | undefined

/**
 * Sends every later request through `dispatcher` instead of the keep-alive
 * pool, or back through the pool when called without one. For wire-level
 * specs (MSW sees only the global fetch: src/lib/__tests__/support/msw-listen.ts)
 * and specs with their own trust (a test CA). Requests that must not be
 * repeated go through it too, with `Connection: close`.
 */
export function setHttpDispatcher(dispatcher?: Dispatcher): void {
  replacement = dispatcher
}

export type ExchangeRequest = {
  url: URL
  method: Dispatcher.HttpMethod
  headers: Record<string, string>
  body?: string | Buffer
  /** On a connection of its own, closed after the answer: nothing else can have used it. */
  fresh: boolean
  /** undici's own idle timeouts (waiting for the head, between body chunks); the caller's deadline covers the whole. */
  idleTimeoutMs: number
  request: RequestSummary
}

/**
 * Starts the request. Its answer's head comes in `exchange.head`; the body is
 * then read once, through `readAll` or `pipeTo`. `exchange.destroy` works at any
 * moment (a deadline, an abort).
 */
export function startExchange(request: ExchangeRequest): Exchange {
  const exchange = new Exchange(request.request, request.idleTimeoutMs)
  let dispatcher: Dispatcher = replacement ?? pool
  if (request.fresh && !replacement) {
    // A pooled socket reset as we write to it leaves nobody knowing whether the server acted on
    // the request, and such a request cannot be repeated: it goes on a new connection.
    const client = new Client(request.url.origin)
    void exchange.over.then(() => client.destroy()).catch(() => undefined)
    dispatcher = client
  }
  dispatcher.dispatch(
    {
      origin: request.url.origin,
      path: `${request.url.pathname}${request.url.search}`,
      method: request.method,
      headers: request.headers,
      body: request.body,
      headersTimeout: request.idleTimeoutMs,
      bodyTimeout: request.idleTimeoutMs,
      reset: request.fresh,
      idempotent: !request.fresh,
    },
    exchange
  )
  return exchange
}

export type AnswerHead = { status: number; headers: Headers }

/** The part of an answer the caller sees: its head, then its body exactly once. */
export interface StreamedBody {
  /** The declared Content-Length; undefined for a chunked or close-delimited body. */
  readonly length: number | undefined
  /**
   * Resolves once the first body bytes are here (or the body turned out to be
   * empty), without taking them: a caller can still answer otherwise when the
   * source fails before any byte.
   */
  firstBytes(): Promise<void>
  /**
   * Writes the body to `sink` as it arrives; reading pauses while more than
   * `STREAM_HIGH_WATER_BYTES` wait for the sink's write callbacks. Resolves
   * after the last write's callback; never ends the sink. Rejects if the
   * answer breaks off or is malformed, or the sink fails or closes; the
   * request is aborted then.
   */
  pipeTo(sink: Writable): Promise<void>
  /** The whole body, up to `maxBytes` (then `BodyTooLargeError`, without reading the rest). */
  readAll(maxBytes: number): Promise<Buffer>
  /** Aborts the exchange; a running `pipeTo`/`readAll` rejects with `error` (or a plain abort). */
  destroy(error?: Error): void
}

type Consumer = {
  take(chunk: Buffer): void
  end(): void
  fail(error: Error): void
}

/** An undici dispatch handler that holds one answer for one reader. */
export class Exchange implements Dispatcher.DispatchHandlers, StreamedBody {
  /** Resolves with the final status and headers; rejects if the exchange fails first. */
  readonly head: Promise<AnswerHead>
  /** Whether the request was ever on a connected socket (undici's `onConnect`). */
  connected = false
  /**
   * Resolves when the exchange is over: the answer read whole with every
   * write to the caller's sink called back, or failed. A deadline lasts until
   * then, not only until the server's last byte.
   */
  readonly over: Promise<void>

  private headIn = false
  private abortRequest: ((error?: Error) => void) | undefined
  private resumeReading: (() => void) | undefined
  private paused = false
  private declaredLength: number | undefined
  private held: Buffer[] = []
  private heldBytes = 0
  /** Bytes given to the sink whose write has not called back. */
  private writingBytes = 0
  private writes = 0
  private complete = false
  private consumer: Consumer | undefined
  private consumed = false
  private settled = false
  private failure: Error | undefined
  private waitingFirst: { resolve(): void; reject(error: Error): void }[] = []
  private resolveHead!: (head: AnswerHead) => void
  private rejectHead!: (error: Error) => void
  private resolveOver!: () => void

  constructor(
    private readonly request: RequestSummary,
    private readonly idleTimeoutMs: number
  ) {
    this.head = new Promise((resolve, reject) => {
      this.resolveHead = resolve
      this.rejectHead = reject
    })
    // A rejection nobody awaited yet must not become an unhandled one: callers read `head` first.
    this.head.catch(() => undefined)
    this.over = new Promise((resolve) => {
      this.resolveOver = resolve
    })
  }

  get length(): number | undefined {
    return this.declaredLength
  }

  // ---- undici's side ----

  onConnect(abort: (error?: Error) => void): void {
    if (this.failure) {
      // Our deadline (or the caller) gave up while the connection was being made.
      abort(this.failure)
      return
    }
    this.connected = true
    this.abortRequest = abort
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (status < 200) {
      // An interim answer (102, 103): the real one follows.
      return true
    }
    let headers: Headers
    try {
      headers = toHeaders(rawHeaders)
    } catch {
      // undici passes on a header with an empty name; nothing downstream can represent it.
      this.fail(new UnreadableResponseError("The answer has a malformed header line", undefined, { request: this.request }))
      return false
    }
    // undici frames by the final chunked coding: a coding under it we never asked for and could not undo.
    const coding = headers.get("transfer-encoding")
    if (coding !== null && coding.trim().toLowerCase() !== "chunked") {
      const message = `The answer's transfer coding is not supported: ${JSON.stringify(coding.slice(0, 40))}`
      this.fail(new UnreadableResponseError(message, undefined, { request: this.request }))
      return false
    }
    this.headIn = true
    const length = headers.get("content-length")
    this.declaredLength = length === null ? undefined : Number(length)
    this.resumeReading = resume
    this.resolveHead({ status, headers })
    return true
  }

  onData(chunk: Buffer): boolean {
    if (this.failure) {
      return false
    }
    if (this.consumer) {
      this.consumer.take(chunk)
    } else {
      this.held.push(chunk)
      this.heldBytes += chunk.length
      this.settleFirst()
    }
    if (this.failure || this.waitingBytes() >= STREAM_HIGH_WATER_BYTES) {
      this.paused = !this.failure
      return false
    }
    return true
  }

  onComplete(): void {
    this.complete = true
    this.settleFirst()
    this.maybeEnd()
  }

  onError(error: Error): void {
    this.fail(this.typed(error))
  }

  // ---- the caller's side ----

  firstBytes(): Promise<void> {
    if (this.failure) {
      return Promise.reject(this.failure)
    }
    if (this.held.length || this.complete || this.consumed) {
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      this.waitingFirst.push({ resolve, reject })
    })
  }

  pipeTo(sink: Writable): Promise<void> {
    return this.consume<void>((resolve, reject) => {
      const onClose = () => this.destroy(new Error("The receiving end closed before the body was sent"))
      sink.once("close", onClose)
      const done = (error?: Error | null) => {
        this.writes--
        if (error) {
          this.fail(error)
          return
        }
        if (!this.writes) {
          this.writingBytes = 0
        }
        this.resumeIfRoom()
        this.maybeEnd()
      }
      return {
        take: (chunk) => {
          this.writes++
          this.writingBytes += chunk.length
          try {
            sink.write(chunk, (error) => {
              this.writingBytes -= chunk.length
              done(error)
            })
          } catch (error) {
            // A sink that throws (a length mismatch under strict settings) will not call back.
            this.writes--
            this.writingBytes -= chunk.length
            this.fail(error as Error)
          }
        },
        end: () => {
          sink.removeListener("close", onClose)
          resolve()
        },
        fail: (error) => {
          sink.removeListener("close", onClose)
          reject(error)
        },
      }
    })
  }

  readAll(maxBytes: number): Promise<Buffer> {
    return this.consume<Buffer>((resolve, reject) => {
      let body: BodyCollector
      try {
        body = new BodyCollector(this.declaredLength, maxBytes, this.request)
      } catch (error) {
        this.fail(error as Error)
        reject(error as Error)
        return undefined
      }
      return {
        take: (chunk) => {
          try {
            body.add(chunk)
          } catch (error) {
            this.fail(error as Error)
          }
        },
        end: () => resolve(body.result()),
        fail: reject,
      }
    })
  }

  destroy(error?: Error): void {
    this.fail(error ?? new Error("The download was aborted"))
  }

  // ---- internals ----

  /** undici's failure as the typed error callers handle; our own (a deadline, a caller's reason) pass as they are. */
  private typed(cause: Error): Error {
    if (cause instanceof HttpError || this.failure) {
      return cause
    }
    const request = this.request
    const code = errorCode(cause)
    if (code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH" && !this.headIn) {
      // llhttp refused the head (two Content-Lengths, or one with Transfer-Encoding: the smuggling
      // shapes), and undici reports the refusal as this mismatch. Past the head it means a cut body.
      const message = "The answer's Content-Length contradicts its framing (two lengths, or one with Transfer-Encoding)"
      return new UnreadableResponseError(message, undefined, { request, cause })
    }
    if (code !== undefined && isUnreadable(code)) {
      return new UnreadableResponseError(`The answer's HTTP framing is malformed: ${cause.message}`, undefined, { request, cause })
    }
    if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      // undici's idle timers, set to the attempt's timeout: they only run with the request on a socket.
      return new HttpTimeoutError(this.idleTimeoutMs, { request, cause, connected: true })
    }
    if (code === "UND_ERR_INVALID_ARG" || code === "UND_ERR_NOT_SUPPORTED") {
      // Our own mistake (a header value with a line break, say), refused before anything was sent.
      return cause
    }
    return new HttpConnectionError({ request, cause, connected: this.connected })
  }

  private consume<T>(start: (resolve: (value: T) => void, reject: (error: Error) => void) => Consumer | undefined): Promise<T> {
    if (this.consumed) {
      return Promise.reject(new Error("The body is already being read"))
    }
    if (this.failure) {
      return Promise.reject(this.failure)
    }
    this.consumed = true
    return new Promise<T>((resolve, reject) => {
      const consumer = start(resolve, reject)
      if (!consumer) {
        return
      }
      this.consumer = consumer
      const held = this.held
      this.held = []
      this.heldBytes = 0
      for (const chunk of held) {
        if (this.failure) {
          return
        }
        consumer.take(chunk)
      }
      this.resumeIfRoom()
      this.maybeEnd()
    })
  }

  /** Body read and not yet taken by the caller. */
  private waitingBytes(): number {
    return this.heldBytes + this.writingBytes
  }

  private resumeIfRoom(): void {
    if (this.paused && !this.failure && this.consumer && this.waitingBytes() < STREAM_HIGH_WATER_BYTES) {
      this.paused = false
      this.resumeReading?.()
    }
  }

  /** The body is complete and every write called back: the reader is done. */
  private maybeEnd(): void {
    const consumer = this.consumer
    if (!consumer || !this.complete || this.writes || this.settled || this.failure) {
      return
    }
    this.settled = true
    this.consumer = undefined
    consumer.end()
    this.maybeOver()
  }

  /** Read whole (every write called back: see maybeEnd), or failed: nothing more can happen that a deadline must bound. */
  private maybeOver(): void {
    if (this.settled || this.failure) {
      this.resolveOver()
    }
  }

  private settleFirst(): void {
    for (const waiter of this.waitingFirst.splice(0)) {
      waiter.resolve()
    }
  }

  private fail(error: Error): void {
    if (this.failure || this.settled) {
      return
    }
    this.failure = error
    this.held = []
    this.heldBytes = 0
    this.abortRequest?.(error)
    this.rejectHead(error)
    for (const waiter of this.waitingFirst.splice(0)) {
      waiter.reject(error)
    }
    const consumer = this.consumer
    this.consumer = undefined
    consumer?.fail(error)
    this.maybeOver()
  }
}

/**
 * A whole body, gathered up to `maxBytes`. With a declared length it is
 * copied into one buffer as it comes: chunks joined at the end would hold a
 * large answer twice at the peak.
 */
class BodyCollector {
  private whole: Buffer | undefined
  private readonly parts: Buffer[] = []
  private size = 0

  /** Refuses a declared length over the cap before a byte is read. */
  constructor(
    declared: number | undefined,
    private readonly maxBytes: number,
    private readonly request: RequestSummary
  ) {
    if (declared !== undefined && declared > maxBytes) {
      throw new BodyTooLargeError(maxBytes, { request })
    }
    this.whole = declared !== undefined && declared > 0 ? Buffer.allocUnsafe(declared) : undefined
  }

  add(bytes: Buffer): void {
    if (this.size + bytes.length > this.maxBytes) {
      throw new BodyTooLargeError(this.maxBytes, { request: this.request })
    }
    if (this.whole && this.size + bytes.length > this.whole.length) {
      // More than declared: undici refuses such an answer before its end; kept correct anyway.
      this.parts.push(this.whole.subarray(0, this.size))
      this.whole = undefined
    }
    if (this.whole) {
      bytes.copy(this.whole, this.size)
    } else {
      this.parts.push(bytes)
    }
    this.size += bytes.length
  }

  result(): Buffer {
    if (this.whole) {
      return this.size === this.whole.length ? this.whole : this.whole.subarray(0, this.size)
    }
    return Buffer.concat(this.parts, this.size)
  }
}

/**
 * undici's codes for an answer it read but refused: malformed framing (llhttp's
 * `HPE_*`), a head too large. Not `HPE_INVALID_EOF_STATE` nor (past the head)
 * `UND_ERR_RES_CONTENT_LENGTH_MISMATCH`: undici raises those when the
 * connection closes mid-body, a connection failure like any other.
 */
function isUnreadable(code: string): boolean {
  return code === "UND_ERR_HEADERS_OVERFLOW" || code === "UND_ERR_RES_EXCEEDED_MAX_SIZE" || (code.startsWith("HPE_") && code !== "HPE_INVALID_EOF_STATE")
}

/** Duck-typed: undici's and Node's errors may come from another realm under jest's VM contexts. */
function errorCode(error: unknown): string | undefined {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}

/** undici's raw header list (name, value, name, value...) as a WHATWG `Headers`, repeated ones joined as fetch would. */
function toHeaders(raw: Buffer[]): Headers {
  const headers = new Headers()
  for (let i = 0; i + 1 < raw.length; i += 2) {
    headers.append(raw[i].toString("latin1"), raw[i + 1].toString("latin1"))
  }
  return headers
}
