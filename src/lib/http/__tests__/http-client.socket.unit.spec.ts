import { createServer as createHttpServer, globalAgent, IncomingMessage, Server, ServerResponse } from "node:http"
import { AddressInfo, createServer } from "node:net"
import { Writable } from "node:stream"
import {
  HttpClient,
  StreamedBody,
  HttpConnectionError,
  HttpStatusError,
  UnreadableResponseError,
  HttpTimeoutError,
} from ".."

/** Real sockets, no MSW: what a refused connection looks like to a caller. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("HttpClient over a real socket", () => {
  it("names the socket error of a refused connection, and keeps the key out of it", async () => {
    const port = await closedPort()
    const client = new HttpClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "sk_secret_value", maxRetries: 0 })
    const error = await client.request({ method: "GET", path: "/disputes/proof/x" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpConnectionError)
    expect(error).toMatchObject({ connected: false })
    expect((error as Error).message).toBe(
      `Could not reach GET http://127.0.0.1:${port}/disputes/proof/x: connect ECONNREFUSED 127.0.0.1:${port}`
    )
    expect((error as Error).message).not.toContain("sk_secret_value")
  })
})

describe("HttpClient streams (a raw TCP server)", () => {
  it("refuses a streamed answer with ambiguous framing as unreadable, without asking again", async () => {
    let connections = 0
    const server = createServer((socket) => {
      connections++
      socket.once("data", () => socket.end("HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde"))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    const client = new HttpClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2, backoff: { baseMs: 1, capMs: 1 } })
    const error = await client.request({ method: "GET", path: "/disputes/image/x.jpg", responseType: "stream" }).catch((e: unknown) => e)
    await new Promise((resolve) => server.close(resolve))
    expect(error).toBeInstanceOf(UnreadableResponseError)
    // undici (llhttp) refuses the head; its message names the shape, not the two values.
    expect((error as Error).message).toBe("The answer's Content-Length contradicts its framing (two lengths, or one with Transfer-Encoding)")
    expect(connections).toBe(1)
  })
})

describe("HttpClient connections (a real HTTP server)", () => {
  type Seen = { method: string; connection: string | undefined; socket: number }
  let server: Server
  let baseUrl: string
  let seen: Seen[]
  let respond: (req: IncomingMessage, res: ServerResponse) => void

  beforeEach(async () => {
    seen = []
    respond = (_req, res) => {
      res.setHeader("content-type", "application/json")
      res.end("{}")
    }
    const sockets = new WeakMap<object, number>()
    let nextSocket = 0
    server = createHttpServer((req, res) => {
      if (!sockets.has(req.socket)) {
        sockets.set(req.socket, ++nextSocket)
      }
      seen.push({ method: req.method ?? "", connection: req.headers.connection, socket: sockets.get(req.socket) ?? 0 })
      respond(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterEach(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it("reuses kept-alive sockets for sequential idempotent calls", async () => {
    const client = new HttpClient({ baseUrl })
    for (let i = 0; i < 3; i++) {
      await client.request({ method: "GET", path: "/disputes/proof/x" })
      // undici reuses a socket a turn of the event loop after its last answer (servers that
      // close despite keep-alive); a poller's next call comes later than that.
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(seen.map((s) => s.socket)).toEqual([1, 1, 1])
    // Back to back, a call may open a second socket, never one per call.
    for (let i = 0; i < 6; i++) {
      await client.request({ method: "GET", path: "/disputes/proof/x" })
    }
    expect(new Set(seen.map((s) => s.socket)).size).toBeLessThanOrEqual(2)
  })

  it("sends a request that must not be repeated on a fresh connection it then closes", async () => {
    // Not through Node's global agent either: it pools connections (keep-alive) since Node 19.
    const pooled = jest.spyOn(globalAgent, "addRequest")
    const client = new HttpClient({ baseUrl })
    await client.request({ method: "GET", path: "/warm-up" })
    await client.request({ method: "PUT", path: "/disputes/proofRequest", body: ["a"] })
    await client.request({ method: "PUT", path: "/disputes/proofRequest", body: ["b"] })
    expect(seen.map(({ method, connection }) => ({ method, connection }))).toEqual([
      { method: "GET", connection: "keep-alive" },
      { method: "PUT", connection: "close" },
      { method: "PUT", connection: "close" },
    ])
    // Neither PUT rode the pooled socket of the GET, nor each other's.
    expect(new Set(seen.map((s) => s.socket)).size).toBe(3)
    expect(pooled).not.toHaveBeenCalled()
    pooled.mockRestore()
  })

  it("bounds a streamed download by the attempt's timeout, the caller's writes included", async () => {
    respond = (_req, res) => {
      res.setHeader("content-type", "image/jpeg")
      res.write(Buffer.from([0xff, 0xd8]))
      // ...and never ends the body.
    }
    const client = new HttpClient({ baseUrl, timeoutMs: 200, maxRetries: 0 })
    const response = await client.request<StreamedBody>({ method: "GET", path: "/disputes/image/x.jpg", responseType: "stream" })
    const chunks: Buffer[] = []
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(Buffer.from(chunk))
        done()
      },
    })
    const error = await response.data.pipeTo(sink).catch((e: unknown) => e)
    expect(Buffer.concat(chunks)).toEqual(Buffer.from([0xff, 0xd8]))
    expect(error).toBeInstanceOf(HttpTimeoutError)
    expect((error as Error).message).toBe(`GET ${baseUrl}/disputes/image/x.jpg timed out after 200 ms`)
  })

  it("keeps the deadline after the service's last byte while the caller's sink has not taken the body", async () => {
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": "4" }).flushHeaders()
      // The body after the caller is reading, so the connection is read to its end and closes.
      setTimeout(() => res.end(Buffer.from([0xff, 0xd8, 0xff, 0xd9])), 50)
    }
    const client = new HttpClient({ baseUrl, timeoutMs: 300, maxRetries: 0 })
    const response = await client.request<StreamedBody>({ method: "GET", path: "/disputes/image/x.jpg", responseType: "stream" })
    // An admin who stopped reading: the write never calls back.
    const sink = new Writable({ highWaterMark: 0, write: () => undefined })
    const error = await response.data.pipeTo(sink).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpTimeoutError)
  })

  it("refuses a streamed answer for anything but a GET without a body", async () => {
    const client = new HttpClient({ baseUrl, maxRetries: 0 })
    await expect(client.request({ method: "PUT", path: "/x", responseType: "stream" })).rejects.toThrow('responseType "stream" is for a GET')
    expect(seen).toHaveLength(0)
  })

  it("times out an answer that never comes, saying the connection was up", async () => {
    respond = () => undefined
    const client = new HttpClient({ baseUrl, timeoutMs: 100, maxRetries: 0 })
    const error = await client.request({ method: "PUT", path: "/disputes/proofRequest", body: ["a"] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpTimeoutError)
    expect(error).toMatchObject({ connected: true, message: `PUT ${baseUrl}/disputes/proofRequest timed out after 100 ms` })
  })

  it("calls a connection reset after the request was written connected (the server may have acted)", async () => {
    respond = (req) => req.socket.destroy()
    const client = new HttpClient({ baseUrl, maxRetries: 0 })
    const error = await client.request({ method: "PUT", path: "/disputes/proofRequest", body: ["a"] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(HttpConnectionError)
    expect(error).toMatchObject({ connected: true })
  })

  it("refuses a buffered answer larger than 16 MB instead of holding it in memory", async () => {
    respond = (_req, res) => {
      res.setHeader("content-type", "application/json")
      const chunk = Buffer.alloc(1024 * 1024, 0x20)
      for (let i = 0; i < 17; i++) {
        res.write(chunk)
      }
      res.end("{}")
    }
    const client = new HttpClient({ baseUrl, maxRetries: 0 })
    const error = await client.request({ method: "GET", path: "/huge" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnreadableResponseError)
    expect((error as Error).message).toBe(`The answer is larger than ${16 * 1024 * 1024} bytes`)
  })

  it("takes a larger answer when the request raises maxBytes, and keeps the default for the others", async () => {
    respond = (_req, res) => {
      res.setHeader("content-type", "application/octet-stream")
      const chunk = Buffer.alloc(1024 * 1024, 0x20)
      for (let i = 0; i < 17; i++) {
        res.write(chunk)
      }
      res.end()
    }
    const client = new HttpClient({ baseUrl, maxRetries: 0 })
    const big = await client.request<Buffer>({ method: "GET", path: "/day", responseType: "bytes", maxBytes: 20 * 1024 * 1024 })
    expect(big.data.length).toBe(17 * 1024 * 1024)
    const error = await client.request({ method: "GET", path: "/day", responseType: "bytes" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnreadableResponseError)
    expect((error as Error).message).toBe(`The answer is larger than ${16 * 1024 * 1024} bytes`)
  })

  it("refuses an answer over a lower maxBytes, as soon as its Content-Length says so", async () => {
    respond = (_req, res) => {
      // Announces 5 MB and sends 10 bytes, then nothing: reading it would wait for the timeout.
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(5_000_000) })
      res.write("0123456789")
    }
    const client = new HttpClient({ baseUrl, maxRetries: 0, timeoutMs: 5_000 })
    const started = Date.now()
    const error = await client.request({ method: "GET", path: "/x", responseType: "text", maxBytes: 1_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnreadableResponseError)
    expect((error as Error).message).toBe("The answer is larger than 1000 bytes")
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it("stops reading a chunked answer once it passes maxBytes", async () => {
    respond = (_req, res) => {
      res.setHeader("content-type", "text/plain")
      res.write("a".repeat(600))
      res.write("b".repeat(600))
      res.end()
    }
    const client = new HttpClient({ baseUrl, maxRetries: 0 })
    const error = await client.request({ method: "GET", path: "/x", responseType: "text", maxBytes: 1_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(UnreadableResponseError)
    const ok = await client.request<string>({ method: "GET", path: "/x", responseType: "text", maxBytes: 1_200 })
    expect(ok.data.length).toBe(1_200)
  })

  it("reads an error body up to maxBytes only", async () => {
    respond = (_req, res) => {
      res.writeHead(400, { "content-type": "text/plain" })
      res.end("e".repeat(5_000))
    }
    const client = new HttpClient({ baseUrl, maxRetries: 0 })
    const small = await client.request({ method: "GET", path: "/x", maxBytes: 1_000 }).catch((e: unknown) => e)
    expect(small).toBeInstanceOf(HttpStatusError)
    expect(small).toMatchObject({ status: 400, body: undefined })
    const large = await client.request({ method: "GET", path: "/x" }).catch((e: unknown) => e)
    expect(large).toMatchObject({ status: 400, body: "e".repeat(5_000) })
  })

  it("reads an answer of declared length arriving in many pieces byte for byte", async () => {
    const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256))
    respond = (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(body.length) })
      let offset = 0
      const next = () => {
        if (offset >= body.length) {
          res.end()
          return
        }
        res.write(body.subarray(offset, offset + 65_537))
        offset += 65_537
        setImmediate(next)
      }
      next()
    }
    const client = new HttpClient({ baseUrl, maxRetries: 0 })
    const response = await client.request<Buffer>({ method: "GET", path: "/file", responseType: "bytes" })
    expect(response.data.length).toBe(body.length)
    expect(response.data.equals(body)).toBe(true)
  })

  describe("a largeAnswer (on a connection of its own)", () => {
    const body = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 11) % 256))

    it("reads bytes, text and JSON whole, on a connection of its own", async () => {
      const answers: Record<string, [string, Buffer]> = {
        "/bytes": ["application/octet-stream", body],
        "/text": ["text/xml", Buffer.from("<a>é</a>")],
        "/json": ["application/json", Buffer.from('{"cases":[1,2]}')],
      }
      respond = (req, res) => {
        const [type, bytes] = answers[req.url ?? ""]
        res.writeHead(200, { "content-type": type, "content-length": String(bytes.length) })
        res.end(bytes)
      }
      const client = new HttpClient({ baseUrl, maxRetries: 0 })
      const bytes = await client.request<Buffer>({ method: "GET", path: "/bytes", responseType: "bytes", largeAnswer: true })
      expect(Buffer.isBuffer(bytes.data) && bytes.data.equals(body)).toBe(true)
      expect((await client.request({ method: "GET", path: "/text", responseType: "text", largeAnswer: true })).data).toBe("<a>é</a>")
      expect((await client.request({ method: "GET", path: "/json", largeAnswer: true })).data).toEqual({ cases: [1, 2] })
      // Still its own bytes after two more downloads: not a view of a buffer read into again.
      expect(bytes.data.equals(body)).toBe(true)
      // Connections of their own, not the keep-alive pool's.
      expect(seen.map((s) => [s.connection, s.socket])).toEqual([
        ["close", 1],
        ["close", 2],
        ["close", 3],
      ])
    })

    it("asks again after a connection cut mid-body, within the attempt's retries", async () => {
      respond = (_req, res) => {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(body.length) })
        if (seen.length === 1) {
          res.write(body.subarray(0, 1000), () => res.socket?.destroy())
          return
        }
        res.end(body)
      }
      const retries: string[] = []
      const client = new HttpClient({ baseUrl, maxRetries: 1, backoff: { baseMs: 1, capMs: 1 }, onRetry: (event) => retries.push(event.reason) })
      const response = await client.request<Buffer>({ method: "GET", path: "/bytes", responseType: "bytes", largeAnswer: true })
      expect(response.data.equals(body)).toBe(true)
      expect(seen).toHaveLength(2)
      expect(retries).toHaveLength(1)
    })

    it("times out a body that stops coming, and asks again", async () => {
      respond = (_req, res) => {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(body.length) })
        res.write(body.subarray(0, 1000))
        // ...and never the rest.
      }
      const client = new HttpClient({ baseUrl, timeoutMs: 150, maxRetries: 1, backoff: { baseMs: 1, capMs: 1 } })
      const error = await client.request({ method: "GET", path: "/bytes", responseType: "bytes", largeAnswer: true }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(HttpTimeoutError)
      expect((error as Error).message).toBe(`GET ${baseUrl}/bytes timed out after 150 ms`)
      expect(seen).toHaveLength(2)
    })

    it("refuses an answer over maxBytes once its Content-Length says so, without asking again", async () => {
      respond = (_req, res) => {
        res.writeHead(200, { "content-type": "application/octet-stream", "content-length": String(body.length) })
        res.end(body)
      }
      const client = new HttpClient({ baseUrl, maxRetries: 2, backoff: { baseMs: 1, capMs: 1 } })
      const error = await client
        .request({ method: "GET", path: "/bytes", responseType: "bytes", maxBytes: 10_000, largeAnswer: true })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(UnreadableResponseError)
      expect((error as Error).message).toBe("The answer is larger than 10000 bytes")
      expect(seen).toHaveLength(1)
    })

    it("answers a non-2xx as the typed HTTP error, with its body", async () => {
      respond = (_req, res) => {
        res.writeHead(403, { "content-type": "application/json" })
        res.end('{"error":"Forbidden"}')
      }
      const client = new HttpClient({ baseUrl, maxRetries: 0 })
      const error = await client.request({ method: "GET", path: "/bytes", responseType: "bytes", largeAnswer: true }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(HttpStatusError)
      expect(error).toMatchObject({ status: 403, body: { error: "Forbidden" } })
    })
  })
})
