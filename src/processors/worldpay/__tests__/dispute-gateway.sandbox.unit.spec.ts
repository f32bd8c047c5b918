import { createServer } from "node:net"
import { startSandbox, type Sandbox } from "servicescan-sandbox"
import { RetryEvent, HttpConnectionError, HttpStatusError } from "../../../lib/http"
import { WorldpayGateway } from "../payment-gateway"
import { DisputeGatewayConfigurationError, DisputeGatewayRefusal } from "../../types"
import { WorldpayDisputeGateway } from "../dispute-gateway"
import { caught, expectNoSecret } from "./chargeback-fixtures"

/**
 * The Worldpay dispute gateway against the sandbox's Chargeback API over real
 * HTTP: cases raised on an authorization our payment gateway made, read,
 * evidenced, answered, and the effects counted at the sandbox (its control API
 * and request stats), faults included.
 */

let sandbox: Sandbox
let disputes: WorldpayDisputeGateway
const retries: RetryEvent[] = []
let payment: { cnpTxnId: string; orderId: string; requestId: string; token: string }
let sequence = 0

type SandboxCase = {
  caseId: string
  currentQueue: string
  representedAmount: number | null
  activities: Array<{ activityType: string; notes: string | null }>
  documents: Array<{ documentId: string; contentType: string; size: number; sha256: string; replacedAt: string | null }>
}

async function control<T>(path: string, body?: unknown, method = body === undefined ? "GET" : "POST"): Promise<T> {
  const response = await fetch(`${sandbox.url}/__sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) {
    throw new Error(`${method} /__sandbox${path} answered ${response.status}: ${text}`)
  }
  return (text ? JSON.parse(text) : undefined) as T
}

/** A case on the approved authorization, through the control API. */
async function raiseCase(input: Record<string, unknown> = {}): Promise<string> {
  const kase = await control<{ caseId: string }>("/chargebacks", { cnpTxnId: payment.cnpTxnId, ...input })
  return kase.caseId
}

const sandboxCase = (caseId: string) => control<SandboxCase>(`/chargebacks/${caseId}`)

async function requestCounts(): Promise<Record<string, number>> {
  const stats = await control<{ requests: Record<string, number> }>("/stats")
  return Object.fromEntries(Object.entries(stats.requests).filter(([route]) => route.startsWith("chargebacks.")))
}

async function withFaults<T>(faults: Record<string, unknown>, run: () => Promise<T>): Promise<T> {
  await control("/faults", faults)
  try {
    return await run()
  } finally {
    await control("/faults", undefined, "DELETE")
  }
}

/** A small but real PDF: the sandbox checks the signature, as Worldpay does. */
function pdf(text: string): Uint8Array {
  return new Uint8Array(
    Buffer.from(
      `%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n% ${text}\ntrailer << /Root 1 0 R >>\n%%EOF\n`
    )
  )
}

const today = () => new Date().toISOString().slice(0, 10)

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logger: false })
  const { processor } = sandbox.demo
  disputes = new WorldpayDisputeGateway({
    url: sandbox.url,
    user: processor.user,
    password: processor.password,
    merchantId: processor.merchantId,
    timeoutMs: 5_000,
    maxRetries: 10,
    backoff: { baseMs: 1, capMs: 5 },
    onRetry: (event) => retries.push(event),
    // Above the sandbox's 2 MiB, so that the sandbox is the one to refuse a larger file.
    maxDocumentBytes: 4 * 1024 * 1024,
  })

  // A card registered through the hosted form and the token exchange, as a shopper's would be.
  const form = await fetch(`${sandbox.url}/api/v1/forms`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: "http://localhost:3000" },
    body: JSON.stringify({ key: sandbox.demo.keys.shareable, card: { number: "5555555555554444", cvv: "123", expiry: "12/30" } }),
  })
  const { formId } = (await form.json()) as { formId: string }
  const exchange = await fetch(`${sandbox.url}/api/v1/worldpay/form/${formId}`, { headers: { "x-api-key": sandbox.demo.keys.paymentToken } })
  const { token } = (await exchange.json()) as { token: string }

  // The authorization our own payment gateway makes at checkout.
  const cnp = new WorldpayGateway({ ...processor, timeoutMs: 5_000, maxRetries: 0 })
  const requestId = `pay-dgw-${Date.now().toString(36)}`
  const result = await cnp.authorize({ requestId, orderId: `order-${requestId}`, amount: 4999, currencyCode: "usd", token, customerId: "cus_dgw" })
  expect(result.outcome).toBe("approved")
  payment = { cnpTxnId: result.transactionId ?? "", orderId: `order-${requestId}`, requestId, token }
})

afterAll(async () => {
  await sandbox?.close()
})

beforeEach(() => {
  retries.length = 0
  sequence++
})

describe("WorldpayDisputeGateway against the sandbox's Chargeback API", () => {
  it("reads a case raised on our authorization: by activity date, as actionable, by id", async () => {
    const caseId = await raiseCase({ reasonCode: "4837", amount: 4000, replyBy: "2099-12-31" })

    const byDate = await disputes.listCasesByActivityDate(today())
    const actionable = await disputes.listActionableCases()
    const one = await disputes.getCase(caseId)

    const expected = {
      caseId,
      merchantId: sandbox.demo.processor.merchantId,
      transactionId: payment.cnpTxnId,
      orderId: payment.orderId,
      merchantTxnId: payment.requestId,
      customerId: "cus_dgw",
      cardLast4: "4444",
      cardType: "MC",
      amountMinor: 4000,
      currencyCode: "USD",
      cycle: "First Chargeback",
      reasonCode: "4837",
      reasonDescription: "No Cardholder Authorization",
      queue: "Merchant",
      awaitingMerchant: true,
      outcome: undefined,
      receivedOn: today(),
      replyBy: "2099-12-31",
      representedAmountMinor: undefined,
      activities: [
        {
          date: today(),
          type: "Assign To Merchant",
          fromQueue: "Vantiv",
          toQueue: "Merchant",
          settlementAmountMinor: 4000,
          settlementCurrencyCode: "USD",
          notes: undefined,
        },
      ],
    }
    expect(one).toMatchObject(expected)
    expect(byDate.find((kase) => kase.caseId === caseId)).toEqual(one)
    expect(actionable.find((kase) => kase.caseId === caseId)).toEqual(one)
    expect(await disputes.listCasesByActivityDate("2000-01-01")).toEqual([])
  })

  it("answers null for a case the API does not know", async () => {
    await expect(disputes.getCase("999999999999")).resolves.toBeNull()
  })

  it("uploads a PDF, lists it, and a second put of the same id replaces it: one document, the new bytes", async () => {
    const caseId = await raiseCase()
    const before = await requestCounts()
    await disputes.putDocument(caseId, "evidence.pdf", { bytes: pdf("first"), contentType: "application/pdf" })
    await expect(disputes.listDocuments(caseId)).resolves.toEqual(["evidence.pdf"])

    const second = pdf("second, longer version")
    await disputes.putDocument(caseId, "evidence.pdf", { bytes: second, contentType: "application/pdf" })
    await disputes.putDocument(caseId, "scan 1 (front).png", {
      bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]),
      contentType: "image/png",
    })
    await expect(disputes.listDocuments(caseId)).resolves.toEqual(["evidence.pdf", "scan 1 (front).png"])

    const kase = await sandboxCase(caseId)
    expect(kase.documents).toEqual([
      expect.objectContaining({ documentId: "evidence.pdf", contentType: "application/pdf", size: second.byteLength, replacedAt: expect.any(String) }),
      expect.objectContaining({ documentId: "scan 1 (front).png", contentType: "image/png", replacedAt: null }),
    ])
    const stored = await fetch(`${sandbox.url}/__sandbox/chargebacks/${caseId}/documents/evidence.pdf`)
    expect(Buffer.from(await stored.arrayBuffer()).equals(Buffer.from(second))).toBe(true)
    const retrieved = await disputes.retrieveDocument(caseId, "evidence.pdf")
    expect(retrieved?.contentType).toBe("application/pdf")
    expect(Buffer.from(retrieved?.bytes ?? []).equals(Buffer.from(second))).toBe(true)
    await expect(disputes.retrieveDocument(caseId, "nothing.pdf")).resolves.toBeNull()

    const after = await requestCounts()
    expect(after["chargebacks.document.upload"] - before["chargebacks.document.upload"]).toBe(3)
    expect(after["chargebacks.document.replace"] - before["chargebacks.document.replace"]).toBe(1)
  })

  it("deletes a document, and deleting it again is not an error", async () => {
    const caseId = await raiseCase()
    await disputes.putDocument(caseId, "a.pdf", { bytes: pdf("a"), contentType: "application/pdf" })
    await disputes.deleteDocument(caseId, "a.pdf")
    await disputes.deleteDocument(caseId, "a.pdf")
    await expect(disputes.listDocuments(caseId)).resolves.toEqual([])
    expect((await sandboxCase(caseId)).documents).toEqual([])
  })

  it("refuses a document over the API's limit with code 012, and one that is not what it claims with 013", async () => {
    const caseId = await raiseCase()
    const big = new Uint8Array(2 * 1024 * 1024 + 1024)
    big.set(pdf("big"))
    const tooLarge = await caught(disputes.putDocument(caseId, "big.pdf", { bytes: big, contentType: "application/pdf" }))
    expect(tooLarge).toBeInstanceOf(DisputeGatewayRefusal)
    expect(tooLarge).toMatchObject({ code: "012" })
    expect(tooLarge.message).toBe(`Worldpay refused to upload big.pdf for case ${caseId}: 012 Filesize exceeds limit of 2MB`)

    const fake = await caught(disputes.putDocument(caseId, "fake.pdf", { bytes: new Uint8Array(Buffer.from("<html>")), contentType: "application/pdf" }))
    expect(fake).toMatchObject({ code: "013" })
    expect((await sandboxCase(caseId)).documents).toEqual([])
  })

  it("represents: the activity shows newest first; then a second answer and new documents are refused", async () => {
    const caseId = await raiseCase({ amount: 3000 })
    await disputes.putDocument(caseId, "evidence.pdf", { bytes: pdf("evidence"), contentType: "application/pdf" })

    const result = await disputes.represent(caseId, { note: "Card scan evidence attached (evidence.pdf)", amountMinor: 2500 })
    expect(result.transactionId).toMatch(/^\d{16}$/)

    const kase = await disputes.getCase(caseId)
    expect(kase).toMatchObject({ queue: "Vantiv", awaitingMerchant: false, representedAmountMinor: 2500 })
    expect(kase?.activities.map((activity) => activity.type)).toEqual(["Merchant Represent", "Assign To Merchant"])
    expect(kase?.activities[0]).toMatchObject({
      date: today(),
      fromQueue: "Merchant",
      toQueue: "Vantiv",
      notes: "Card scan evidence attached (evidence.pdf)",
      settlementAmountMinor: 2500,
    })

    const again = await caught(disputes.represent(caseId, { note: "again" }))
    expect(again).toBeInstanceOf(DisputeGatewayRefusal)
    expect(again).toMatchObject({ code: "400" })
    expect(again.message).toBe(
      `Worldpay refused sending MERCHANT_REPRESENT for case ${caseId}: Cannot perform activity <Merchant Represent> for case <${caseId}> in queue <Vantiv>`
    )
    const accept = await caught(disputes.acceptLiability(caseId, { note: "changed our mind" }))
    expect(accept).toMatchObject({ code: "400" })
    expect(accept.message).toContain(`Cannot perform activity <Merchant Accepts Liability> for case <${caseId}> in queue <Vantiv>`)
    const late = await caught(disputes.putDocument(caseId, "late.pdf", { bytes: pdf("late"), contentType: "application/pdf" }))
    expect(late).toMatchObject({ code: "004" })

    // Exactly one represent landed.
    const stored = await sandboxCase(caseId)
    expect(stored.activities.map((activity) => activity.activityType)).toEqual(["Merchant Represent", "Assign To Merchant"])
    expect(stored.documents.map((document) => document.documentId)).toEqual(["evidence.pdf"])
  })

  it("accepts liability, and reads the network's decision on a represented case", async () => {
    const accepted = await raiseCase()
    await disputes.acceptLiability(accepted, { note: "The scan shows true fraud" })
    await expect(disputes.getCase(accepted)).resolves.toMatchObject({
      queue: "Merchant Assumed",
      awaitingMerchant: false,
      activities: [expect.objectContaining({ type: "Merchant Accepts Liability", notes: "The scan shows true fraud" }), expect.anything()],
    })

    const won = await raiseCase()
    await disputes.represent(won, { note: "evidence" })
    await control(`/chargebacks/${won}/decide`, { outcome: "won" })
    await expect(disputes.getCase(won)).resolves.toMatchObject({ outcome: "won", queue: "Network Assumed" })
  })

  it("turns wrong credentials into a configuration error that carries no secret", async () => {
    const wrong = new WorldpayDisputeGateway({ url: sandbox.url, user: sandbox.demo.processor.user, password: "not-the-password-!", maxRetries: 3 })
    const error = await caught(wrong.listActionableCases())
    expect(error).toBeInstanceOf(DisputeGatewayConfigurationError)
    expect(error).toMatchObject({ status: 401 })
    expect(JSON.stringify(error) + String(error.message) + String(error.stack)).not.toContain("not-the-password-!")
    expectNoSecret(error)
  })

  it("keeps the credentials out of a refused connection's error", async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
    const { port } = probe.address() as { port: number }
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    const password = sandbox.demo.processor.password
    const error = await caught(new WorldpayDisputeGateway({ url: `http://127.0.0.1:${port}`, user: "u", password, maxRetries: 0 }).getCase("1"))
    expect(error).toBeInstanceOf(HttpConnectionError)
    expect(error.message).toBe(`Could not reach GET http://127.0.0.1:${port}/chargebacks/1: connect ECONNREFUSED 127.0.0.1:${port}`)
    expect(`${error.message} ${error.stack} ${JSON.stringify(error)}`).not.toContain(password)
  })
})

describe("WorldpayDisputeGateway under the sandbox's faults", () => {
  it("retries reads through 503s and reset connections (errorRate 0.3, resetRate 0.1)", async () => {
    const caseId = await raiseCase()
    await disputes.putDocument(caseId, "evidence.pdf", { bytes: pdf("x"), contentType: "application/pdf" })
    const before = await requestCounts()
    const reads = await withFaults({ errorRate: 0.3, resetRate: 0.1 }, async () => {
      const results = []
      for (let i = 0; i < 10; i++) {
        results.push(await disputes.getCase(caseId))
        results.push(await disputes.listActionableCases())
        results.push(await disputes.listDocuments(caseId))
      }
      return results
    })
    expect(reads.filter((_, i) => i % 3 === 0).every((kase) => (kase as { caseId: string } | null)?.caseId === caseId)).toBe(true)
    expect(reads.filter((_, i) => i % 3 === 2).every((ids) => JSON.stringify(ids) === '["evidence.pdf"]')).toBe(true)
    // 30 reads; the sandbox saw each retry too. (That none of 30 reads met a fault has a probability of 0.6^30.)
    const after = await requestCounts()
    const sent =
      after["chargebacks.retrieve"] - before["chargebacks.retrieve"] + after["chargebacks.document.list"] - before["chargebacks.document.list"]
    expect(retries.length).toBeGreaterThan(0)
    expect(sent).toBe(30 + retries.length)
    expectNoSecret(retries)
  })

  it("retries a read whose answer was lost (dropResponse)", async () => {
    const caseId = await raiseCase()
    const before = await requestCounts()
    const kase = await withFaults({ dropResponse: { route: "chargebacks.retrieve", count: 1 } }, () => disputes.getCase(caseId))
    expect(kase?.caseId).toBe(caseId)
    expect((await requestCounts())["chargebacks.retrieve"] - before["chargebacks.retrieve"]).toBe(2)
    expect(retries).toHaveLength(1)
  })

  it("surfaces an update whose answer was lost, sent once: the case shows it landed, and the caller reconciles by reading", async () => {
    const caseId = await raiseCase()
    const before = await requestCounts()
    const error = await withFaults({ dropResponse: { route: "chargebacks.update", count: 1 } }, () =>
      caught(disputes.represent(caseId, { note: "evidence" }))
    )
    expect(error).toBeInstanceOf(HttpConnectionError)
    expect(error).toMatchObject({ connected: true })
    expect(retries).toHaveLength(0)
    expect((await requestCounts())["chargebacks.update"] - before["chargebacks.update"]).toBe(1)
    const kase = await disputes.getCase(caseId)
    expect(kase?.activities[0]).toMatchObject({ type: "Merchant Represent", notes: "evidence" })
    expect((await sandboxCase(caseId)).activities.filter((activity) => activity.activityType === "Merchant Represent")).toHaveLength(1)
  })

  it("surfaces a 503 on an update after one request (errorRate 1)", async () => {
    const caseId = await raiseCase()
    const before = await requestCounts()
    const error = await withFaults({ errorRate: 1 }, () => caught(disputes.acceptLiability(caseId, { note: "x" })))
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(error).toMatchObject({ status: 503 })
    expect((await requestCounts())["chargebacks.update"] - before["chargebacks.update"]).toBe(1)
    expect((await sandboxCase(caseId)).currentQueue).toBe("Merchant")
  })

  it("repeats an upload whose answer was lost, ending with exactly one document (the repeat meets 005 and replaces)", async () => {
    const caseId = await raiseCase()
    const before = await requestCounts()
    const bytes = pdf(`lost answer ${sequence}`)
    await withFaults({ dropResponse: { route: "chargebacks.document.upload", count: 1 } }, () =>
      disputes.putDocument(caseId, "evidence.pdf", { bytes, contentType: "application/pdf" })
    )
    const after = await requestCounts()
    expect(after["chargebacks.document.upload"] - before["chargebacks.document.upload"]).toBe(2)
    expect(after["chargebacks.document.replace"] - before["chargebacks.document.replace"]).toBe(1)
    const kase = await sandboxCase(caseId)
    expect(kase.documents).toEqual([expect.objectContaining({ documentId: "evidence.pdf", size: bytes.byteLength })])
  })
})
