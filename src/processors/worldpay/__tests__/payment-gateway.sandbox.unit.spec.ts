import { startSandbox, type Sandbox } from "servicescan-sandbox"
import { HttpConnectionError } from "../../../lib/http"
import { GatewayConfigurationError } from "../../types"
import { WorldpayGateway } from "../payment-gateway"

/**
 * The Worldpay gateway against the sandbox's simulated cnpAPI over real HTTP
 * (`POST {sandbox}/cnp/online`): the XML it builds is accepted, and the codes
 * the processor answers are classified as the provider expects.
 */

const CERT_CARD = "4457119922390123"
const CERT_TOKEN = "1111000276870123"
const MISSING_TOKEN = "1111000100092332"

let sandbox: Sandbox
let gateway: WorldpayGateway
let sequence = 0

/** A fresh request id per call (cnpAPI ids are at most 25 characters). */
const nextId = (label: string) => `${label}-${Date.now().toString(36)}-${++sequence}`.slice(0, 25)

async function control<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${sandbox.url}/__sandbox${path}`, init)
  return (await response.json()) as T
}

/** Registers a card through the hosted form and the token exchange, as a shopper would. */
async function tokenFor(cardNumber: string): Promise<string> {
  const form = await fetch(`${sandbox.url}/api/v1/forms`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: "http://localhost:3000" },
    body: JSON.stringify({
      key: sandbox.demo.keys.shareable,
      card: { number: cardNumber, cvv: "123", expiry: "12/30" },
    }),
  })
  const { formId } = (await form.json()) as { formId: string }
  const exchange = await fetch(`${sandbox.url}/api/v1/worldpay/form/${formId}`, {
    headers: { "x-api-key": sandbox.demo.keys.paymentToken },
  })
  const { token } = (await exchange.json()) as { token: string }
  return token
}

function authorizeRequest(token: string, amount = 1050) {
  const id = nextId("auth")
  return { requestId: id, orderId: id, amount, currencyCode: "usd", token }
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logger: false })
  gateway = new WorldpayGateway({ ...sandbox.demo.processor, timeoutMs: 5_000, maxRetries: 0 })
  // Tokens exist at the processor once the service registered the card (registerTokenRequest).
  expect(await tokenFor(CERT_CARD)).toBe(CERT_TOKEN)
})

afterAll(async () => {
  await sandbox?.close()
})

describe("WorldpayGateway against the sandbox's cnpAPI", () => {
  it("authorizes a token and the processor records it in minor units", async () => {
    const request = { ...authorizeRequest(CERT_TOKEN, 1050), customerId: "cus_123", reportGroup: "Web Shop" }
    const result = await gateway.authorize(request)
    expect(result).toMatchObject({
      outcome: "approved",
      responseCode: "000",
      message: "Approved",
      duplicate: false,
      transactionId: expect.stringMatching(/^\d+$/),
      authCode: expect.stringMatching(/^\d{6}$/),
      card: { last4: "0123" },
    })
    const { items } = await control<{ items: Array<Record<string, unknown>> }>(
      `/processor/transactions?type=authorization&id=${request.requestId}`
    )
    expect(items).toEqual([
      expect.objectContaining({
        id: request.requestId,
        orderId: request.orderId,
        amount: 1050,
        customerId: "cus_123",
        reportGroup: "Web Shop",
        token: CERT_TOKEN,
        cnpTxnId: result.transactionId,
        duplicate: false,
      }),
    ])
    // The sandbox stores the request with the password redacted; ours went in the body only.
    expect(String(items[0].requestXml)).not.toContain(sandbox.demo.processor.password)
  })

  it("answers a repeated request id with the original result (duplicate detection)", async () => {
    const request = authorizeRequest(CERT_TOKEN, 777)
    const first = await gateway.authorize(request)
    const second = await gateway.authorize(request)
    expect(second).toMatchObject({ outcome: "approved", duplicate: true, transactionId: first.transactionId })
    const { items } = await control<{ items: Array<{ duplicate: boolean }> }>(
      `/processor/transactions?type=authorization&id=${request.requestId}`
    )
    expect(items.map((item) => item.duplicate)).toEqual([false, true])
  })

  it.each([
    ["4000000000009995", "110", "insufficient_funds"],
    ["4000000000000002", "349", "do_not_honor"],
    ["4000000000000069", "305", "expired_card"],
  ])("declines card %s with %s (%s)", async (card, code, reason) => {
    const token = await tokenFor(card)
    expect(token.slice(-4)).toBe(card.slice(-4))
    const result = await gateway.authorize(authorizeRequest(token))
    expect(result).toMatchObject({ outcome: "declined", responseCode: code, reason })
  })

  it("declines an unknown token with 822 (invalid_token)", async () => {
    const result = await gateway.sale(authorizeRequest(MISSING_TOKEN))
    expect(result).toMatchObject({ outcome: "declined", responseCode: "822", reason: "invalid_token" })
  })

  it("captures partially, captures the rest, and reports a further capture as already done (111)", async () => {
    const auth = await gateway.authorize(authorizeRequest(CERT_TOKEN, 1000))
    const partial = await gateway.capture({ requestId: nextId("cap"), transactionId: auth.transactionId!, amount: 400 })
    expect(partial).toMatchObject({ outcome: "approved", responseCode: "000" })
    const rest = await gateway.capture({ requestId: nextId("cap"), transactionId: auth.transactionId! })
    expect(rest).toMatchObject({ outcome: "approved" })
    const again = await gateway.capture({ requestId: nextId("cap"), transactionId: auth.transactionId! })
    expect(again).toMatchObject({ outcome: "already_done", responseCode: "111" })

    const { items } = await control<{ items: Array<{ amount: number; originalCnpTxnId: string; response: string }> }>(
      "/processor/transactions?type=capture"
    )
    const mine = items.filter((item) => item.originalCnpTxnId === auth.transactionId && item.response === "000")
    expect(mine.map((item) => item.amount)).toEqual([400, 600])
  })

  it("refunds a capture repeatedly and refuses to refund more than captured (365)", async () => {
    const auth = await gateway.authorize(authorizeRequest(CERT_TOKEN, 1000))
    const capture = await gateway.capture({ requestId: nextId("cap"), transactionId: auth.transactionId! })
    const refund = (amount: number) =>
      gateway.refund({ requestId: nextId("ref"), transactionId: capture.transactionId!, amount, currencyCode: "usd" })
    await expect(refund(300)).resolves.toMatchObject({ outcome: "approved" })
    await expect(refund(500)).resolves.toMatchObject({ outcome: "approved" })
    await expect(refund(300)).resolves.toMatchObject({
      outcome: "declined",
      responseCode: "365",
      reason: "exceeds_captured_amount",
    })
  })

  it("refunds a sale", async () => {
    const sale = await gateway.sale(authorizeRequest(CERT_TOKEN, 1500))
    expect(sale).toMatchObject({ outcome: "approved" })
    const refund = await gateway.refund({
      requestId: nextId("ref"),
      transactionId: sale.transactionId!,
      amount: 1500,
      currencyCode: "jpy",
    })
    expect(refund).toMatchObject({ outcome: "approved" })
  })

  it("voids a sale; the same void again is a duplicate, a different one is refused (362)", async () => {
    const sale = await gateway.sale(authorizeRequest(CERT_TOKEN, 2000))
    const requestId = nextId("void")
    const voided = await gateway.cancel({ requestId, transactionId: sale.transactionId!, target: "capture" })
    expect(voided).toMatchObject({ outcome: "approved" })
    const repeat = await gateway.cancel({ requestId, transactionId: sale.transactionId!, target: "capture" })
    expect(repeat).toMatchObject({ outcome: "approved", duplicate: true })
    const other = await gateway.cancel({ requestId: nextId("void"), transactionId: sale.transactionId!, target: "capture" })
    expect(other).toMatchObject({ outcome: "declined", responseCode: "362", reason: "already_settled" })
  })

  it("releases an authorization (authReversal); a second release is already done, a capture after it is refused", async () => {
    const auth = await gateway.authorize(authorizeRequest(CERT_TOKEN, 1000))
    const released = await gateway.cancel({
      requestId: nextId("rev"),
      transactionId: auth.transactionId!,
      target: "authorization",
    })
    expect(released).toMatchObject({ outcome: "approved" })
    const again = await gateway.cancel({
      requestId: nextId("rev"),
      transactionId: auth.transactionId!,
      target: "authorization",
    })
    // The sandbox answers 306; the cnpAPI reference uses 306/361 here. Both are "already released".
    expect(again).toMatchObject({ outcome: "already_done", responseCode: "306" })
    const capture = await gateway.capture({ requestId: nextId("cap"), transactionId: auth.transactionId! })
    expect(capture).toMatchObject({ outcome: "declined", reason: "authorization_unavailable" })
  })

  it("reports an unknown transaction id as not found (360)", async () => {
    const result = await gateway.capture({ requestId: nextId("cap"), transactionId: "123456789012345678" })
    expect(result).toMatchObject({ outcome: "declined", responseCode: "360", reason: "transaction_not_found" })
  })

  it("treats refused credentials as configuration (response=1), without echoing the password", async () => {
    const wrong = new WorldpayGateway({ ...sandbox.demo.processor, password: "wrong-password-xyz", maxRetries: 0 })
    const error = await wrong.authorize(authorizeRequest(CERT_TOKEN)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GatewayConfigurationError)
    expect(error).toMatchObject({ responseCode: "1", processorMessage: expect.stringMatching(/Authentication failed/) })
    expect(String((error as Error).message)).not.toContain("wrong-password-xyz")
  })

  it("sends XML the processor's schema check accepts, including credentials that need escaping", async () => {
    const tricky = new WorldpayGateway({
      url: sandbox.demo.processor.url,
      merchantId: sandbox.demo.processor.merchantId,
      user: sandbox.demo.processor.user,
      password: `${sandbox.demo.processor.password}<&"'>`,
      maxRetries: 0,
    })
    // Well-formed (escaped) but wrong: the envelope is refused for authentication, not for XML.
    const error = await tricky.authorize(authorizeRequest(CERT_TOKEN)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GatewayConfigurationError)
    expect(error).toMatchObject({ processorMessage: expect.stringMatching(/Authentication failed/) })
  })

  it("raises a connection error when the processor cannot be reached", async () => {
    const down = await startSandbox({ port: 0, logger: false })
    const url = down.demo.processor.url
    await down.close()
    const unreachable = new WorldpayGateway({ ...sandbox.demo.processor, url, maxRetries: 0 })
    await expect(unreachable.authorize(authorizeRequest(CERT_TOKEN))).rejects.toBeInstanceOf(HttpConnectionError)
  })

})
