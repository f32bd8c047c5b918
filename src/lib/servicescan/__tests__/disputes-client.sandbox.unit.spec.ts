import { AddressInfo, createServer } from "node:net"
import { HttpAuthError, HttpTimeoutError } from "../../http"
import { DisputesClient, ServiceScanDisputesError, submissionOutcome } from "../disputes-client"

/**
 * The client against the real sandbox over HTTP: the service's own behaviour
 * (labelling, completion, images, keys, faults), not our reading of the spec.
 */
type Sandbox = Awaited<ReturnType<typeof import("servicescan-sandbox").startSandbox>>

let sandbox: Sandbox
let client: DisputesClient

async function control<T>(path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> {
  const response = await fetch(`${sandbox.url}/__sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return (text ? JSON.parse(text) : undefined) as T
}

const newScan = async () => (await control<{ scanId: string }>("/scans", { accountId: sandbox.demo.accountId })).scanId
const stats = async () => (await control<{ requests: Record<string, number> }>("/stats")).requests

beforeAll(async () => {
  const { startSandbox } = await import("servicescan-sandbox")
  sandbox = await startSandbox({ logger: false })
  client = new DisputesClient({
    baseUrl: sandbox.url,
    secretKey: sandbox.demo.keys.secret,
    timeoutMs: 1_000,
    maxRetries: 2,
    backoff: { baseMs: 1, capMs: 5 },
  })
})
afterEach(async () => {
  await control("/faults", undefined, "DELETE")
})
afterAll(async () => {
  await sandbox?.close()
})

it("creates a proof request, sees it pending, then complete with ground truths and a streamable image", async () => {
  const [good, bad] = [await newScan(), await newScan()]
  const { id } = await client.createProofRequest([good, bad])
  await expect(client.getProofRequest(id)).resolves.toEqual({ status: "pending" })

  await control(`/scans/${good}/label`, { groundTruth: "valid" })
  await control(`/scans/${bad}/label`, { groundTruth: "invalid" })
  const result = await client.getProofRequest(id)
  expect(result).toEqual({
    status: "complete",
    scans: expect.arrayContaining([
      { scanId: good, groundTruth: "valid", reportedGroundTruth: "valid", image: expect.stringContaining(`/disputes/image/${good}.jpg`) },
      { scanId: bad, groundTruth: "invalid", reportedGroundTruth: "invalid", image: null },
    ]),
  })

  const image = await client.getImage(good)
  const bytes = await image.body.readAll(10 * 1024 * 1024)
  expect(image.contentType).toBe("image/jpeg")
  expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]))
  expect(bytes.length).toBe(image.contentLength)

  await expect(client.getImage(bad)).rejects.toMatchObject({ reason: "scan_fraudulent" })
})

it("reads the real service's `fraud` label as `invalid`", async () => {
  const { startSandbox } = await import("servicescan-sandbox")
  const fraudy = await startSandbox({ logger: false, fraudLabel: "fraud" })
  try {
    const other = new DisputesClient({ baseUrl: fraudy.url, secretKey: fraudy.demo.keys.secret })
    const create = await fetch(`${fraudy.url}/__sandbox/scans`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ accountId: fraudy.demo.accountId }),
    })
    const { scanId } = (await create.json()) as { scanId: string }
    const { id } = await other.createProofRequest([scanId])
    await fetch(`${fraudy.url}/__sandbox/scans/${scanId}/label`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ groundTruth: "fraud" }),
    })
    await expect(other.getProofRequest(id)).resolves.toEqual({
      status: "complete",
      scans: [{ scanId, groundTruth: "invalid", reportedGroundTruth: "fraud", image: null }],
    })
  } finally {
    await fraudy.close()
  }
})

it("maps every image error row the sandbox can produce", async () => {
  const unlabelled = await newScan()
  await expect(client.getImage(unlabelled)).rejects.toMatchObject({ reason: "image_not_available" })

  const lost = await newScan()
  await control(`/scans/${lost}/label`, { groundTruth: "valid" })
  await control(`/scans/${lost}/image`, undefined, "DELETE")
  await expect(client.getImage(lost)).rejects.toMatchObject({ reason: "image_missing" })

  await control("/faults", { ownershipCheck: "fail" })
  await expect(client.getImage(lost)).rejects.toMatchObject({ reason: "ownership_check_failed" })
})

it("maps the proof status rows: unknown id, other account's request", async () => {
  await expect(client.getProofRequest("00000000-0000-4000-8000-000000000000")).rejects.toMatchObject({
    reason: "proof_request_not_found",
  })
  const account = await control<{ accountId: string; keys: { secret: string } }>("/accounts", {})
  const stranger = new DisputesClient({ baseUrl: sandbox.url, secretKey: account.keys.secret })
  const { id } = await client.createProofRequest([await newScan()])
  const error = await stranger.getProofRequest(id).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(ServiceScanDisputesError)
  expect((error as ServiceScanDisputesError).reason).toBe("proof_request_forbidden")
})

it("raises HttpAuthError for an unknown key, a key without permission and a failing key lookup", async () => {
  const unknown = new DisputesClient({ baseUrl: sandbox.url, secretKey: "sk_test_nobody" })
  await expect(unknown.getProofRequest("x")).rejects.toMatchObject({ status: 403, serviceMessage: "Invalid API key provided" })

  const { key } = await control<{ key: string }>(`/accounts/${sandbox.demo.accountId}/keys`, {
    kind: "secret",
    permissions: ["disputes:read"],
  })
  const readOnly = new DisputesClient({ baseUrl: sandbox.url, secretKey: key })
  const error = await readOnly.createProofRequest([await newScan()]).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(HttpAuthError)
  expect(error).toMatchObject({ status: 403, serviceMessage: "Key has invalid permissions" })

  await control("/faults", { keyLookup: "fail" })
  await expect(client.probe()).rejects.toBeInstanceOf(HttpAuthError)
})

it("sends the PUT once on a 503, and the sandbox created nothing", async () => {
  const before = await stats()
  const proofsBefore = (await control<{ count: number }>("/proof-requests")).count
  await control("/faults", { errorRate: 1 })
  const error = await client.createProofRequest([await newScan()]).catch((e: unknown) => e)
  expect(submissionOutcome(error)).toBe("not_created")
  expect((await stats())["disputes.proofRequest.create"] - before["disputes.proofRequest.create"]).toBe(1)
  expect((await control<{ count: number }>("/proof-requests")).count).toBe(proofsBefore)
})

it("retries GETs through a flaky service", async () => {
  const { id } = await client.createProofRequest([await newScan()])
  await control("/faults", { errorRate: 0.5 })
  // Three attempts each: a run of failures is possible but rare over 10 calls (1/8 each).
  let ok = 0
  for (let i = 0; i < 10; i++) {
    ok += (await client.getProofRequest(id).then(() => 1, () => 0))
  }
  expect(ok).toBeGreaterThanOrEqual(6)
})

it("calls a dropped connection an unknown outcome, and a refused one safe to resend", async () => {
  const scan = await newScan()
  await control("/faults", { resetRate: 1 })
  expect(submissionOutcome(await client.createProofRequest([scan]).catch((e: unknown) => e))).toBe("unknown")
  await control("/faults", undefined, "DELETE")

  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
  const closed = new DisputesClient({ baseUrl: `http://127.0.0.1:${port}`, secretKey: "sk" })
  expect(submissionOutcome(await closed.createProofRequest([scan]).catch((e: unknown) => e))).toBe("not_created")
})

it("times out per attempt, and a timed-out PUT is an unknown outcome", async () => {
  await control("/faults", { latencyMs: 300 })
  const impatient = new DisputesClient({ baseUrl: sandbox.url, secretKey: sandbox.demo.keys.secret, timeoutMs: 100 })
  const error = await impatient.createProofRequest([await newScan()]).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(HttpTimeoutError)
  expect(submissionOutcome(error)).toBe("unknown")
})
