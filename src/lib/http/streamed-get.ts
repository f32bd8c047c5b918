import { createHash } from "node:crypto"
import { validateHeaderName, validateHeaderValue } from "node:http"
import net from "node:net"
import tls from "node:tls"
import type { Writable } from "node:stream"

/**
 * One HTTP/1.1 GET whose answer body is read into pooled, reused buffers and
 * handed on as views of them: the admin image proxy's way to ServiceScan.
 *
 * Why not `node:http`: its client gives every socket read a new Buffer, and its
 * parser copies each body chunk into another. Moving 20 images of 5 MB at once
 * made some 200 MB of short-lived Buffers, and V8 only collects young
 * ArrayBuffer memory once 32 MB of it is waiting (its
 * `Heap::AllocateExternalBackingStore`: twice the largest semi-space, a
 * constant), so the server's RSS rose by 53-78 MB per burst
 * (`npm run bench:image-proxy`). Here the socket reads into 64 KB buffers
 * taken from a pool all downloads share (`net.connect`'s `onread`), the body
 * bytes go to the sink as views of them, and reading goes on only while less
 * than one buffer's worth waits for the sink's write callbacks: a download
 * holds two or three buffers, whatever its size, and makes no garbage per
 * chunk. The same bench measured 4-5 MB of growth.
 *
 * Deliberately narrow: GET only, `Connection: close` (no pooling), answers
 * framed by Content-Length, chunked transfer coding or the connection's end.
 * Anything else in a head (obsolete line folding, conflicting or invalid
 * lengths, a coding other than chunked, a head over 32 KB) is refused as a
 * protocol error rather than guessed at: the answer comes from one configured
 * service, and a proxy that guesses at framing can be made to pass along
 * bytes that belong to something else.
 */

/** Bytes of one read buffer; also how much body may wait in the sink before reading pauses. */
export const STREAM_BUFFER_BYTES = 64 * 1024
/** The largest plaintext of one TLS record: a read target smaller than this gets a fresh buffer instead. */
const MIN_READ_BYTES = 16 * 1024
const MAX_HEAD_BYTES = 32 * 1024
const MAX_CHUNK_LINE_BYTES = 1024
const MAX_TRAILER_BYTES = 8 * 1024
/**
 * Read buffers free for the next read, shared by every download of the
 * process: a buffer lives as long as the download that has it, so it outlives
 * young collections, and one per download would pile up in the old generation
 * until a full collection. At most this many are kept (4 MB).
 */
const MAX_FREE_BUFFERS = 64
const freeBuffers: Buffer[] = []

function takeBuffer(): Buffer {
  return freeBuffers.pop() ?? Buffer.allocUnsafe(STREAM_BUFFER_BYTES)
}

/**
 * Only for buffers that nothing can read from or write into any more: no read
 * can land in them and no view of them waits in a sink. Another download's
 * bytes go into them next, so a view still being sent would leak one admin's
 * image into another's.
 */
function giveBack(buffers: Buffer[]): void {
  for (const buffer of buffers) {
    if (freeBuffers.length < MAX_FREE_BUFFERS) {
      freeBuffers.push(buffer)
    }
  }
}

/**
 * TLS sessions to resume, by server and trust (as `https.Agent` keeps them):
 * each image has a connection of its own, and a page of thumbnails would
 * otherwise pay a full handshake per image. Keyed by the CA given too, so a
 * session made under one trust is never resumed under another.
 */
const MAX_TLS_SESSIONS = 32
const tlsSessions = new Map<string, Buffer>()

function tlsSessionKey(host: string, port: number, ca: tls.ConnectionOptions["ca"]): string {
  const trust = ca === undefined ? "system" : createHash("sha256").update(String(ca)).digest("hex")
  return `${host}:${port}:${trust}`
}

function keepTlsSession(key: string, session: Buffer): void {
  tlsSessions.delete(key)
  tlsSessions.set(key, session)
  if (tlsSessions.size > MAX_TLS_SESSIONS) {
    tlsSessions.delete(tlsSessions.keys().next().value as string)
  }
}

/** 2^40: no chunk of any answer this client reads comes close; keeps the arithmetic exact. */
const MAX_CHUNK_SIZE = 2 ** 40

/** A framing or syntax error in the answer; the connection is closed, nothing after it is read. */
export class HttpProtocolError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "HttpProtocolError"
  }
}

/** The answer's body was larger than the caller's `readAll` limit. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The answer is larger than ${maxBytes} bytes`)
    this.name = "BodyTooLargeError"
  }
}

/**
 * A whole body, gathered up to `maxBytes` (both clients' buffered reads).
 * With a declared length it is copied into one buffer as it comes: chunks
 * joined at the end would hold a large answer twice at the peak.
 */
export class BodyCollector {
  private whole: Buffer | undefined
  private readonly parts: Buffer[] = []
  private size = 0

  /** Refuses a declared length over the cap before a byte is read. */
  constructor(
    declared: number | undefined,
    private readonly maxBytes: number
  ) {
    if (declared !== undefined && declared > maxBytes) {
      throw new BodyTooLargeError(maxBytes)
    }
    this.whole = declared !== undefined && declared > 0 ? Buffer.allocUnsafe(declared) : undefined
  }

  /**
   * Takes the next bytes, or throws `BodyTooLargeError` past the cap. `owned`:
   * the caller will not reuse them, so they may be kept as they are rather
   * than copied (a view of a read buffer is not owned).
   */
  add(bytes: Buffer, owned: boolean): void {
    if (this.size + bytes.length > this.maxBytes) {
      throw new BodyTooLargeError(this.maxBytes)
    }
    if (this.whole && this.size + bytes.length > this.whole.length) {
      // More than declared: neither client's framing lets it happen; kept correct anyway.
      this.parts.push(this.whole.subarray(0, this.size))
      this.whole = undefined
    }
    if (this.whole) {
      bytes.copy(this.whole, this.size)
    } else {
      this.parts.push(owned ? bytes : Buffer.from(bytes))
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

export type StreamedGetOptions = {
  /** Request headers; `Host` and `Connection` are set here and may not be given. */
  headers: Record<string, string>
  /** Extra TLS options for `https:` URLs (tests pass their own CA). Certificates are always verified. */
  tls?: Pick<tls.ConnectionOptions, "ca">
}

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
   * Writes the body to `sink` as views of the read buffers; a buffer is read
   * into again only after the sink called back for every view of it.
   * Resolves after the last write's callback; never ends the sink. Rejects if
   * the answer breaks off, its framing is wrong, or the sink fails; the
   * connection is closed either way.
   */
  pipeTo(sink: Writable): Promise<void>
  /** The whole body, copied out, up to `maxBytes` (then `BodyTooLargeError`). */
  readAll(maxBytes: number): Promise<Buffer>
  /** Closes the connection; a running `pipeTo`/`readAll` rejects with `error` (or a plain abort). */
  destroy(error?: Error): void
}

export type StreamedHead = { status: number; headers: Headers }

type Framing =
  | { kind: "length"; remaining: number }
  | { kind: "chunked"; state: ChunkState; remaining: number; line: string; trailerBytes: number }
  | { kind: "close" }

type ChunkState = "size" | "size-lf" | "data" | "data-cr" | "data-lf" | "trailer" | "trailer-lf"

type Consumer = {
  write(view: Buffer, done: (error?: Error | null) => void): void
  resolve(): void
  reject(error: Error): void
}

/**
 * Sends a GET for `url` and resolves with the answer's head once it is in;
 * the body is then read as the caller takes it. `exchange.destroy` works at
 * any moment (a timeout, an abort); `exchange.connected` tells whether the TCP
 * connection was ever up.
 */
export function streamedGet(url: URL, options: StreamedGetOptions): StreamedGet {
  return new StreamedGet(url, options)
}

export class StreamedGet implements StreamedBody {
  /** Resolves with the status and headers; rejects if the exchange fails first. */
  readonly head: Promise<StreamedHead>
  /** Whether the connection to the server was ever established. */
  connected = false
  /** Resolves when the connection is closed, whichever way. */
  readonly closed: Promise<void>
  /**
   * Resolves when the exchange is over: the connection closed and the caller's
   * read settled with no write to the sink outstanding (a deadline must last
   * until then, not only until the service's last byte).
   */
  readonly over: Promise<void>

  private readonly socket: net.Socket
  /** The buffer reads go into, from `offset` on. */
  private base: Buffer = takeBuffer()
  private offset = 0
  private lastRead = 0
  /** Earlier buffers behind views not yet written. */
  private busy: Buffer[] = []
  /** For `releaseBuffers`: the socket is closed, the caller's read is over (either way). */
  private socketClosed = false
  private settled = false
  private released = false
  private state: "head" | "body" | "complete" | "failed" = "head"
  private headParts: Buffer[] = []
  private headSize = 0
  private framing: Framing | undefined
  private declaredLength: number | undefined
  /** Views of the read buffers, decoded and not yet given to the sink. */
  private held: Buffer[] = []
  private writing = 0
  private writingBytes = 0
  private paused = false
  private consumer: Consumer | undefined
  private waitingFirst: { resolve(): void; reject(error: Error): void }[] = []
  private failure: Error | undefined
  private resolveHead!: (head: StreamedHead) => void
  private rejectHead!: (error: Error) => void
  private resolveClosed!: () => void
  private resolveOver!: () => void

  constructor(url: URL, options: StreamedGetOptions) {
    this.head = new Promise((resolve, reject) => {
      this.resolveHead = resolve
      this.rejectHead = reject
    })
    // A rejection nobody awaited yet must not become an unhandled one: callers read `head` first.
    this.head.catch(() => undefined)
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve
    })
    this.over = new Promise((resolve) => {
      this.resolveOver = resolve
    })
    const request = requestHead(url, options.headers)
    const port = Number(url.port) || (url.protocol === "https:" ? 443 : 80)
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1")
    // `buffer` as a function: Node asks it for the next read's buffer after every read. A
    // TLS socket can deliver decrypted records after reading was paused, so a read must never
    // land in a buffer whose views are still being written (see `nextReadBuffer`).
    const onread = {
      buffer: () => this.nextReadBuffer(),
      callback: (bytes: number, buffer: Buffer) => this.onRead(bytes, buffer),
    }
    if (url.protocol === "https:") {
      const sessionKey = tlsSessionKey(host, port, options.tls?.ca)
      this.socket = tls.connect({
        host,
        port,
        servername: net.isIP(host) ? undefined : host,
        ca: options.tls?.ca,
        session: tlsSessions.get(sessionKey),
        onread,
      } as tls.ConnectionOptions)
      this.socket.on("session", (session: Buffer) => keepTlsSession(sessionKey, session))
      // A handshake that failed may have failed on the session: the next one starts afresh.
      this.socket.once("error", () => tlsSessions.delete(sessionKey))
    } else if (url.protocol === "http:") {
      this.socket = net.connect({ host, port, onread })
    } else {
      throw new TypeError(`streamedGet takes http: or https: URLs, got ${url.protocol}`)
    }
    this.socket.once("connect", () => {
      this.connected = true
    })
    // Once the body is complete, whatever the connection does next (a reset, its close) is not ours.
    this.socket.on("error", (error) => {
      if (this.state === "head" || this.state === "body") {
        this.fail(error)
      }
    })
    this.socket.on("end", () => this.onEnd())
    this.socket.on("close", () => {
      if (this.state === "head" || this.state === "body") {
        this.fail(new Error("The connection closed before the answer was complete"))
      }
      this.socketClosed = true
      this.releaseBuffers()
      this.resolveClosed()
    })
    // Written, not ended: a half-closed request makes servers such as Node's abort the answer.
    // latin1, as node:http writes heads: the checks above allow no character past 0xFF.
    this.socket.write(request, "latin1")
  }

  get length(): number | undefined {
    return this.declaredLength
  }

  firstBytes(): Promise<void> {
    if (this.failure) {
      return Promise.reject(this.failure)
    }
    if (this.held.length || this.state === "complete") {
      return Promise.resolve()
    }
    return new Promise((resolve, reject) => {
      this.waitingFirst.push({ resolve, reject })
      this.resumeIfRoom()
    })
  }

  pipeTo(sink: Writable): Promise<void> {
    return this.consume((resolve, reject) => {
      const onClose = () => this.destroy(new Error("The receiving end closed before the body was sent"))
      sink.once("close", onClose)
      const settle = () => sink.removeListener("close", onClose)
      return {
        write: (view, done) => {
          sink.write(view, done)
        },
        resolve: () => {
          settle()
          resolve()
        },
        reject: (error) => {
          settle()
          reject(error)
        },
      }
    })
  }

  readAll(maxBytes: number): Promise<Buffer> {
    return this.consume<Buffer>((resolve, reject) => {
      const body = new BodyCollector(this.declaredLength, maxBytes)
      return {
        write: (view, done) => {
          try {
            body.add(view, false)
          } catch (error) {
            done(error as Error)
            return
          }
          done()
        },
        resolve: () => resolve(body.result()),
        reject,
      }
    })
  }

  destroy(error?: Error): void {
    this.fail(error ?? new Error("The download was aborted"))
  }

  private consume<T>(
    start: (resolve: (value: T) => void, reject: (error: Error) => void) => Consumer
  ): Promise<T> {
    if (this.consumer || this.state === "head") {
      return Promise.reject(new Error(this.consumer ? "The body is already being read" : "The head is not in yet"))
    }
    if (this.failure) {
      return Promise.reject(this.failure)
    }
    return new Promise<T>((resolve, reject) => {
      try {
        this.consumer = start(resolve, reject)
      } catch (error) {
        this.fail(error as Error)
        reject(error)
        return
      }
      this.flush()
    })
  }

  /** The socket's read callback: `bytes` new bytes at the start of `buffer`. False pauses reading. */
  private onRead(bytes: number, buffer: Buffer): boolean {
    this.lastRead = bytes
    try {
      if (this.state === "head") {
        const bodyStart = this.takeHead(buffer.subarray(0, bytes))
        if (bodyStart === undefined) {
          return true
        }
        this.decode(buffer, bodyStart, bytes)
      } else if (this.state === "body") {
        this.decode(buffer, 0, bytes)
      } else {
        // Bytes after the body's end (or after a failure) belong to nobody.
        return false
      }
    } catch (error) {
      this.fail(error as Error)
      return false
    }
    // Nothing here resumes the socket: Node stops reading when this callback
    // returns false, after anything called from inside it. So the writes start
    // on the next tick, and a resume comes from their callbacks.
    if (this.held.length) {
      this.settleFirst()
      if (!this.writing) {
        process.nextTick(this.flushSoon)
      }
      // Read ahead while the sink writes, up to one buffer's worth in flight.
      if (this.consumer && this.bytesInFlight() < STREAM_BUFFER_BYTES) {
        return true
      }
      this.paused = true
      return false
    }
    // (Read through a method: the checks above narrowed `state`, and decode may have moved it.)
    if (this.isComplete()) {
      this.settleFirst()
      this.finish()
      return false
    }
    if (this.paused) {
      // A TLS socket's late record with no body bytes in it: reading was stopped, start it again.
      process.nextTick(this.resumeSoon)
    }
    return true
  }

  /** Body bytes read and not yet written out. */
  private bytesInFlight(): number {
    let bytes = this.writingBytes
    for (const view of this.held) {
      bytes += view.length
    }
    return bytes
  }

  private isComplete(): boolean {
    return this.state === "complete"
  }

  /**
   * Where the next read goes. With no view waiting to be written, the whole
   * buffer again. Otherwise past the bytes just read, so the views stay
   * intact; when less than a TLS record's worth is left, another buffer from
   * the pool. (A TLS socket also hands on records it already decrypted after
   * a pause: they land here too, never on a view in flight.)
   */
  private nextReadBuffer(): Buffer {
    if (!this.held.length && !this.writing) {
      this.offset = 0
      return this.base
    }
    this.offset += this.lastRead
    this.lastRead = 0
    if (this.base.length - this.offset >= MIN_READ_BYTES) {
      return this.base.subarray(this.offset)
    }
    this.busy.push(this.base)
    this.base = takeBuffer()
    this.offset = 0
    return this.base
  }

  /**
   * Adds a read to the head; on the head's end, parses it and answers where
   * the body starts in the read. Only an unfinished head is copied (the read
   * buffer is read into again): a whole one is parsed where it lies.
   */
  private takeHead(read: Buffer): number | undefined {
    let offsetInRead = 0
    for (;;) {
      const rest = read.subarray(offsetInRead)
      const before = this.headSize
      const joined = before ? Buffer.concat([...this.headParts, rest]) : rest
      // Search from just before the new bytes: the blank line may straddle two reads.
      const end = joined.indexOf("\r\n\r\n", Math.max(0, before - 3))
      if (end < 0 ? joined.length > MAX_HEAD_BYTES : end > MAX_HEAD_BYTES) {
        throw new HttpProtocolError(`The answer's head is larger than ${MAX_HEAD_BYTES} bytes`)
      }
      if (end < 0) {
        this.headParts = [before ? joined : Buffer.from(joined)]
        this.headSize = joined.length
        return undefined
      }
      const head = parseHead(joined.subarray(0, end).toString("latin1"))
      offsetInRead += end + 4 - before
      this.headParts = []
      this.headSize = 0
      if (head.status >= 100 && head.status < 200) {
        if (head.status === 101) {
          throw new HttpProtocolError("The server switched protocols on a plain GET")
        }
        // An interim answer (100, 102, 103): the real one follows, maybe in the same read.
        if (offsetInRead >= read.length) {
          return undefined
        }
        continue
      }
      this.framing = framingOf(head)
      this.declaredLength = this.framing.kind === "length" ? this.framing.remaining : undefined
      this.state = this.framing.kind === "length" && this.framing.remaining === 0 ? "complete" : "body"
      this.resolveHead({ status: head.status, headers: head.headers })
      return offsetInRead
    }
  }

  /** Decodes `buffer[start, end)` into views of the body (held until written). */
  private decode(buffer: Buffer, start: number, end: number): void {
    const framing = this.framing!
    if (framing.kind === "close") {
      if (end > start) {
        this.held.push(buffer.subarray(start, end))
      }
      return
    }
    if (framing.kind === "length") {
      const take = Math.min(framing.remaining, end - start)
      if (take > 0) {
        this.held.push(buffer.subarray(start, start + take))
        framing.remaining -= take
      }
      if (framing.remaining === 0) {
        this.state = "complete"
      }
      return
    }
    let at = start
    while (at < end && this.state === "body") {
      if (framing.state === "data") {
        const take = Math.min(framing.remaining, end - at)
        this.held.push(buffer.subarray(at, at + take))
        at += take
        framing.remaining -= take
        if (framing.remaining === 0) {
          framing.state = "data-cr"
        }
        continue
      }
      const byte = buffer[at++]
      switch (framing.state) {
        case "size":
          if (byte === 0x0d) {
            framing.state = "size-lf"
          } else {
            framing.line += String.fromCharCode(byte)
            if (framing.line.length > MAX_CHUNK_LINE_BYTES) {
              throw new HttpProtocolError("A chunk size line is too long")
            }
          }
          break
        case "size-lf": {
          expectByte(byte, 0x0a, "a chunk size line")
          const size = parseChunkSize(framing.line)
          framing.line = ""
          if (size === 0) {
            framing.state = "trailer"
          } else {
            framing.remaining = size
            framing.state = "data"
          }
          break
        }
        case "data-cr":
          expectByte(byte, 0x0d, "a chunk")
          framing.state = "data-lf"
          break
        case "data-lf":
          expectByte(byte, 0x0a, "a chunk")
          framing.state = "size"
          break
        case "trailer":
          // Trailer fields are read past (this client uses none); an empty line ends the body.
          if (byte === 0x0d) {
            framing.state = "trailer-lf"
          } else {
            framing.line += "x"
            framing.trailerBytes++
            if (framing.trailerBytes > MAX_TRAILER_BYTES) {
              throw new HttpProtocolError(`The answer's trailer is larger than ${MAX_TRAILER_BYTES} bytes`)
            }
          }
          break
        case "trailer-lf":
          expectByte(byte, 0x0a, "the trailer")
          if (framing.line === "") {
            this.state = "complete"
          } else {
            framing.line = ""
            framing.state = "trailer"
          }
          break
      }
    }
  }

  /** Hands the held views to the consumer; when all are written, reads on (or completes). */
  private flush(): void {
    const consumer = this.consumer
    if (!consumer || this.writing || this.failure) {
      return
    }
    if (!this.held.length) {
      if (this.state === "complete") {
        this.finish()
      } else {
        this.resumeIfRoom()
      }
      return
    }
    // Views decoded meanwhile (a TLS socket's late records) wait for the next round.
    const views = this.held
    this.held = []
    this.writing = views.length
    this.writingBytes = 0
    for (const view of views) {
      this.writingBytes += view.length
    }
    for (let i = 0; i < views.length; i++) {
      try {
        consumer.write(views[i], this.written)
      } catch (error) {
        // A sink that throws (a length mismatch under strict settings) will not call back for these.
        this.writing -= views.length - i
        this.fail(error as Error)
        return
      }
    }
    this.resumeIfRoom()
  }

  // Bound once: a download makes thousands of reads and writes, and these run for each.
  private readonly flushSoon = (): void => this.flush()
  private readonly resumeSoon = (): void => this.resumeIfRoom()

  private readonly written = (error?: Error | null): void => {
    this.writing--
    if (this.failure) {
      this.releaseBuffers()
      return
    }
    if (error) {
      this.fail(error)
      return
    }
    if (this.writing === 0) {
      this.writingBytes = 0
      this.freeWrittenBuffers()
      this.flush()
    }
  }

  /** Earlier buffers with no view left in flight (not the read target): free for any download. */
  private freeWrittenBuffers(): void {
    if (!this.busy.length) {
      return
    }
    const inUse = new Set(this.held.map((view) => view.buffer))
    const free = this.busy.filter((buffer) => !inUse.has(buffer.buffer))
    if (free.length) {
      this.busy = this.busy.filter((buffer) => inUse.has(buffer.buffer))
      giveBack(free)
    }
  }

  /** Returns the buffers to the shared pool once nothing can touch them (see `giveBack`). */
  private releaseBuffers(): void {
    if (this.released || !this.socketClosed || !this.settled || this.writing) {
      return
    }
    this.released = true
    this.held = []
    giveBack([this.base, ...this.busy.splice(0)])
    this.resolveOver()
  }

  private resumeIfRoom(): void {
    if (this.state !== "body" || this.failure || !this.consumer || this.bytesInFlight() >= STREAM_BUFFER_BYTES) {
      return
    }
    if (this.paused) {
      this.paused = false
      this.socket.resume()
    }
  }

  private onEnd(): void {
    if (this.state === "body" && this.framing?.kind === "close") {
      this.state = "complete"
      this.settleFirst()
      this.flush()
      return
    }
    if (this.state === "head" || this.state === "body") {
      this.fail(new Error(this.state === "head" ? "The connection closed before the answer's head" : "The connection closed mid-body"))
    }
  }

  private settleFirst(): void {
    for (const waiter of this.waitingFirst.splice(0)) {
      waiter.resolve()
    }
  }

  /** The whole body is read: the connection has nothing more for us; the caller is done once it is written. */
  private finish(): void {
    const consumer = this.consumer
    this.socket.destroy()
    if (consumer && !this.failure && !this.writing && !this.held.length) {
      this.consumer = undefined
      this.state = "complete"
      // Later socket events (its close) must not fail a body that arrived whole.
      this.failure = new Error("The body was already read")
      this.settled = true
      consumer.resolve()
      this.releaseBuffers()
    }
  }

  private fail(error: Error): void {
    if (this.failure) {
      return
    }
    this.failure = error
    this.state = "failed"
    this.socket.destroy()
    this.rejectHead(error)
    for (const waiter of this.waitingFirst.splice(0)) {
      waiter.reject(error)
    }
    const consumer = this.consumer
    this.consumer = undefined
    consumer?.reject(error)
    this.settled = true
    this.releaseBuffers()
  }
}

/** The request's head, with header names and values checked as Node's own client checks them. */
function requestHead(url: URL, headers: Record<string, string>): string {
  let head = `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`
  for (const [name, value] of Object.entries(headers)) {
    if (/^(host|connection|content-length|transfer-encoding)$/i.test(name)) {
      throw new TypeError(`streamedGet sets the ${name} header itself`)
    }
    validateHeaderName(name)
    validateHeaderValue(name, value)
    head += `${name}: ${value}\r\n`
  }
  return `${head}Connection: close\r\n\r\n`
}

const STATUS_LINE = /^HTTP\/1\.[01] ([1-9]\d\d)(?: [^\r\n]*)?$/
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

function parseHead(text: string): { status: number; headers: Headers } {
  const lines = text.split("\r\n")
  const statusLine = STATUS_LINE.exec(lines[0])
  if (!statusLine) {
    throw new HttpProtocolError(`Not an HTTP/1.x status line: ${JSON.stringify(lines[0].slice(0, 80))}`)
  }
  const headers = new Headers()
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":")
    const name = colon > 0 ? line.slice(0, colon) : ""
    // Obsolete line folding starts with a space or tab and has no name: refused (RFC 9112, 5.2).
    if (!TOKEN.test(name)) {
      throw new HttpProtocolError(`A malformed header line in the answer: ${JSON.stringify(line.slice(0, 80))}`)
    }
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "")
    if (/[\0\n\r]/.test(value)) {
      throw new HttpProtocolError(`The answer's ${name} header holds a control character`)
    }
    headers.append(name, value)
  }
  return { status: Number(statusLine[1]), headers }
}

function framingOf(head: { status: number; headers: Headers }): Framing {
  if (head.status === 204 || head.status === 304) {
    return { kind: "length", remaining: 0 }
  }
  const coding = head.headers.get("transfer-encoding")
  const length = head.headers.get("content-length")
  if (coding !== null) {
    // Both framings at once is the classic smuggling shape: refused, not resolved.
    if (length !== null) {
      throw new HttpProtocolError("The answer has both Transfer-Encoding and Content-Length")
    }
    if (coding.trim().toLowerCase() !== "chunked") {
      throw new HttpProtocolError(`The answer's transfer coding is not supported: ${JSON.stringify(coding.slice(0, 40))}`)
    }
    return { kind: "chunked", state: "size", remaining: 0, line: "", trailerBytes: 0 }
  }
  if (length !== null) {
    // Repeated headers arrive joined (", "); every copy must say the same number.
    const values = new Set(length.split(",").map((value) => value.trim()))
    const [value] = values
    if (values.size !== 1 || !/^\d{1,15}$/.test(value)) {
      throw new HttpProtocolError(`The answer's Content-Length is not one number: ${JSON.stringify(length.slice(0, 40))}`)
    }
    return { kind: "length", remaining: Number(value) }
  }
  return { kind: "close" }
}

function parseChunkSize(line: string): number {
  const match = /^([0-9a-fA-F]{1,11})[ \t]*(?:;[^\r\n]*)?$/.exec(line)
  const size = match ? parseInt(match[1], 16) : NaN
  if (!(size >= 0 && size <= MAX_CHUNK_SIZE)) {
    throw new HttpProtocolError(`Not a chunk size line: ${JSON.stringify(line.slice(0, 40))}`)
  }
  return size
}

function expectByte(byte: number, expected: number, where: string): void {
  if (byte !== expected) {
    throw new HttpProtocolError(`Malformed line ending in ${where}`)
  }
}
