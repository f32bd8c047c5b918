import { createServer, IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { listenStrictly } from "../../__tests__/support/msw-listen"
import {
  HttpAuthError,
  HttpConnectionError,
  HttpTimeoutError,
  HttpStatusError,
  UnreadableResponseError,
} from "../../http"
import { DisputesClient, ServiceScanDisputesError, submissionOutcome } from "../disputes-client"

/**
 * Wire-level specs: MSW answers as the spec's tables say, and any request the
 * test did not plan for fails it (`listenStrictly`).
 */
const BASE = "https://disputes.servicescan.test"
const KEY = "sk_live_do_not_leak_0123456789"
const SCAN_A = "3f0c9a52-8d4e-4b7a-9c1d-2e5f6a7b8c9d"
const SCAN_B = "a1b2c3d4-e5f6-4789-8abc-def012345678"
const PUT = { method: "PUT", url: `${BASE}/disputes/proofRequest` }

const server = setupServer()
listenStrictly(server)

const client = (options: Partial<ConstructorParameters<typeof DisputesClient>[0]> = {}) =>
  new DisputesClient({ baseUrl: BASE, secretKey: KEY, timeoutMs: 2_000, maxRetries: 2, backoff: { baseMs: 1, capMs: 5 }, ...options })

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error("expected a rejection")
}

describe("createProofRequest (PUT /disputes/proofRequest)", () => {
  it("sends the scan ids as a JSON array with the secret key and answers the id", async () => {
    const seen: { method: string; key: string | null; type: string | null; body: unknown }[] = []
    server.use(
      http.put(`${BASE}/disputes/proofRequest`, async ({ request }) => {
        seen.push({
          method: request.method,
          key: request.headers.get("x-api-key"),
          type: request.headers.get("content-type"),
          body: await request.json(),
        })
        return HttpResponse.json({ id: "pr_123" })
      })
    )
    await expect(client().createProofRequest([SCAN_A, SCAN_B.toUpperCase()])).resolves.toEqual({ id: "pr_123" })
    expect(seen).toEqual([{ method: "PUT", key: KEY, type: "application/json", body: [SCAN_A, SCAN_B] }])
  })

  it("never retries: a 503 is one call, and the proof request was certainly not created", async () => {
    let calls = 0
    server.use(
      http.put(`${BASE}/disputes/proofRequest`, () => {
        calls++
        return HttpResponse.json({ error: "Service unavailable" }, { status: 503 })
      })
    )
    const error = await rejection(client().createProofRequest([SCAN_A]))
    expect(calls).toBe(1)
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(submissionOutcome(error)).toBe("not_created")
  })

  it("treats a gateway timeout as an unknown outcome (the service may have created it)", async () => {
    server.use(http.put(`${BASE}/disputes/proofRequest`, () => new HttpResponse("upstream timed out", { status: 504 })))
    expect(submissionOutcome(await rejection(client().createProofRequest([SCAN_A])))).toBe("unknown")
  })

  it("treats a 500 as an unknown outcome (the service failed, perhaps after storing it)", async () => {
    server.use(http.put(`${BASE}/disputes/proofRequest`, () => new HttpResponse("Internal Server Error", { status: 500 })))
    expect(submissionOutcome(await rejection(client().createProofRequest([SCAN_A])))).toBe("unknown")
  })

  // Whether a connection was up is the HTTP core's to observe on a real socket
  // (MSW has none; see disputes-client.sandbox.unit.spec.ts for resets and timeouts there).
  it.each([
    ["a failure with the connection up", new HttpConnectionError({ request: PUT, connected: true }), "unknown"],
    ["a failure before connecting", new HttpConnectionError({ request: PUT, connected: false }), "not_created"],
    ["a timeout with the connection up", new HttpTimeoutError(100, { request: PUT, connected: true }), "unknown"],
    ["a timeout while connecting", new HttpTimeoutError(100, { request: PUT, connected: false }), "not_created"],
  ])("classifies %s as %s", (_case, error, outcome) => {
    expect(submissionOutcome(error)).toBe(outcome)
  })

  it.each([
    ["an empty body", { error: "Invalid request. Empty body" }],
    ["malformed JSON", {}],
    ["a scan id that is not a UUIDv4", { error: "Invalid request. At least one of the provided scan IDs is not valid" }],
  ])("maps the 400 row for %s to a rejected submission", async (_row, body) => {
    server.use(http.put(`${BASE}/disputes/proofRequest`, () => HttpResponse.json(body, { status: 400 })))
    const error = await rejection(client().createProofRequest([SCAN_A]))
    expect(error).toBeInstanceOf(ServiceScanDisputesError)
    expect((error as ServiceScanDisputesError).reason).toBe("invalid_request")
    expect(submissionOutcome(error)).toBe("rejected")
  })

  it("checks scan ids before calling: nothing goes out for a non-UUIDv4", async () => {
    await expect(client().createProofRequest(["not-a-uuid"])).rejects.toThrow(TypeError)
    await expect(client().createProofRequest([])).rejects.toThrow(TypeError)
    // A UUID of another version is not accepted by the service either.
    await expect(client().createProofRequest(["3f0c9a52-8d4e-1b7a-9c1d-2e5f6a7b8c9d"])).rejects.toThrow(TypeError)
    // Sending the same ids again cannot help: the proof request is failed, not retried.
    expect(submissionOutcome(await rejection(client().createProofRequest(["nope"])))).toBe("rejected")
  })

  it("fails with a typed error on a 2xx body without an id, and calls it an unknown outcome", async () => {
    server.use(http.put(`${BASE}/disputes/proofRequest`, () => new HttpResponse("{id: pr_1", { status: 200 })))
    const error = await rejection(client().createProofRequest([SCAN_A]))
    expect(error).toBeInstanceOf(UnreadableResponseError)
    expect((error as Error).message).toMatch(/unexpected response/)
    expect(submissionOutcome(error)).toBe("unknown")
  })

  it.each([
    [401, "An API key is required for authentication"],
    [403, "Invalid API key provided"],
    [403, "Key has invalid permissions"],
  ])("maps the auth row %i %s to HttpAuthError without leaking the key", async (status, text) => {
    server.use(http.put(`${BASE}/disputes/proofRequest`, () => new HttpResponse(text, { status })))
    const error = await rejection(client().createProofRequest([SCAN_A]))
    expect(error).toBeInstanceOf(HttpAuthError)
    expect((error as HttpAuthError).status).toBe(status)
    expect(String((error as Error).message)).not.toContain(KEY)
    expect(JSON.stringify(error)).not.toContain(KEY)
    // Authentication is checked first: nothing was created.
    expect(submissionOutcome(error)).toBe("not_created")
  })
})

describe("getProofRequest (GET /disputes/proof/<id>)", () => {
  it("answers pending", async () => {
    server.use(
      http.get(`${BASE}/disputes/proof/pr_1`, ({ request }) => {
        expect(request.headers.get("x-api-key")).toBe(KEY)
        return HttpResponse.json({ status: "pending" })
      })
    )
    await expect(client().getProofRequest("pr_1")).resolves.toEqual({ status: "pending" })
  })

  it("answers the scans of a complete request, with the real service's `fraud` as `invalid`", async () => {
    server.use(
      http.get(`${BASE}/disputes/proof/pr_1`, () =>
        HttpResponse.json({
          status: "complete",
          scans: [
            { scanId: SCAN_A.toUpperCase(), groundTruth: "valid", image: `${BASE}/disputes/image/${SCAN_A}.jpg` },
            { scanId: SCAN_B, groundTruth: "fraud" },
          ],
          extra: "ignored",
        })
      )
    )
    await expect(client().getProofRequest("pr_1")).resolves.toEqual({
      status: "complete",
      scans: [
        { scanId: SCAN_A, groundTruth: "valid", reportedGroundTruth: "valid", image: `${BASE}/disputes/image/${SCAN_A}.jpg` },
        { scanId: SCAN_B, groundTruth: "invalid", reportedGroundTruth: "fraud", image: null },
      ],
    })
  })

  it("accepts the spec's `invalid` too, and never keeps an image for it", async () => {
    server.use(
      http.get(`${BASE}/disputes/proof/pr_1`, () =>
        HttpResponse.json({ status: "complete", scans: [{ scanId: SCAN_B, groundTruth: "invalid", image: "https://evil.test/x.jpg" }] })
      )
    )
    const result = await client().getProofRequest("pr_1")
    expect(result).toEqual({
      status: "complete",
      scans: [{ scanId: SCAN_B, groundTruth: "invalid", reportedGroundTruth: "invalid", image: null }],
    })
  })

  it.each<[string, Response]>([
    ["not JSON", new HttpResponse("{status: 'complete', scans: [", { status: 200 })],
    ["an unknown status", HttpResponse.json({ status: "processing" })],
    ["complete without scans", HttpResponse.json({ status: "complete" })],
    ["an unknown verdict", HttpResponse.json({ status: "complete", scans: [{ scanId: SCAN_A, groundTruth: "maybe" }] })],
  ])("fails with a typed error, not a crash, on %s", async (_case, response) => {
    server.use(http.get(`${BASE}/disputes/proof/pr_1`, () => response.clone()))
    const error = await rejection(client().getProofRequest("pr_1"))
    expect(error).toBeInstanceOf(UnreadableResponseError)
  })

  it("maps the 404 and 403 rows", async () => {
    server.use(
      http.get(`${BASE}/disputes/proof/missing`, () => HttpResponse.json({ error: "Proof request not found" }, { status: 404 })),
      http.get(`${BASE}/disputes/proof/foreign`, () => HttpResponse.json({ error: "Forbidden" }, { status: 403 }))
    )
    const missing = await rejection(client().getProofRequest("missing"))
    expect((missing as ServiceScanDisputesError).reason).toBe("proof_request_not_found")
    const foreign = await rejection(client().getProofRequest("foreign"))
    expect((foreign as ServiceScanDisputesError).reason).toBe("proof_request_forbidden")
    expect(foreign).not.toBeInstanceOf(HttpAuthError)
  })

  it("does not mistake a 404 of a wrong base URL for a missing proof request", async () => {
    server.use(http.get(`${BASE}/disputes/proof/pr_1`, () => HttpResponse.json({ error: "Not found" }, { status: 404 })))
    const error = await rejection(client().getProofRequest("pr_1"))
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(error).not.toBeInstanceOf(ServiceScanDisputesError)
  })

  it("retries a GET after a 503 (idempotent), up to maxRetries", async () => {
    let calls = 0
    server.use(
      http.get(`${BASE}/disputes/proof/pr_1`, () => {
        calls++
        return calls < 3
          ? HttpResponse.json({ error: "Service unavailable" }, { status: 503 })
          : HttpResponse.json({ status: "pending" })
      })
    )
    await expect(client().getProofRequest("pr_1")).resolves.toEqual({ status: "pending" })
    expect(calls).toBe(3)
  })

  it("does not retry an authentication failure", async () => {
    let calls = 0
    server.use(
      http.get(`${BASE}/disputes/proof/pr_1`, () => {
        calls++
        return new HttpResponse("Invalid API key provided", { status: 403 })
      })
    )
    await expect(client().getProofRequest("pr_1")).rejects.toBeInstanceOf(HttpAuthError)
    expect(calls).toBe(1)
  })
})

describe("getImage (GET /disputes/image/<scan_id>.jpg)", () => {
  // The image is read by `streamedGet` on a socket of its own, which MSW does not see:
  // these specs answer from a real server on loopback instead.
  type Answer = (req: IncomingMessage, res: ServerResponse) => void
  let answer: Answer = (_req, res) => res.end()
  let calls = 0
  let imageBase = ""
  const imageServer = createServer((req, res) => {
    calls++
    answer(req, res)
  })
  beforeAll(async () => {
    await new Promise<void>((resolve) => imageServer.listen(0, "127.0.0.1", resolve))
    imageBase = `http://127.0.0.1:${(imageServer.address() as AddressInfo).port}`
  })
  beforeEach(() => {
    calls = 0
  })
  afterAll(async () => {
    await new Promise((resolve) => imageServer.close(resolve))
  })
  const imageClient = (options: Partial<ConstructorParameters<typeof DisputesClient>[0]> = {}) => client({ baseUrl: imageBase, ...options })
  const sendJson = (status: number, body: unknown): Answer => (_req, res) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
  }
  const sendText = (status: number, body: string): Answer => (_req, res) => {
    res.writeHead(status, { "content-type": "text/plain" }).end(body)
  }

  it("streams the bytes from the configured host, whatever URL a proof response carried", async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9])
    let seen: { url?: string; key?: string | string[] } = {}
    answer = (req, res) => {
      seen = { url: req.url, key: req.headers["x-api-key"] }
      res.writeHead(200, {
        "content-type": "image/jpeg",
        "content-length": String(jpeg.length),
        "content-disposition": `attachment; filename=${SCAN_A}.jpg`,
      })
      res.end(jpeg)
    }
    const image = await imageClient().getImage(SCAN_A)
    expect(image.contentType).toBe("image/jpeg")
    expect(image.contentLength).toBe(jpeg.length)
    expect(await image.body.readAll(1000)).toEqual(jpeg)
    expect(seen).toEqual({ url: `/disputes/image/${SCAN_A}.jpg`, key: KEY })
  })

  it("leaves the length unknown for a chunked answer (no Content-Length), rather than 0", async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xd9])
    answer = (_req, res) => {
      res.setHeader("content-type", "image/jpeg")
      res.write(jpeg.subarray(0, 2))
      res.end(jpeg.subarray(2))
    }
    const image = await imageClient().getImage(SCAN_A)
    expect(image.contentLength).toBeUndefined()
    expect(await image.body.readAll(1000)).toEqual(jpeg)
  })

  it("retries a 503 before any byte, as any GET, then streams", async () => {
    let answered = 0
    answer = (_req, res) => {
      if (answered++ === 0) {
        sendText(503, "Service Unavailable")(_req, res)
        return
      }
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": "2" }).end(Buffer.from([0xff, 0xd8]))
    }
    const image = await imageClient().getImage(SCAN_A)
    expect(await image.body.readAll(10)).toEqual(Buffer.from([0xff, 0xd8]))
    expect(calls).toBe(2)
  })

  it("fails with the typed timeout when the body stalls past the attempt's deadline", async () => {
    answer = (_req, res) => {
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": "10" })
      res.write(Buffer.from([0xff, 0xd8]))
    }
    const image = await imageClient({ timeoutMs: 200 }).getImage(SCAN_A)
    const error = await rejection(image.body.readAll(100))
    expect(error).toBeInstanceOf(HttpTimeoutError)
    expect((error as Error).message).toBe(`GET ${imageBase}/disputes/image/${SCAN_A}.jpg timed out after 200 ms`)
  })

  it.each([
    ["400 JSON 'Invalid request. Provided scan ID is not valid'", sendJson(400, { error: "Invalid request. Provided scan ID is not valid" }), "invalid_scan_id"],
    ["400 plain 'Bad Request' (ownership check error)", sendText(400, "Bad Request"), "ownership_check_failed"],
    ["403 JSON 'Forbidden' (fraud)", sendJson(403, { error: "Forbidden" }), "scan_fraudulent"],
    ["404 JSON 'Image not found'", sendJson(404, { error: "Image not found" }), "image_not_available"],
    ["404 plain 'Not Found' (image lost)", sendText(404, "Not Found"), "image_missing"],
  ])("maps the row %s to its reason", async (_row, respond, reason) => {
    answer = respond
    const error = await rejection(imageClient({ maxRetries: 0 }).getImage(SCAN_A))
    expect(error).toBeInstanceOf(ServiceScanDisputesError)
    expect((error as ServiceScanDisputesError).reason).toBe(reason)
    expect(calls).toBe(1)
  })

  it("refuses a scan id that is not a UUIDv4 without calling", async () => {
    await expect(imageClient().getImage("../../etc/passwd")).rejects.toThrow(TypeError)
    expect(calls).toBe(0)
  })
})

describe("probe", () => {
  it("counts the spec's 'Proof request not found' as a working key", async () => {
    server.use(
      http.get(`${BASE}/disputes/proof/:id`, () => HttpResponse.json({ error: "Proof request not found" }, { status: 404 }))
    )
    await expect(client().probe()).resolves.toEqual({ latencyMs: expect.any(Number) })
  })

  it("reports a refused key", async () => {
    server.use(http.get(`${BASE}/disputes/proof/:id`, () => new HttpResponse("Key has invalid permissions", { status: 403 })))
    await expect(client().probe()).rejects.toBeInstanceOf(HttpAuthError)
  })
})
