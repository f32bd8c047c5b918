import { delay, http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { listenStrictly } from "../../__tests__/support/msw-listen"
import {
  HttpClient,
  RetryEvent,
  HttpAuthError,
  HttpConnectionError,
  HttpError,
  HttpStatusError,
  HttpTimeoutError,
} from ".."

const BASE = "https://service.test"
const KEY = "sk_live_SECRET_abcdef123456"

const server = setupServer()
listenStrictly(server)

function client(overrides: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) {
  const retries: RetryEvent[] = []
  const instance = new HttpClient({
    baseUrl: BASE,
    apiKey: KEY,
    timeoutMs: 1_000,
    maxRetries: 2,
    backoff: { baseMs: 1, capMs: 5 },
    onRetry: (event) => retries.push(event),
    ...overrides,
  })
  return { instance, retries }
}

async function caught(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError)
    return error as HttpError
  }
  throw new Error("expected a rejection")
}

describe("HttpClient", () => {
  it("sends the key in X-API-KEY, JSON bodies with a content type, and parses JSON", async () => {
    let seen: Request | undefined
    let body: unknown
    server.use(
      http.put(`${BASE}/things`, async ({ request }) => {
        seen = request.clone()
        body = await request.json()
        return HttpResponse.json({ id: "t1" })
      })
    )
    const { instance } = client()
    const response = await instance.request<{ id: string }>({ method: "PUT", path: "/things", body: ["a"] })
    expect(response).toMatchObject({ status: 200, data: { id: "t1" } })
    expect(seen?.headers.get("x-api-key")).toBe(KEY)
    expect(seen?.headers.get("content-type")).toBe("application/json")
    expect(body).toEqual(["a"])
  })

  it("times out each attempt with a typed error (delayed handler)", async () => {
    server.use(
      http.get(`${BASE}/slow`, async () => {
        await delay(500)
        return HttpResponse.json({})
      })
    )
    const { instance } = client({ timeoutMs: 50, maxRetries: 0 })
    const error = await caught(instance.request({ method: "GET", path: "/slow" }))
    expect(error).toBeInstanceOf(HttpTimeoutError)
    expect(error).toMatchObject({ timeoutMs: 50, request: { method: "GET", url: `${BASE}/slow` } })
    // The exact message, with or without "(while connecting)", is a real socket's
    // to tell (http-client.socket.unit.spec.ts): MSW's sockets never connect.
    expect(error.message).toMatch(new RegExp(`^GET ${BASE}/slow timed out after 50 ms`))
  })

  it("retries an idempotent request after a timeout, a 5xx and a 429", async () => {
    let calls = 0
    server.use(
      http.get(`${BASE}/flaky`, async () => {
        calls++
        if (calls === 1) {
          await delay(300)
        }
        if (calls === 2) {
          return new HttpResponse("busy", { status: 503 })
        }
        if (calls === 3) {
          return new HttpResponse("slow down", { status: 429 })
        }
        return HttpResponse.json({ ok: true })
      })
    )
    const { instance, retries } = client({ timeoutMs: 100, maxRetries: 3 })
    await expect(instance.request({ method: "GET", path: "/flaky" })).resolves.toMatchObject({ data: { ok: true } })
    expect(calls).toBe(4)
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3])
    expect(retries.every((r) => r.delayMs >= 0 && r.delayMs <= 5)).toBe(true)
  })

  it("never retries a non-idempotent request", async () => {
    let calls = 0
    server.use(
      http.put(`${BASE}/proof`, () => {
        calls++
        return new HttpResponse("oops", { status: 503 })
      })
    )
    const { instance, retries } = client()
    const error = await caught(instance.request({ method: "PUT", path: "/proof", body: ["x"] }))
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(calls).toBe(1)
    expect(retries).toEqual([])
  })

  it("retries a POST the caller marks idempotent", async () => {
    let calls = 0
    server.use(
      http.post(`${BASE}/txn`, () => (++calls < 2 ? new HttpResponse(null, { status: 502 }) : HttpResponse.text("ok")))
    )
    const { instance } = client()
    await instance.request({ method: "POST", path: "/txn", body: "<x/>", idempotent: true, responseType: "text" })
    expect(calls).toBe(2)
  })

  it("honours Retry-After", async () => {
    let calls = 0
    server.use(
      http.get(`${BASE}/limited`, () =>
        ++calls === 1
          ? new HttpResponse("later", { status: 503, headers: { "retry-after": "1" } })
          : HttpResponse.json({})
      )
    )
    const { instance, retries } = client()
    const started = Date.now()
    await instance.request({ method: "GET", path: "/limited" })
    expect(retries[0].delayMs).toBe(1_000)
    expect(Date.now() - started).toBeGreaterThanOrEqual(950)
  })

  it.each([
    [401, "An API key is required for authentication"],
    [403, "Invalid API key provided"],
    [403, "Key has invalid permissions"],
  ])("does not retry the auth failure %i %s", async (status, text) => {
    let calls = 0
    server.use(
      http.get(`${BASE}/auth`, () => {
        calls++
        return new HttpResponse(text, { status })
      })
    )
    const { instance } = client()
    const error = await caught(instance.request({ method: "GET", path: "/auth" }))
    expect(error).toBeInstanceOf(HttpAuthError)
    expect(error).toMatchObject({ status, body: text, serviceMessage: text })
    expect(calls).toBe(1)
  })

  it("carries status and parsed body on HTTP errors, without retrying 4xx", async () => {
    let calls = 0
    server.use(
      http.get(`${BASE}/missing`, () => {
        calls++
        return HttpResponse.json({ error: "Proof request not found" }, { status: 404 })
      })
    )
    const { instance } = client()
    const error = await caught(instance.request({ method: "GET", path: "/missing" }))
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(error).not.toBeInstanceOf(HttpAuthError)
    expect(error).toMatchObject({
      status: 404,
      body: { error: "Proof request not found" },
      serviceMessage: "Proof request not found",
      message: `GET ${BASE}/missing answered 404: Proof request not found`,
    })
    expect(calls).toBe(1)
  })

  it("raises a connection error when nothing answers", async () => {
    server.use(http.get(`${BASE}/down`, () => HttpResponse.error()))
    const { instance, retries } = client()
    const error = await caught(instance.request({ method: "GET", path: "/down" }))
    expect(error).toBeInstanceOf(HttpConnectionError)
    expect(retries).toHaveLength(2)
  })

  it("never puts the key in an error message or a retry event", async () => {
    server.use(
      http.get(`${BASE}/fails`, () => new HttpResponse("nope", { status: 500 })),
      http.get(`${BASE}/forbidden`, () => new HttpResponse("Invalid API key provided", { status: 403 }))
    )
    const { instance, retries } = client()
    const errors = [
      await caught(instance.request({ method: "GET", path: "/fails" })),
      await caught(instance.request({ method: "GET", path: "/forbidden" })),
    ]
    for (const error of errors) {
      expect(error.message).not.toContain(KEY)
      expect(JSON.stringify(error.request)).not.toContain(KEY)
      expect(JSON.stringify(error)).not.toContain(KEY)
    }
    expect(JSON.stringify(retries)).not.toContain(KEY)
  })

  it("redacts credentials and secret-named query values from every summary, and sends URL credentials as Basic", async () => {
    let authorization: string | null = null
    server.use(
      http.get(`${BASE}/report`, ({ request }) => {
        authorization = request.headers.get("authorization")
        return new HttpResponse("nope", { status: 500 })
      })
    )
    const { instance, retries } = client({ baseUrl: "https://user:s3cret-pass@service.test" })
    const error = await caught(instance.request({ method: "GET", path: "/report", query: { token: "tok_SECRET", day: "2024-01-01" } }))
    expect(authorization).toBe(`Basic ${Buffer.from("user:s3cret-pass").toString("base64")}`)
    expect(error.request.url).toBe("https://REDACTED@service.test/report?token=REDACTED&day=2024-01-01")
    for (const secret of ["s3cret-pass", "tok_SECRET"]) {
      expect(error.message).not.toContain(secret)
      expect(JSON.stringify(error)).not.toContain(secret)
      expect(JSON.stringify(retries)).not.toContain(secret)
    }
  })

  it("sends bytes as they are, with the caller's content type and their length", async () => {
    let received: Buffer | undefined
    let seen: Request | undefined
    server.use(
      http.post(`${BASE}/files`, async ({ request }) => {
        seen = request.clone()
        received = Buffer.from(await request.arrayBuffer())
        return HttpResponse.text("ok")
      })
    )
    const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0a])
    const { instance } = client()
    await instance.request({ method: "POST", path: "/files", body: bytes, headers: { "content-type": "application/pdf" }, responseType: "text" })
    expect(received?.equals(Buffer.from(bytes))).toBe(true)
    expect(seen?.headers.get("content-type")).toBe("application/pdf")
    expect(seen?.headers.get("content-length")).toBe("7")
  })

  it("refuses a maxBytes that is not a positive integer before sending", async () => {
    const { instance } = client()
    for (const maxBytes of [0, -1, 1.5, Number.NaN]) {
      await expect(instance.request({ method: "GET", path: "/x", maxBytes })).rejects.toThrow(TypeError)
    }
  })
})
