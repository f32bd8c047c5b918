import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import http from "node:http"
import https from "node:https"
import net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Writable } from "node:stream"
import fc from "fast-check"
import { Agent } from "undici"
import {
  BodyTooLargeError,
  HttpClient,
  HttpConnectionError,
  setHttpDispatcher,
  STREAM_HIGH_WATER_BYTES,
  StreamedBody,
  UnreadableResponseError,
} from ".."

/**
 * The transport (undici) against real servers on loopback: Node's own HTTP
 * server for well-formed answers, a raw TCP server for the bytes a proxy must
 * refuse or must survive (split heads, interim answers, cut bodies, smuggling
 * shapes). These were the specs of the hand-written HTTP/1.1 reader this
 * replaced; each behaviour that still applies is asserted here through the
 * client callers use.
 */

const servers: net.Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map(close))
})

/** Closes a server and whatever connections a keep-alive pool still holds to it. */
async function close(server: net.Server): Promise<void> {
  if (server instanceof http.Server) {
    server.closeAllConnections()
  }
  for (const socket of (server as net.Server & { sockets?: Set<net.Socket> }).sockets ?? []) {
    socket.destroy()
  }
  await new Promise((resolve) => server.close(resolve))
}

async function listen(server: net.Server): Promise<string> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as net.AddressInfo
  return `${server instanceof https.Server ? "https" : "http"}://127.0.0.1:${port}`
}

/**
 * A raw server: each request is read up to its blank line, then `answer`
 * writes bytes. Counts connections; its sockets are destroyed when the spec ends.
 */
async function rawServer(answer: (socket: net.Socket, request: string) => void | Promise<void>) {
  const sockets = new Set<net.Socket>()
  const server = Object.assign(
    net.createServer((socket) => {
      sockets.add(socket)
      socket.on("close", () => sockets.delete(socket))
      let request = ""
      socket.on("error", () => undefined)
      socket.on("data", (chunk) => {
        request += chunk.toString("latin1")
        if (request.includes("\r\n\r\n")) {
          socket.removeAllListeners("data")
          void answer(socket, request)
        }
      })
    }),
    { sockets }
  )
  let connections = 0
  server.on("connection", () => connections++)
  const base = await listen(server)
  return { base, connections: () => connections }
}

/** Writes pieces one by one, each on its own turn of the loop, so they tend to arrive as separate reads. */
async function writeApart(socket: net.Socket, pieces: (string | Buffer)[]): Promise<void> {
  socket.setNoDelay(true)
  for (const piece of pieces) {
    socket.write(piece)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** A sink that records every chunk it was given and calls back later, as a slow socket would. */
function recordingSink(options: { delayMs?: number } = {}) {
  const chunks: Buffer[] = []
  const copies: Buffer[] = []
  const pending = { bytes: 0, most: 0 }
  const sink = new Writable({
    // Node's own buffering in front of `write` would hide how much the source sends ahead.
    highWaterMark: 0,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk)
      copies.push(Buffer.from(chunk))
      setTimeout(done, options.delayMs ?? 0)
    },
  })
  const write = sink.write.bind(sink)
  sink.write = ((chunk: Buffer, callback: (error?: Error | null) => void) => {
    pending.bytes += chunk.length
    pending.most = Math.max(pending.most, pending.bytes)
    return write(chunk, (error?: Error | null) => {
      pending.bytes -= chunk.length
      callback(error)
    })
  }) as typeof sink.write
  return { sink, chunks, pending, body: () => Buffer.concat(copies) }
}

function pattern(size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size)
  for (let i = 0; i < size; i++) {
    bytes[i] = (i * 31 + (i >> 8)) & 0xff
  }
  return bytes
}

const PATH = "/disputes/image/x.jpg"

function client(baseUrl: string, options: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  return new HttpClient({ baseUrl, maxRetries: 0, timeoutMs: 5_000, ...options })
}

async function stream(baseUrl: string, options: { path?: string; headers?: Record<string, string> } = {}): Promise<StreamedBody> {
  const response = await client(baseUrl).request<StreamedBody>({
    method: "GET",
    path: options.path ?? PATH,
    headers: options.headers,
    responseType: "stream",
  })
  return response.data
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise
  } catch (error) {
    return error as Error
  }
  throw new Error("expected a rejection")
}

describe("the undici transport", () => {
  it("pipes a 5 MB Content-Length body with back-pressure: never much more than the high-water mark waits in the sink", async () => {
    const image = pattern(5_000_000)
    let requestHead: http.IncomingHttpHeaders = {}
    const base = await listen(
      http.createServer((req, res) => {
        requestHead = req.headers
        res.setHeader("content-type", "image/jpeg")
        res.setHeader("content-length", image.length)
        res.end(image)
      })
    )
    const body = await stream(base, { headers: { "user-agent": "spec" } })
    expect(body.length).toBe(image.length)
    const { sink, chunks, pending, body: received } = recordingSink({ delayMs: 1 })
    await body.pipeTo(sink)

    expect(received().equals(image)).toBe(true)
    // The memory property: read as the sink takes it, in many pieces, with reading
    // paused while a high-water mark's worth (plus the read that crossed it) waits.
    expect(chunks.length).toBeGreaterThan(50)
    expect(pending.most).toBeLessThanOrEqual(2 * STREAM_HIGH_WATER_BYTES)
    expect(requestHead).toMatchObject({ "user-agent": "spec", host: new URL(base).host })
  })

  it("decodes a chunked body (with a trailer) and a body that ends with the connection", async () => {
    const parts = [pattern(70_000), Buffer.from("tail")]
    const chunkedBase = await listen(
      http.createServer((_req, res) => {
        res.setHeader("content-type", "image/jpeg")
        res.setHeader("trailer", "x-checksum")
        res.write(parts[0])
        res.addTrailers({ "x-checksum": "abc" })
        res.end(parts[1])
      })
    )
    const chunked = await stream(chunkedBase)
    expect(chunked.length).toBeUndefined()
    expect((await chunked.readAll(1_000_000)).equals(Buffer.concat(parts))).toBe(true)

    const delimited = await rawServer(async (socket) => {
      await writeApart(socket, ["HTTP/1.1 200 OK\r\ncontent-type: image/jpeg\r\n\r\n", parts[0], parts[1]])
      socket.end()
    })
    const body = await stream(delimited.base)
    const { sink, body: received } = recordingSink()
    await body.pipeTo(sink)
    expect(received().equals(Buffer.concat(parts))).toBe(true)
  })

  it("reads any split of the answer's bytes the same: heads across reads, interim 1xx answers, chunk lines cut anywhere", async () => {
    const body = pattern(3000)
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("length", "chunked"),
        fc.constantFrom(undefined, "102 Processing", "103 Early Hints"),
        fc.array(fc.integer({ min: 1, max: 2999 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 6 }),
        async (framing, interim, cuts, chunkSizes) => {
          let payload: Buffer
          if (framing === "length") {
            payload = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n`), body])
          } else {
            const pieces: Buffer[] = [Buffer.from("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")]
            let at = 0
            for (let i = 0; at < body.length; i++) {
              const size = Math.min(chunkSizes[i % chunkSizes.length], body.length - at)
              pieces.push(Buffer.from(`${size.toString(16)};ext=1\r\n`), body.subarray(at, at + size), Buffer.from("\r\n"))
              at += size
            }
            pieces.push(Buffer.from("0\r\nx-trailer: 1\r\n\r\n"))
            payload = Buffer.concat(pieces)
          }
          if (interim) {
            payload = Buffer.concat([Buffer.from(`HTTP/1.1 ${interim}\r\nLink: </a.css>\r\n\r\n`), payload])
          }
          const points = [...new Set(cuts.map((cut) => cut % payload.length))].sort((a, b) => a - b)
          const pieces = [0, ...points].map((start, i, all) => payload.subarray(start, all[i + 1] ?? payload.length))
          const server = await rawServer(async (socket) => {
            await writeApart(socket, pieces)
          })
          const answer = await client(server.base, { timeoutMs: 3_000 }).request<Buffer>({ method: "GET", path: PATH, responseType: "bytes" })
          expect(answer.status).toBe(200)
          expect(answer.data.equals(body)).toBe(true)
          await close(servers.pop()!)
        }
      ),
      { numRuns: 25 }
    )
  })

  it.each([
    ["both Transfer-Encoding and Content-Length", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n", "The answer's Content-Length contradicts its framing (two lengths, or one with Transfer-Encoding)"],
    ["both, Content-Length first", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n", "The answer's Content-Length contradicts its framing (two lengths, or one with Transfer-Encoding)"],
    ["two different Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n", "The answer's Content-Length contradicts its framing (two lengths, or one with Transfer-Encoding)"],
    ["a Content-Length that is not a number", "HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n", /Content-Length/],
    ["a transfer coding other than chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 'The answer\'s transfer coding is not supported: "gzip, chunked"'],
    ["a header line without a name", "HTTP/1.1 200 OK\r\n: nameless\r\nContent-Length: 1\r\n\r\n", "The answer has a malformed header line"],
    ["not an HTTP/1.x status line", "HTTP/2 200\r\nContent-Length: 1\r\n\r\n", /framing is malformed/],
    ["a switch of protocols", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n", /framing is malformed/],
    ["a head over 32 KB", `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(40_000)}\r\n\r\n`, /Headers Overflow/],
  ])("refuses an answer with %s before passing on a byte, as unreadable and without asking again", async (_name, head, message) => {
    const server = await rawServer((socket) => {
      socket.end(head + "abcdefgh")
    })
    const error = await rejection(
      client(server.base, { maxRetries: 2, backoff: { baseMs: 1, capMs: 1 } }).request({ method: "GET", path: PATH, responseType: "stream" })
    )
    expect(error).toBeInstanceOf(UnreadableResponseError)
    expect(error.message).toMatch(message)
    expect(server.connections()).toBe(1)
  })

  it("joins an obsolete folded header line to the header before it (RFC 9112, 5.2): it cannot smuggle in a header of its own", async () => {
    const server = await rawServer((socket) => {
      socket.end("HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n Content-Length: 999\r\nContent-Length: 2\r\n\r\nok")
    })
    const response = await client(server.base).request<Buffer>({ method: "GET", path: PATH, responseType: "bytes" })
    expect(response.data.toString()).toBe("ok")
    expect(response.headers.get("content-length")).toBe("2")
    expect(response.headers.get("content-type")).toMatch(/^image\/jpeg\s+Content-Length: 999$/)
  })

  it.each([
    ["a chunk size that is not hex", "zz\r\nabcd\r\n0\r\n\r\n"],
    ["a chunk without its line end", "4\r\nabcd0\r\n\r\n"],
    ["a chunk longer than its size line says", "4\r\nabcdef\r\n0\r\n\r\n"],
  ])("fails a chunked body with %s as unreadable", async (_name, chunks) => {
    const server = await rawServer((socket) => {
      socket.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`)
    })
    const body = await stream(server.base)
    const error = await rejection(body.readAll(1000))
    expect(error).toBeInstanceOf(UnreadableResponseError)
  })

  it("reads past a long chunk extension without holding it or changing the body", async () => {
    const server = await rawServer((socket) => {
      socket.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4;${"e".repeat(100_000)}\r\nabcd\r\n0\r\n\r\n`)
    })
    const body = await stream(server.base)
    expect((await body.readAll(1000)).toString()).toBe("abcd")
  })

  it("rejects a body cut mid-way as a connection error with the connection up, and a connection closed before any head", async () => {
    const cut = await rawServer(async (socket) => {
      await writeApart(socket, ["HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", pattern(500)])
      socket.destroy()
    })
    const body = await stream(cut.base)
    await body.firstBytes()
    const { sink, body: received } = recordingSink()
    const error = await rejection(body.pipeTo(sink))
    expect(error).toBeInstanceOf(HttpConnectionError)
    expect(error).toMatchObject({ connected: true })
    expect(received().equals(pattern(500))).toBe(true)

    const reset = await rawServer(async (socket) => {
      await writeApart(socket, ["HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", pattern(500)])
      socket.resetAndDestroy()
    })
    const resetBody = await stream(reset.base)
    const resetError = await rejection(resetBody.readAll(10_000))
    expect(resetError).toBeInstanceOf(HttpConnectionError)
    expect(resetError).toMatchObject({ connected: true })

    const silent = await rawServer((socket) => {
      socket.end()
    })
    const before = await rejection(stream(silent.base))
    expect(before).toBeInstanceOf(HttpConnectionError)
    expect(before.message).toMatch(/other side closed/)
  })

  it("answers an empty body for 204 and Content-Length 0 without waiting for the connection", async () => {
    for (const head of ["HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"]) {
      // The server keeps the connection open: the framing alone says the body is over.
      const server = await rawServer((socket) => {
        socket.write(head)
      })
      const response = await client(server.base).request<StreamedBody>({ method: "GET", path: PATH, responseType: "stream" })
      await response.data.firstBytes()
      const { sink, chunks } = recordingSink()
      await response.data.pipeTo(sink)
      expect(chunks).toHaveLength(0)
    }
  })

  it("caps readAll: a declared length over the cap before any byte, an undeclared one as soon as it passes", async () => {
    const declared = await listen(
      http.createServer((_req, res) => {
        res.setHeader("content-length", 5000)
        res.end(pattern(5000))
      })
    )
    const first = await stream(declared)
    const error = await rejection(first.readAll(4999))
    expect(error).toBeInstanceOf(BodyTooLargeError)
    expect(error).toMatchObject({ maxBytes: 4999, request: { method: "GET", url: `${declared}${PATH}` } })

    const chunked = await listen(
      http.createServer((_req, res) => {
        res.write(pattern(3000))
        res.end(pattern(3000))
      })
    )
    const second = await stream(chunked)
    await expect(second.readAll(5000)).rejects.toBeInstanceOf(BodyTooLargeError)
  })

  it("stops reading when the receiving end goes away, and closes the connection to the server", async () => {
    let serverSawClose: Promise<void> | undefined
    const base = await listen(
      http.createServer((req, res) => {
        serverSawClose = new Promise((resolve) => req.socket.once("close", () => resolve()))
        res.setHeader("content-length", 50_000_000)
        // Much more than any socket buffer: the server is still writing when the receiver leaves.
        const piece = pattern(1_000_000)
        const pump = () => {
          while (res.write(piece)) {
            /* until the socket pushes back */
          }
        }
        res.on("drain", pump)
        res.on("error", () => undefined)
        pump()
      })
    )
    const body = await stream(base)
    let written = 0
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        written += chunk.length
        done()
        if (written > 200_000) {
          sink.destroy()
        }
      },
    })
    await expect(body.pipeTo(sink)).rejects.toThrow("The receiving end closed")
    await serverSawClose
    expect(written).toBeLessThan(50_000_000)
  })

  it("never lets another download's bytes reach a sink whose writes are still pending", async () => {
    // The hand-written reader lent read buffers from a shared pool; undici's chunks are each
    // download's own. Kept: a card scan must never go out in place of another.
    const first = pattern(200_000)
    const second = Buffer.alloc(200_000, 0x42)
    const base = await listen(
      http.createServer((req, res) => {
        const body = req.url?.endsWith("first.jpg") ? first : second
        res.setHeader("content-length", body.length)
        res.end(body)
      })
    )
    const stuck: { chunk: Buffer; done: () => void }[] = []
    const seen: Buffer[] = []
    let released = false
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        if (released) {
          seen.push(Buffer.from(chunk))
          done()
        } else {
          stuck.push({ chunk, done })
        }
      },
    })
    const body = await stream(base, { path: "/first.jpg" })
    const piping = body.pipeTo(sink).catch((error: unknown) => error)
    while (!stuck.length) {
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    body.destroy(new Error("the admin left"))
    expect(await piping).toEqual(new Error("the admin left"))

    // Other downloads run while the first one's chunks still wait in its sink.
    for (let i = 0; i < 3; i++) {
      const other = await stream(base, { path: "/second.jpg" })
      expect((await other.readAll(1_000_000)).equals(second)).toBe(true)
    }

    released = true
    for (const { chunk, done } of stuck) {
      seen.push(Buffer.from(chunk))
      done()
    }
    await new Promise((resolve) => setImmediate(resolve))
    const sent = Buffer.concat(seen)
    expect(sent.length).toBeGreaterThan(0)
    expect(sent.equals(first.subarray(0, sent.length))).toBe(true)
  })

  it("refuses header values that could split the request, and the transport's own headers, before opening a socket", async () => {
    const server = await rawServer((socket) => {
      socket.end("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    })
    // (Matched by message: jest's realm has its own TypeError.)
    await expect(
      client(server.base).request({ method: "GET", path: PATH, headers: { "x-api-key": "sk\r\nX-Evil: 1" } })
    ).rejects.toThrow(/invalid .*header/i)
    await expect(client(server.base).request({ method: "GET", path: PATH, apiKey: "sk\nX-Evil: 1" })).rejects.toThrow(/invalid .*header/i)
    await expect(client(server.base).request({ method: "GET", path: PATH, headers: { Host: "elsewhere" } })).rejects.toThrow(
      "sets the Host header itself"
    )
    expect(server.connections()).toBe(0)
  })

  it("resolves pipeTo only after the sink called back for every chunk, even when the body's end arrives alone", async () => {
    const parts = [pattern(70_000), pattern(50_000)]
    const base = await listen(
      http.createServer((_req, res) => {
        res.write(parts[0])
        setImmediate(() => {
          res.write(parts[1])
          // The chunked terminator comes in a read of its own, while the chunks before it are still being written.
          setTimeout(() => res.end(), 5)
        })
      })
    )
    const body = await stream(base)
    const { sink, pending, body: received } = recordingSink({ delayMs: 15 })
    await body.pipeTo(sink)
    expect(pending.bytes).toBe(0)
    expect(received().equals(Buffer.concat(parts))).toBe(true)
  })

  it("destroy() at any moment rejects whoever waits, with the reason given", async () => {
    const server = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
    })
    const body = await stream(server.base)
    const reading = body.readAll(100)
    const reason = new Error("our deadline")
    setTimeout(() => body.destroy(reason), 20)
    await expect(reading).rejects.toBe(reason)
  })
})

describe("the undici transport over TLS", () => {
  let dir: string | undefined
  let cert: Buffer | undefined
  let key: Buffer | undefined
  beforeAll(() => {
    try {
      execFileSync("openssl", ["version"], { stdio: "ignore" })
    } catch {
      if (process.env.CI) {
        throw new Error("openssl (Debian package openssl) is needed to make a throw-away certificate")
      }
      console.warn("the undici transport over TLS: skipped, no openssl on this machine (Debian package openssl)")
      return
    }
    dir = mkdtempSync(join(tmpdir(), "http-transport-tls-"))
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
        "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")],
      { stdio: "ignore" }
    )
    cert = readFileSync(join(dir, "cert.pem"))
    key = readFileSync(join(dir, "key.pem"))
  })
  afterAll(() => {
    if (dir) {
      rmSync(dir, { recursive: true, force: true })
    }
  })
  afterEach(() => setHttpDispatcher(undefined))

  it("streams over https, verifying the certificate and the host name, on a kept-alive connection", async () => {
    if (!cert || !key) {
      return
    }
    const image = pattern(5_000_000)
    let handshakes = 0
    const server = https.createServer({ cert, key }, (_req, res) => {
      res.setHeader("content-length", image.length)
      res.end(image)
    })
    server.on("secureConnection", () => handshakes++)
    const base = new URL(await listen(server))
    const byName = `https://localhost:${base.port}`

    // Without the CA, the default transport refuses the self-signed certificate.
    const untrusted = await rejection(stream(byName))
    expect(untrusted).toBeInstanceOf(HttpConnectionError)
    expect(untrusted.message).toMatch(/self[- ]signed/)

    const trusting = new Agent({ connect: { ca: cert } })
    setHttpDispatcher(trusting)
    handshakes = 0
    try {
      for (let i = 0; i < 2; i++) {
        const body = await stream(byName)
        const { sink, chunks, body: received } = recordingSink()
        await body.pipeTo(sink)
        expect(received().equals(image)).toBe(true)
        expect(chunks.length).toBeGreaterThan(100)
        // undici waits a turn of the event loop before it reuses a socket.
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      // One connection for both images: the second paid no handshake.
      expect(handshakes).toBe(1)

      // On the IP the name does not match, CA or not.
      const mismatch = await rejection(stream(`https://127.0.0.1:${base.port}`))
      expect(mismatch).toBeInstanceOf(HttpConnectionError)
      expect(mismatch.message).toMatch(/IP: 127.0.0.1 is not in the cert's list|does not match/)
    } finally {
      await trusting.destroy()
    }
  })
})
