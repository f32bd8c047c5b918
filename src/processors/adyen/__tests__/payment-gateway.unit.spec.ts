import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { HttpStatusError } from "../../../lib/http"
import { listenStrictly } from "../../../lib/__tests__/support/msw-listen"
import { GatewayConfigurationError, GatewayError, GatewayProtocolError, GatewayResult } from "../../types"
import { adyenIdempotencyKey } from "../payment-gateway"
import { adyen } from "../index"
import { adyenOptionsSchema } from "../options"

const BASE = "https://checkout.adyen.test/v71"
const API_KEY = "AQE_secret_api_key_never_logged_42"
const PASSWORD = "ws-password-never-logged-42"
const MERCHANT = "ShopECOM"
const TOKEN = "BPLKEETVIQYXIX81"

type Seen = { path: string; headers: Record<string, string>; body: Record<string, unknown> }

const server = setupServer()
listenStrictly(server)

/** The gateway as the registry builds it from a store's options. */
function gateway(options: Record<string, unknown> = {}, http: { maxRetries?: number } = {}) {
  const config = adyenOptionsSchema.parse({ type: "adyen", merchantAccount: MERCHANT, apiKey: API_KEY, checkoutUrl: BASE, ...options })
  return adyen.payment.create(config, { maxRetries: http.maxRetries ?? 0, backoff: { baseMs: 1, capMs: 2 } })
}

/** Records each request to `path` and answers with `answer` (status, body) in turn, the last one repeated. */
function route(path: string, seen: Seen[], ...answers: Array<[number, unknown]>) {
  return http.post(`${BASE}${path}`, async ({ request }) => {
    seen.push({
      path: new URL(request.url).pathname,
      headers: Object.fromEntries(request.headers.entries()),
      body: (await request.json()) as Record<string, unknown>,
    })
    const [status, body] = answers[Math.min(seen.length, answers.length) - 1]
    return HttpResponse.json(body as Record<string, unknown>, { status })
  })
}

const authorised = {
  pspReference: "PSP0000000000001",
  resultCode: "Authorised",
  merchantReference: "1JB8XKQ7YV2M3N4P5Q6R7S8T9",
  amount: { currency: "USD", value: 1050 },
  paymentMethod: { brand: "visa", type: "scheme" },
  additionalData: { authCode: "044925", cardSummary: "1111" },
}
const received = (extra: Record<string, unknown> = {}) => ({
  merchantAccount: MERCHANT,
  paymentPspReference: "PSP0000000000001",
  pspReference: "MOD0000000000001",
  status: "received",
  ...extra,
})
const authorizeRequest = {
  requestId: "1JB8XKQ7YV2M3N4P5Q6R7S8T9",
  orderId: "1JB8XKQ7YV2M3N4P5Q6R7S8T9",
  amount: 1050,
  currencyCode: "usd",
  token: TOKEN,
  customerId: "cus_01JB8XKQ7YV2M3N4P5Q6R7S8T9",
}

describe("AdyenGateway on the wire (Checkout API v71)", () => {
  it("authorises the stored card for its shopper, held for a manual capture, with X-API-Key and an Idempotency-Key", async () => {
    const seen: Seen[] = []
    server.use(route("/payments", seen, [200, authorised]))
    const result = await gateway().authorize(authorizeRequest)
    expect(seen).toHaveLength(1)
    expect(seen[0].headers).toMatchObject({
      "x-api-key": API_KEY,
      "content-type": "application/json",
      "idempotency-key": "authorize:1JB8XKQ7YV2M3N4P5Q6R7S8T9",
    })
    expect(seen[0].headers.authorization).toBeUndefined()
    expect(seen[0].body).toEqual({
      amount: { currency: "USD", value: 1050 },
      reference: "1JB8XKQ7YV2M3N4P5Q6R7S8T9",
      paymentMethod: { type: "scheme", storedPaymentMethodId: TOKEN },
      shopperReference: "cus_01JB8XKQ7YV2M3N4P5Q6R7S8T9",
      shopperInteraction: "ContAuth",
      recurringProcessingModel: "CardOnFile",
      returnUrl: "https://servicescan.invalid/adyen/return",
      merchantAccount: MERCHANT,
      additionalData: { manualCapture: "true" },
    })
    expect(result).toEqual<GatewayResult>({
      outcome: "approved",
      reason: undefined,
      transactionId: "PSP0000000000001",
      responseCode: "Authorised",
      message: "Authorised",
      authCode: "044925",
      approvedAmount: 1050,
      card: { last4: "1111", type: "VI" },
    })
  })

  it("charges a guest's card under the form id (the shopper reference rule), captured at once for a sale, with Basic auth", async () => {
    const seen: Seen[] = []
    server.use(route("/payments", seen, [200, authorised]))
    const formId = "3f1c2b9e-7a4d-4c21-9b8e-0d5f6a7b8c9d"
    await gateway({ apiKey: undefined, user: "ws@Company.Shop", password: PASSWORD }).sale({
      ...authorizeRequest,
      customerId: undefined,
      formId,
    })
    expect(seen[0].body).toMatchObject({ shopperReference: formId, captureDelayHours: 0 })
    expect(seen[0].body.additionalData).toBeUndefined()
    expect(seen[0].headers.authorization).toBe(`Basic ${Buffer.from(`ws@Company.Shop:${PASSWORD}`).toString("base64")}`)
    expect(seen[0].headers["x-api-key"]).toBeUndefined()
    expect(seen[0].headers["idempotency-key"]).toBe("sale:1JB8XKQ7YV2M3N4P5Q6R7S8T9")
  })

  it("refuses to pay without a shopper reference, before any request", async () => {
    await expect(gateway().authorize({ ...authorizeRequest, customerId: undefined })).rejects.toBeInstanceOf(GatewayError)
  })

  it.each([
    ["12", "insufficient_funds", "Not enough balance"],
    ["6", "expired_card", "Expired Card"],
    ["2", "do_not_honor", "Refused"],
    ["20", "restricted_card", "FRAUD"],
    ["99", "generic", "Something new"],
  ])("maps a Refused with refusalReasonCode %s to %s, a 200 with the pspReference", async (code, reason, text) => {
    server.use(
      route("/payments", [], [200, { pspReference: "PSPREFUSED000001", resultCode: "Refused", refusalReason: text, refusalReasonCode: code }])
    )
    const result = await gateway().authorize(authorizeRequest)
    expect(result).toMatchObject({ outcome: "declined", reason, responseCode: code, message: text, transactionId: "PSPREFUSED000001" })
    expect(result.approvedAmount).toBeUndefined()
  })

  it("throws on Pending or Received: no verdict yet, and nobody can say the card was not charged", async () => {
    server.use(route("/payments", [], [200, { pspReference: "PSPPENDING000001", resultCode: "Pending" }]))
    await expect(gateway().authorize(authorizeRequest)).rejects.toThrow(/resultCode Pending: no verdict yet/)
  })

  it("throws a protocol error for an approval without a pspReference", async () => {
    server.use(route("/payments", [], [200, { resultCode: "Authorised" }]))
    await expect(gateway().authorize(authorizeRequest)).rejects.toBeInstanceOf(GatewayProtocolError)
  })

  it("captures in part by the payment's pspReference, naming the amount: 201 received is approved and pending", async () => {
    const seen: Seen[] = []
    server.use(route("/payments/PSP0000000000001/captures", seen, [201, received({ amount: { value: 400, currency: "USD" } })]))
    const result = await gateway().capture({
      requestId: "CAPTUREID0000000000000001",
      transactionId: "PSP0000000000001",
      amount: 400,
      remainingAmount: 1050,
      currencyCode: "usd",
    })
    expect(seen[0].headers["idempotency-key"]).toBe("capture:CAPTUREID0000000000000001")
    expect(seen[0].body).toEqual({ merchantAccount: MERCHANT, amount: { value: 400, currency: "USD" }, reference: "CAPTUREID0000000000000001" })
    expect(result).toEqual<GatewayResult>({
      outcome: "approved",
      pending: true,
      transactionId: "MOD0000000000001",
      responseCode: "received",
      message: "received",
      approvedAmount: 400,
    })
  })

  it("captures what remains when no amount is given (a whole capture), under its own key though it shares the authorization's request id", async () => {
    const seen: Seen[] = []
    server.use(route("/payments/PSP0000000000001/captures", seen, [201, received()]))
    await gateway().capture({ requestId: authorizeRequest.requestId, transactionId: "PSP0000000000001", remainingAmount: 650, currencyCode: "usd" })
    expect(seen[0].body.amount).toEqual({ value: 650, currency: "USD" })
    expect(seen[0].headers["idempotency-key"]).toBe(`capture:${authorizeRequest.requestId}`)
    expect(seen[0].headers["idempotency-key"]).not.toBe(adyenIdempotencyKey("authorize", authorizeRequest.requestId))
  })

  it("refuses a capture that names no amount nor remainder, before any request", async () => {
    await expect(gateway().capture({ requestId: "c", transactionId: "PSP0000000000001" })).rejects.toBeInstanceOf(GatewayError)
  })

  it("refunds by the payment's pspReference, not the capture's", async () => {
    const seen: Seen[] = []
    server.use(route("/payments/PSP0000000000001/refunds", seen, [201, received({ amount: { value: 300, currency: "KWD" } })]))
    const result = await gateway().refund({
      requestId: "REFUNDID00000000000000001",
      transactionId: "MODCAPTURE000001",
      paymentTransactionId: "PSP0000000000001",
      amount: 300,
      currencyCode: "kwd",
    })
    expect(seen[0].body).toEqual({ merchantAccount: MERCHANT, amount: { value: 300, currency: "KWD" }, reference: "REFUNDID00000000000000001" })
    expect(seen[0].headers["idempotency-key"]).toBe("refund:REFUNDID00000000000000001")
    expect(result).toMatchObject({ outcome: "approved", pending: true, transactionId: "MOD0000000000001" })
  })

  it("cancels an authorization (/cancels) and reverses a captured payment (/reversals)", async () => {
    const cancels: Seen[] = []
    const reversals: Seen[] = []
    server.use(
      route("/payments/PSP0000000000001/cancels", cancels, [201, received()]),
      route("/payments/PSP0000000000001/reversals", reversals, [201, received()])
    )
    await gateway().cancel({ requestId: "R1", transactionId: "PSP0000000000001", target: "authorization" })
    await gateway().cancel({ requestId: "R1", transactionId: "MODCAPTURE000001", paymentTransactionId: "PSP0000000000001", target: "capture" })
    expect(cancels[0]).toMatchObject({ body: { merchantAccount: MERCHANT, reference: "R1" }, headers: { "idempotency-key": "cancel:R1" } })
    expect(reversals[0]).toMatchObject({ body: { merchantAccount: MERCHANT, reference: "R1" }, headers: { "idempotency-key": "reversal:R1" } })
  })

  it("releases by reference with the standalone /cancels, naming the payment's own reference", async () => {
    const seen: Seen[] = []
    server.use(route("/cancels", seen, [201, { merchantAccount: MERCHANT, paymentReference: "ORDER1", pspReference: "TECH000000000001", status: "received" }]))
    const result = await gateway().releaseByReference({ requestId: "ORDER1", orderId: "ORDER1", target: "authorization" })
    expect(seen[0].body).toEqual({ merchantAccount: MERCHANT, paymentReference: "ORDER1", reference: "ORDER1" })
    expect(seen[0].headers["idempotency-key"]).toBe("release:ORDER1")
    expect(result).toMatchObject({ outcome: "approved", pending: true, transactionId: "TECH000000000001" })
  })

  it("repeats a call after a 500 or a lost answer with the same Idempotency-Key and body", async () => {
    const seen: Seen[] = []
    server.use(route("/payments", seen, [500, { status: 500, errorCode: "905", message: "Boom", errorType: "internal" }], [200, authorised]))
    const result = await gateway({}, { maxRetries: 2 }).authorize(authorizeRequest)
    expect(result.outcome).toBe("approved")
    expect(seen).toHaveLength(2)
    expect(seen[1].headers["idempotency-key"]).toBe(seen[0].headers["idempotency-key"])
    expect(seen[1].body).toEqual(seen[0].body)
  })

  it("waits and repeats while the key's first request is in flight (409 / 704)", async () => {
    const seen: Seen[] = []
    const inFlight = { status: 409, errorCode: "704", message: "request already processed or in progress", errorType: "validation" }
    server.use(route("/payments/PSP0000000000001/refunds", seen, [409, inFlight], [201, received()]))
    const result = await gateway().refund({ requestId: "R2", transactionId: "PSP0000000000001", amount: 1, currencyCode: "usd" })
    expect(result.pending).toBe(true)
    expect(seen.map((s) => s.headers["idempotency-key"])).toEqual(["refund:R2", "refund:R2"])
  })

  it("answers a 422 167 (an unknown payment) as a decline: transaction_not_found", async () => {
    const body = { status: 422, errorCode: "167", message: "Original pspReference required for this operation", errorType: "validation" }
    server.use(route("/payments/NOPE/captures", [], [422, body]))
    const result = await gateway().capture({ requestId: "c", transactionId: "NOPE", amount: 1, currencyCode: "usd" })
    expect(result).toMatchObject({ outcome: "declined", reason: "transaction_not_found", responseCode: "167" })
  })

  it("answers a 422 803 (a token the shopper does not have) as a decline: invalid_token", async () => {
    server.use(route("/payments", [], [422, { status: 422, errorCode: "803", message: "PaymentDetail not found", errorType: "validation" }]))
    await expect(gateway().authorize(authorizeRequest)).resolves.toMatchObject({ outcome: "declined", reason: "invalid_token" })
  })

  it.each([
    [401, { status: 401, errorCode: "000", message: "HTTP Status Response - Unauthorized", errorType: "security" }],
    [403, { status: 403, errorCode: "901", message: "Invalid Merchant Account", errorType: "security" }],
    [422, { status: 422, errorCode: "14_030", message: "Return URL is missing.", errorType: "validation" }],
  ])("throws a configuration error for a %i, naming Adyen's code and never a secret", async (status, body) => {
    server.use(route("/payments", [], [status, body]))
    const error = await gateway({ apiKey: undefined, user: "ws@Company.Shop", password: PASSWORD })
      .authorize(authorizeRequest)
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(GatewayConfigurationError)
    const text = `${(error as Error).message} ${JSON.stringify(error)} ${String((error as Error).stack)}`
    expect((error as GatewayConfigurationError).responseCode).toBe(body.errorCode)
    expect(text).toContain(body.errorCode)
    for (const secret of [PASSWORD, API_KEY, TOKEN, Buffer.from(`ws@Company.Shop:${PASSWORD}`).toString("base64")]) {
      expect(text).not.toContain(secret)
    }
  })

  it("lets a 500 that persists propagate as the HTTP core's error, without the key", async () => {
    server.use(route("/payments", [], [500, { status: 500, errorCode: "905", message: "Payment details are not supported", errorType: "configuration" }]))
    const error = await gateway().authorize(authorizeRequest).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toContain(API_KEY)
  })

  it("keeps every Idempotency-Key within Adyen's 64 characters, the operation's name first", () => {
    expect(adyenIdempotencyKey("reversal", "x".repeat(25))).toHaveLength(34)
    const long = adyenIdempotencyKey("refund", "y".repeat(200))
    expect(long.length).toBeLessThanOrEqual(64)
    expect(long.startsWith("refund:")).toBe(true)
    expect(adyenIdempotencyKey("refund", "y".repeat(200))).toBe(long)
  })

  it("lists the secrets for the provider's logs to scrub", () => {
    const config = adyenOptionsSchema.parse({
      type: "adyen",
      merchantAccount: MERCHANT,
      user: "ws@Company.Shop",
      password: PASSWORD,
      hmacKey: "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056",
    })
    expect(adyen.payment.secrets(config)).toEqual(expect.arrayContaining([PASSWORD, "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"]))
    expect(adyen.payment.urls(config)).toEqual({ checkoutUrl: "https://checkout-test.adyen.com/v71" })
  })

  it("keeps its credentials out of util.inspect and JSON.stringify (an ES private field)", () => {
    const { inspect } = jest.requireActual<typeof import("node:util")>("node:util")
    for (const options of [{}, { apiKey: undefined, user: "ws@Company.Shop", password: PASSWORD }]) {
      const built = gateway(options)
      const basic = Buffer.from(`ws@Company.Shop:${PASSWORD}`).toString("base64")
      for (const shown of [inspect(built, { depth: 5, showHidden: true }), JSON.stringify(built)]) {
        expect(shown).not.toContain(API_KEY)
        expect(shown).not.toContain(PASSWORD)
        expect(shown).not.toContain(basic)
      }
    }
  })

  it("takes the webhook's HMAC keys by the webhook's one rule (16 to 64 bytes, hex), and earlier keys for a rotation", () => {
    const parse = (options: Record<string, unknown>) =>
      adyenOptionsSchema.safeParse({ type: "adyen", merchantAccount: MERCHANT, apiKey: API_KEY, ...options })
    const KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
    expect(parse({ hmacKey: "AB" }).success).toBe(false)
    expect(parse({ hmacKey: "AB".repeat(15) }).success).toBe(false)
    expect(parse({ hmacKey: "AB".repeat(65) }).success).toBe(false)
    expect(parse({ hmacKey: "AB".repeat(16) }).success).toBe(true)
    expect(parse({ hmacKey: KEY, previousHmacKeys: ["AB".repeat(32)] }).success).toBe(true)
    expect(parse({ hmacKey: KEY, previousHmacKeys: ["ABC"] }).error?.issues[0]).toMatchObject({ path: ["previousHmacKeys", 0] })
    expect(parse({ previousHmacKeys: ["AB".repeat(32)] }).error?.issues[0]).toMatchObject({ path: ["hmacKey"] })
    const config = adyenOptionsSchema.parse({ type: "adyen", merchantAccount: MERCHANT, apiKey: API_KEY, hmacKey: KEY, previousHmacKeys: ["CD".repeat(32)] })
    expect(adyen.payment.secrets(config)).toEqual(expect.arrayContaining([KEY, "CD".repeat(32)]))
  })
})
