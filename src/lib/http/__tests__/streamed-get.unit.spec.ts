import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import http from "node:http"
import https from "node:https"
import net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Writable } from "node:stream"
import fc from "fast-check"
import { BodyTooLargeError, HttpProtocolError, STREAM_BUFFER_BYTES, streamedGet } from "../streamed-get"

/**
 * `streamedGet` against real servers on loopback: Node's own HTTP server for
 * well-formed answers, a raw TCP server for the bytes a proxy must refuse or
 * must survive (split heads, interim answers, cut bodies).
 */

const servers: net.Server[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

async function listen(server: net.Server): Promise<URL> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as net.AddressInfo
  return new URL(`${server instanceof https.Server ? "https" : "http"}://127.0.0.1:${port}/disputes/image/x.jpg`)
}

/** A raw server: each connection's request is read up to its blank line, then `answer` writes bytes. */
async function rawServer(answer: (socket: net.Socket, request: string) => void | Promise<void>): Promise<URL> {
  return listen(
    net.createServer((socket) => {
      let request = ""
      socket.on("error", () => undefined)
      socket.on("data", (chunk) => {
        request += chunk.toString("latin1")
        if (request.includes("\r\n\r\n")) {
          socket.removeAllListeners("data")
          void answer(socket, request)
        }
      })
    })
  )
}

/** Writes pieces one by one, each on its own turn of the loop, so they tend to arrive as separate reads. */
async function writeApart(socket: net.Socket, pieces: (string | Buffer)[]): Promise<void> {
  socket.setNoDelay(true)
  for (const piece of pieces) {
    socket.write(piece)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

/** A sink that records every view it was given and calls back later, as a slow socket would. */
function recordingSink(options: { delayMs?: number } = {}) {
  const views: Buffer[] = []
  const copies: Buffer[] = []
  const pending = { bytes: 0, most: 0 }
  const sink = new Writable({
    // Node's own buffering in front of `write` would hide how much the source sends ahead.
    highWaterMark: 0,
    write(chunk: Buffer, _encoding, done) {
      views.push(chunk)
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
  return { sink, views, pending, body: () => Buffer.concat(copies) }
}

function pattern(size: number): Buffer {
  const bytes = Buffer.allocUnsafe(size)
  for (let i = 0; i < size; i++) {
    bytes[i] = (i * 31 + (i >> 8)) & 0xff
  }
  return bytes
}

describe("streamedGet", () => {
  it("pipes a 5 MB Content-Length body through a few reused buffers, never two buffers' worth waiting in the sink", async () => {
    const image = pattern(5_000_000)
    let requestHead = ""
    const url = await listen(
      http.createServer((req, res) => {
        requestHead = JSON.stringify(req.headers)
        res.setHeader("content-type", "image/jpeg")
        res.setHeader("content-length", image.length)
        res.end(image)
      })
    )
    const exchange = streamedGet(url, { headers: { "x-api-key": "sk_test", "user-agent": "spec" } })
    const head = await exchange.head
    expect(head.status).toBe(200)
    expect(head.headers.get("content-type")).toBe("image/jpeg")
    expect(exchange.length).toBe(image.length)
    const { sink, views, pending, body } = recordingSink({ delayMs: 1 })
    await exchange.pipeTo(sink)

    expect(body().equals(image)).toBe(true)
    // The memory property: some 80 reads, every view a window on one of three 64 KB buffers,
    // and never more than a buffer's worth (plus the read that crossed the line) waiting in the sink.
    expect(views.length).toBeGreaterThan(50)
    expect(new Set(views.map((view) => view.buffer)).size).toBeLessThanOrEqual(3)
    expect(pending.most).toBeLessThanOrEqual(2 * STREAM_BUFFER_BYTES)
    expect(views[0].buffer.byteLength).toBeGreaterThanOrEqual(STREAM_BUFFER_BYTES)
    expect(JSON.parse(requestHead)).toMatchObject({ "x-api-key": "sk_test", connection: "close", host: url.host })
    await exchange.closed
  })

  it("decodes a chunked body (with a trailer) and a body that ends with the connection", async () => {
    const parts = [pattern(70_000), Buffer.from("tail")]
    const chunkedUrl = await listen(
      http.createServer((_req, res) => {
        res.setHeader("content-type", "image/jpeg")
        res.setHeader("trailer", "x-checksum")
        res.write(parts[0])
        res.addTrailers({ "x-checksum": "abc" })
        res.end(parts[1])
      })
    )
    const chunked = streamedGet(chunkedUrl, { headers: {} })
    await chunked.head
    expect(chunked.length).toBeUndefined()
    expect((await chunked.readAll(1_000_000)).equals(Buffer.concat(parts))).toBe(true)

    const closeUrl = await rawServer(async (socket) => {
      await writeApart(socket, ["HTTP/1.1 200 OK\r\ncontent-type: image/jpeg\r\n\r\n", parts[0], parts[1]])
      socket.end()
    })
    const delimited = streamedGet(closeUrl, { headers: {} })
    await delimited.head
    const { sink, body } = recordingSink()
    await delimited.pipeTo(sink)
    expect(body().equals(Buffer.concat(parts))).toBe(true)
  })

  it("reads any split of the answer's bytes the same: heads across reads, interim 1xx answers, chunk lines cut anywhere", async () => {
    const body = pattern(3000)
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("length", "chunked"),
        fc.boolean(),
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
            payload = Buffer.concat([Buffer.from("HTTP/1.1 100 Continue\r\n\r\n"), payload])
          }
          const points = [...new Set(cuts.map((cut) => cut % payload.length))].sort((a, b) => a - b)
          const pieces = [0, ...points].map((start, i, all) => payload.subarray(start, all[i + 1] ?? payload.length))
          const url = await rawServer(async (socket) => {
            await writeApart(socket, pieces)
          })
          const exchange = streamedGet(url, { headers: {} })
          const timer = setTimeout(() => exchange.destroy(new Error("stalled")), 3000)
          expect((await exchange.head).status).toBe(200)
          expect((await exchange.readAll(10_000)).equals(body)).toBe(true)
          clearTimeout(timer)
          await new Promise((resolve) => servers.pop()!.close(resolve))
        }
      ),
      { numRuns: 25 }
    )
  })

  it.each([
    ["both Transfer-Encoding and Content-Length", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n"],
    ["two different Content-Lengths", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\n"],
    ["a Content-Length that is not a number", "HTTP/1.1 200 OK\r\nContent-Length: -4\r\n\r\n"],
    ["a transfer coding other than chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"],
    ["obsolete line folding", "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n  folded\r\nContent-Length: 1\r\n\r\n"],
    ["a header line without a name", "HTTP/1.1 200 OK\r\n: nameless\r\nContent-Length: 1\r\n\r\n"],
    ["not an HTTP/1.x status line", "HTTP/2 200\r\nContent-Length: 1\r\n\r\n"],
    ["a switch of protocols", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n"],
    ["a head over 32 KB", `HTTP/1.1 200 OK\r\nX-Big: ${"a".repeat(40_000)}\r\n\r\n`],
  ])("refuses an answer with %s before passing on a byte", async (_name, head) => {
    const url = await rawServer((socket) => {
      socket.end(head + "abcdefgh")
    })
    const exchange = streamedGet(url, { headers: {} })
    await expect(exchange.head).rejects.toBeInstanceOf(HttpProtocolError)
  })

  it.each([
    ["a chunk size that is not hex", "zz\r\nabcd\r\n0\r\n\r\n"],
    ["a chunk without its line end", "4\r\nabcdXX0\r\n\r\n"],
    ["a chunk size line over 1 KB", `4;${"e".repeat(2000)}\r\nabcd\r\n0\r\n\r\n`],
  ])("fails a chunked body with %s", async (_name, chunks) => {
    const url = await rawServer((socket) => {
      socket.end(`HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}`)
    })
    const exchange = streamedGet(url, { headers: {} })
    await exchange.head
    await expect(exchange.readAll(1000)).rejects.toBeInstanceOf(HttpProtocolError)
  })

  it("rejects a body cut mid-way, and a connection closed before any head", async () => {
    const cut = await rawServer(async (socket) => {
      await writeApart(socket, ["HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n", pattern(500)])
      socket.destroy()
    })
    const exchange = streamedGet(cut, { headers: {} })
    await exchange.head
    await exchange.firstBytes()
    const { sink, body } = recordingSink()
    await expect(exchange.pipeTo(sink)).rejects.toThrow("The connection closed mid-body")
    expect(body().equals(pattern(500))).toBe(true)

    const silent = await rawServer((socket) => {
      socket.end()
    })
    await expect(streamedGet(silent, { headers: {} }).head).rejects.toThrow("before the answer's head")
  })

  it("answers an empty body for 204 and Content-Length 0 without waiting for the connection", async () => {
    for (const head of ["HTTP/1.1 204 No Content\r\n\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"]) {
      // The server keeps the connection open: the framing alone says the body is over.
      const url = await rawServer((socket) => {
        socket.write(head)
      })
      const exchange = streamedGet(url, { headers: {} })
      await exchange.head
      await exchange.firstBytes()
      const { sink, views } = recordingSink()
      await exchange.pipeTo(sink)
      expect(views).toHaveLength(0)
    }
  })

  it("caps readAll: a declared length over the cap before any byte, an undeclared one as soon as it passes", async () => {
    const declared = await listen(
      http.createServer((_req, res) => {
        res.setHeader("content-length", 5000)
        res.end(pattern(5000))
      })
    )
    const first = streamedGet(declared, { headers: {} })
    await first.head
    await expect(first.readAll(4999)).rejects.toBeInstanceOf(BodyTooLargeError)

    const chunked = await listen(
      http.createServer((_req, res) => {
        res.write(pattern(3000))
        res.end(pattern(3000))
      })
    )
    const second = streamedGet(chunked, { headers: {} })
    await second.head
    await expect(second.readAll(5000)).rejects.toBeInstanceOf(BodyTooLargeError)
  })

  it("stops reading when the receiving end goes away, and closes the connection to the server", async () => {
    let serverSawClose: Promise<void> | undefined
    const url = await listen(
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
    const exchange = streamedGet(url, { headers: {} })
    await exchange.head
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
    await expect(exchange.pipeTo(sink)).rejects.toThrow("The receiving end closed")
    await exchange.closed
    await serverSawClose
    expect(written).toBeLessThan(50_000_000)
  })

  it("never lends a buffer to another download while a view of it waits in a sink", async () => {
    // Buffers go back to a pool shared by all downloads: one lent too early would send
    // another download's bytes (another card scan) in place of these.
    const first = pattern(200_000)
    const second = Buffer.alloc(200_000, 0x42)
    const url = await listen(
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
    const exchange = streamedGet(new URL("/first.jpg", url), { headers: {} })
    await exchange.head
    const piping = exchange.pipeTo(sink).catch((error: unknown) => error)
    while (!stuck.length) {
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
    exchange.destroy(new Error("the admin left"))
    expect(await piping).toEqual(new Error("the admin left"))
    await exchange.closed

    // Other downloads run while the first one's views still wait in its sink.
    for (let i = 0; i < 3; i++) {
      const other = streamedGet(new URL("/second.jpg", url), { headers: {} })
      await other.head
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

  it("refuses header values that could split the request, before opening a socket", () => {
    const connect = jest.spyOn(net, "connect")
    // (Matched by message: jest's realm has its own TypeError.)
    expect(() => streamedGet(new URL("http://127.0.0.1:9/x"), { headers: { "x-api-key": "sk\r\nX-Evil: 1" } })).toThrow(
      /Invalid character in header content/
    )
    expect(() => streamedGet(new URL("http://127.0.0.1:9/x"), { headers: { Host: "elsewhere" } })).toThrow("sets the Host header itself")
    expect(connect).not.toHaveBeenCalled()
    connect.mockRestore()
  })

  it("resolves pipeTo only after the sink called back for every view, even when the body's end arrives alone", async () => {
    const parts = [pattern(70_000), pattern(50_000)]
    const url = await listen(
      http.createServer((_req, res) => {
        res.write(parts[0])
        setImmediate(() => {
          res.write(parts[1])
          // The chunked terminator comes in a read of its own, while the views before it are still being written.
          setTimeout(() => res.end(), 5)
        })
      })
    )
    const exchange = streamedGet(url, { headers: {} })
    await exchange.head
    const { sink, pending, body } = recordingSink({ delayMs: 15 })
    await exchange.pipeTo(sink)
    expect(pending.bytes).toBe(0)
    expect(body().equals(Buffer.concat(parts))).toBe(true)
    await exchange.over
  })

  it("destroy() at any moment rejects whoever waits, with the reason given", async () => {
    const url = await rawServer((socket) => {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
    })
    const exchange = streamedGet(url, { headers: {} })
    await exchange.head
    const reading = exchange.readAll(100)
    const reason = new Error("our deadline")
    setTimeout(() => exchange.destroy(reason), 20)
    await expect(reading).rejects.toBe(reason)
  })
})

describe("streamedGet over TLS", () => {
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
      console.warn("streamedGet over TLS: skipped, no openssl on this machine (Debian package openssl)")
      return
    }
    dir = mkdtempSync(join(tmpdir(), "streamed-get-tls-"))
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

  it("streams over https, verifying the certificate and the host name", async () => {
    if (!cert || !key) {
      return
    }
    const image = pattern(5_000_000)
    const base = await listen(
      https.createServer({ cert, key }, (_req, res) => {
        res.setHeader("content-length", image.length)
        res.end(image)
      })
    )
    const url = new URL(base.pathname, `https://localhost:${base.port}`)

    const trusted = streamedGet(url, { headers: {}, tls: { ca: cert } })
    expect((await trusted.head).status).toBe(200)
    const { sink, views, body } = recordingSink()
    await trusted.pipeTo(sink)
    expect(body().equals(image)).toBe(true)
    // TLS hands on records after a pause: a few buffers take turns, none is written over.
    expect(views.length).toBeGreaterThan(100)
    expect(new Set(views.map((view) => view.buffer)).size).toBeLessThanOrEqual(3)

    // The next image resumes the session instead of a full handshake, as https.Agent would.
    let resumed: boolean | undefined
    const again = await listen(
      https.createServer({ cert, key }, (req, res) => {
        resumed = (req.socket as import("node:tls").TLSSocket).isSessionReused()
        res.setHeader("content-length", 2)
        res.end("ok")
      })
    )
    for (let i = 0; i < 2; i++) {
      const next = streamedGet(new URL(again.pathname, `https://localhost:${again.port}`), { headers: {}, tls: { ca: cert } })
      await next.head
      expect((await next.readAll(10)).toString()).toBe("ok")
      expect(resumed).toBe(i === 1)
    }

    // Without the CA the self-signed certificate is refused; on the IP, the name does not match.
    await expect(streamedGet(url, { headers: {} }).head).rejects.toThrow(/self[- ]signed/)
    await expect(streamedGet(new URL(base.pathname, `https://127.0.0.1:${base.port}`), { headers: {}, tls: { ca: cert } }).head).rejects.toThrow(
      /IP: 127.0.0.1 is not in the cert's list|does not match/
    )
  })
})
