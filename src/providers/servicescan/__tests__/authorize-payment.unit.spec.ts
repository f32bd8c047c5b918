import { MedusaError } from "@medusajs/framework/utils"
import { delay, http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { ServiceScanPaymentError } from "../errors"
import { SHOPPER_MESSAGES } from "../messages"
import type { GatewayResult, ProcessorGateway } from "../../../processors/types"
import {
  authorizedPayment,
  CHECKOUT_URL,
  CNP_PASSWORD,
  CNP_URL,
  CNP_USER,
  CnpRequestRecord,
  cnpQueryResponse,
  cnpResponse,
  createProvider,
  CUSTOMER_ID,
  expectNoSecrets,
  FORM_ID,
  logEntries,
  MERCHANT_ID,
  parseCnpRequest,
  PAYMENT_TOKEN_KEY,
  SESSION_ID,
  SESSION_REQUEST_ID,
  submittedSession,
  TOKEN,
} from "./helpers"
import { cnpHandler, exchangeHandler, listen } from "./msw"

const server = setupServer()
listen(server)

function wire() {
  const exchanges: Request[] = []
  const cnp: CnpRequestRecord[] = []
  return { exchanges, cnp }
}

describe("authorizePayment", () => {
  it("exchanges the form id once, authorizes the token once, and stores what later steps need", async () => {
    const { exchanges, cnp } = wire()
    server.use(
      exchangeHandler(exchanges),
      cnpHandler(cnp, (request) =>
        cnpResponse("authorization", {
          id: String(request.txn["@_id"]),
          cnpTxnId: "840000000000000001",
          orderId: SESSION_REQUEST_ID,
          authCode: "123456",
        })
      )
    )
    const { provider, logger } = createProvider({ formConfig: { reportGroup: "Web Shop" } })
    const session = await provider.initiatePayment({
      amount: 10.5,
      currency_code: "usd",
      data: { form_id: FORM_ID, response_code: "870", session_id: SESSION_ID },
      context: { idempotency_key: SESSION_ID, customer: { id: CUSTOMER_ID, email: "s@example.com" } },
    })

    const result = await provider.authorizePayment({
      data: session.data,
      context: { idempotency_key: SESSION_ID },
    })

    // The exchange: one GET to the documented path, with the payment-token key.
    expect(exchanges).toHaveLength(1)
    expect(exchanges[0].method).toBe("GET")
    expect(new URL(exchanges[0].url).pathname).toBe(`/api/v1/worldpay/form/${FORM_ID}`)
    expect(exchanges[0].url.startsWith(CHECKOUT_URL)).toBe(true)
    expect(exchanges[0].headers.get("x-api-key")).toBe(PAYMENT_TOKEN_KEY)

    // The processor: one cnpAPI authorization with the token, in minor units.
    expect(cnp).toHaveLength(1)
    const [request] = cnp
    expect(request.headers.get("content-type")).toMatch(/^text\/xml/)
    expect(request.headers.get("x-api-key")).toBeNull()
    expect(request.root["@_xmlns"]).toBe("http://www.vantivcnp.com/schema")
    expect(request.root["@_merchantId"]).toBe(MERCHANT_ID)
    expect(request.root["@_version"]).toMatch(/^12\.\d+$/)
    expect(request.root.authentication).toEqual({ user: CNP_USER, password: CNP_PASSWORD })
    expect(request.type).toBe("authorization")
    expect(request.txn).toEqual({
      "@_id": SESSION_REQUEST_ID,
      "@_reportGroup": "Default Report Group",
      "@_customerId": CUSTOMER_ID,
      orderId: SESSION_REQUEST_ID,
      amount: "1050",
      orderSource: "ecommerce",
      token: { cnpToken: TOKEN },
    })
    // Element order is part of the cnpAPI schema.
    expect(request.raw).toMatch(/<orderId>.*<\/orderId><amount>.*<\/amount><orderSource>.*<\/orderSource><token>/)

    expect(result.status).toBe("authorized")
    expect(result.data).toEqual({
      status: "authorized",
      scan_id: FORM_ID,
      form_id: FORM_ID,
      source: "form",
      // Who paid: the save workflow and saved-card evidence read it.
      customer_id: CUSTOMER_ID,
      processor: "worldpay",
      gateway: "worldpay",
      capture_mode: "manual",
      currency_code: "usd",
      amount: "10.5",
      amount_minor: 1050,
      request_id: SESSION_REQUEST_ID,
      order_id: SESSION_REQUEST_ID,
      cnp_txn_id: "840000000000000001",
      auth_code: "123456",
      card: { last4: "0123", type: null },
      processor_response: { code: "000", message: "Approved" },
      captures: [],
      refunds: [],
      authorized_at: expect.any(String),
    })
    expectNoSecrets(result, logger.text())
  })

  it.each([
    ["jpy", 1500, "1500"],
    ["usd", "10.50", "1050"],
    ["kwd", "3.125", "3125"],
    ["usd", "10.8875", "1089"],
  ])("sends %s %s as %s minor units", async (currency, amount, minor) => {
    const { cnp } = wire()
    server.use(exchangeHandler([]), cnpHandler(cnp))
    const { provider } = createProvider()
    const data = await submittedSession(provider, { amount, currency_code: currency })
    const result = await provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
    expect(cnp[0].txn.amount).toBe(minor)
    expect(result.data?.amount_minor).toBe(Number(minor))
  })

  it("charges with cnpAPI sale when capture is automatic, and reports the payment captured", async () => {
    const { cnp } = wire()
    server.use(
      exchangeHandler([]),
      cnpHandler(cnp, (request) => cnpResponse("sale", { id: String(request.txn["@_id"]), cnpTxnId: "5550001" }))
    )
    const { provider } = createProvider({ capture: "automatic" })
    const data = await submittedSession(provider)
    const result = await provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
    expect(cnp.map((r) => r.type)).toEqual(["sale"])
    expect(result.status).toBe("captured")
    expect(result.data).toMatchObject({
      status: "captured",
      capture_mode: "automatic",
      cnp_txn_id: "5550001",
      captures: [{ cnp_txn_id: "5550001", amount_minor: 1050, request_id: SESSION_REQUEST_ID }],
    })
  })

  it("returns a stored authorization without calling anything", async () => {
    const { provider } = createProvider()
    const payment = authorizedPayment()
    const result = await provider.authorizePayment({ data: payment, context: { idempotency_key: SESSION_ID } })
    expect(result).toEqual({ status: "authorized", data: payment })
  })

  it("sends the same request id on a retry, so cnpAPI answers with the original authorization", async () => {
    const { cnp } = wire()
    let seen = 0
    server.use(
      exchangeHandler([]),
      cnpHandler(cnp, (request) =>
        request.type === "queryTransaction"
          ? cnpQueryResponse([])
          : cnpResponse("authorization", {
              id: String(request.txn["@_id"]),
              cnpTxnId: "840000000000000001",
              duplicate: seen++ > 0,
            })
      )
    )
    const { provider, logger } = createProvider()
    const data = await submittedSession(provider)
    const first = await provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
    const second = await provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
    const authorizations = cnp.filter((r) => r.type === "authorization")
    expect(authorizations.map((r) => r.txn["@_id"])).toEqual([SESSION_REQUEST_ID, SESSION_REQUEST_ID])
    expect(authorizations.map((r) => r.txn.orderId)).toEqual([SESSION_REQUEST_ID, SESSION_REQUEST_ID])
    // The duplicate approval is checked against the processor's records of a release (none here).
    expect(cnp.map((r) => r.type)).toEqual(["authorization", "authorization", "queryTransaction"])
    expect(second.data?.cnp_txn_id).toBe(first.data?.cnp_txn_id)
    expect(logEntries(logger)).toEqual([
      expect.objectContaining({ level: "info", event: "duplicate_approval", request_id: SESSION_REQUEST_ID }),
    ])
  })

  it("retries a timed-out authorization with the same id (idempotent POST)", async () => {
    const { cnp } = wire()
    let attempts = 0
    server.use(
      exchangeHandler([]),
      http.post(CNP_URL, async ({ request }) => {
        const record = parseCnpRequest(await request.text(), request.headers)
        cnp.push(record)
        if (record.type === "queryTransaction") {
          return new HttpResponse(cnpQueryResponse([]), { headers: { "content-type": "text/xml" } })
        }
        if (attempts++ === 0) {
          await delay(500)
        }
        return new HttpResponse(cnpResponse("authorization", { duplicate: attempts > 1 }), {
          headers: { "content-type": "text/xml" },
        })
      })
    )
    const { provider } = createProvider({ timeoutMs: 100, maxRetries: 1 })
    const data = await submittedSession(provider)
    const result = await provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
    expect(result.status).toBe("authorized")
    const authorizations = cnp.filter((r) => r.type === "authorization")
    expect(authorizations).toHaveLength(2)
    expect(authorizations[0].txn["@_id"]).toBe(authorizations[1].txn["@_id"])
  })

  describe("failures give the shopper a plain message and keep the raw code for the merchant", () => {
    async function authorizeExpectingError(
      handlers: Parameters<typeof server.use>,
      session: { response_code?: string } = {},
      overrides: Parameters<typeof createProvider>[0] = {},
      type: string = MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR
    ) {
      server.use(...handlers)
      const { provider, logger } = createProvider(overrides)
      const data = await submittedSession(provider, session)
      const error = await provider
        .authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
        .then(
          () => {
            throw new Error("authorize should have failed")
          },
          (e: unknown) => e
        )
      expect(error).toBeInstanceOf(ServiceScanPaymentError)
      expect(MedusaError.isMedusaError(error)).toBe(true)
      expect((error as MedusaError).type).toBe(type)
      expectNoSecrets({ message: (error as Error).message, error }, logger.text())
      const entries = logEntries(logger)
      expect(entries).toHaveLength(1)
      return { error: error as ServiceScanPaymentError, entry: entries[0] }
    }

    it.each([
      // Every reason about the card gets one sentence (no oracle for card testers); the code stays the merchant's.
      ["110", "Insufficient Funds", SHOPPER_MESSAGES.declined],
      ["305", "Expired Card", SHOPPER_MESSAGES.declined],
      ["349", "Do Not Honor", SHOPPER_MESSAGES.declined],
      ["120", "Call Issuer", SHOPPER_MESSAGES.declined],
      ["301", "Invalid Account Number", SHOPPER_MESSAGES.declined],
      ["822", "Token was not found", "We could not use your card details. Please enter your card details again."],
      ["999", "Something new", SHOPPER_MESSAGES.declined],
    ])("decline %s", async (code, message, shopperMessage) => {
      const { error, entry } = await authorizeExpectingError([
        exchangeHandler([]),
        cnpHandler([], () => cnpResponse("authorization", { response: code, message })),
      ])
      expect(error.message).toBe(shopperMessage)
      expect(error.processorResponse).toEqual({ code, message })
      expect(error.category).toBe("declined")
      expect(entry).toMatchObject({
        level: "info",
        operation: "authorize",
        event: "failed",
        category: "declined",
        processor_code: code,
        processor_message: message,
        request_id: SESSION_REQUEST_ID,
        form_id: FORM_ID,
      })
    })

    it("a partial approval is a decline, and its hold is released", async () => {
      const cnp: CnpRequestRecord[] = []
      server.use(
        exchangeHandler([]),
        cnpHandler(cnp, (request) =>
          request.type === "authorization"
            ? cnpResponse("authorization", { response: "010", message: "Partially Approved", cnpTxnId: "777" })
            : cnpResponse("authReversal", { cnpTxnId: "778" })
        )
      )
      const { provider } = createProvider()
      const data = await submittedSession(provider)
      await expect(
        provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
      ).rejects.toMatchObject({
        message: SHOPPER_MESSAGES.declined,
      })
      expect(cnp.map((r) => [r.type, r.txn.cnpTxnId])).toEqual([
        ["authorization", undefined],
        ["authReversal", "777"],
      ])
    })

    it("an invalid form (871) fails before any network call", async () => {
      const { error, entry } = await authorizeExpectingError([], { response_code: "871" })
      expect(error.message).toBe(
        "The card details were not valid: the card number is invalid (871). Please check and try again."
      )
      expect(error.processorResponse?.code).toBe("871")
      expect(entry).toMatchObject({ stage: "form", processor_code: "871" })
    })

    it.each([
      [404, { error: "Form not found" }],
      [410, { error: "Form expired" }],
    ])("an unknown or expired form (%i)", async (status, body) => {
      const { error, entry } = await authorizeExpectingError([
        exchangeHandler([], () => HttpResponse.json(body, { status })),
      ])
      expect(error.message).toBe("Your payment form expired. Please enter your card details again.")
      expect(error.category).toBe("form_expired")
      expect(entry).toMatchObject({ stage: "exchange", level: "info" })
    })

    it("a form the service says failed validation (422 with responseCode)", async () => {
      const { error } = await authorizeExpectingError([
        exchangeHandler([], () =>
          HttpResponse.json({ error: "Form failed validation", responseCode: "886" }, { status: 422 })
        ),
      ])
      expect(error.message).toBe(
        "The card details were not valid: the expiration date is invalid (886). Please check and try again."
      )
    })

    it("a card the processor refused to tokenize (402)", async () => {
      const { error } = await authorizeExpectingError([
        exchangeHandler([], () =>
          HttpResponse.json(
            { error: "Tokenization failed", processorResponse: "820", processorMessage: "Credit card number was invalid" },
            { status: 402 }
          )
        ),
      ])
      // Whether a card number is real is what a card tester wants to know: the generic decline.
      expect(error.message).toBe(SHOPPER_MESSAGES.declined)
      expect(error.processorResponse).toEqual({ code: "820", message: "Credit card number was invalid" })
    })

    it("a service outage", async () => {
      const { error, entry } = await authorizeExpectingError([
        exchangeHandler([], () => new HttpResponse("upstream down", { status: 503 })),
      ])
      expect(error.message).toBe("We could not reach the payment service. Please try again in a moment.")
      expect(entry).toMatchObject({ category: "unavailable", level: "warn" })
    })

    it("an exchange that times out", async () => {
      const { error } = await authorizeExpectingError(
        [
          exchangeHandler([], async () => {
            await delay(1_000)
            return HttpResponse.json({ token: TOKEN })
          }),
        ],
        {},
        { timeoutMs: 100 }
      )
      expect(error.message).toBe("We could not reach the payment service. Please try again in a moment.")
      expect(error.detail).toMatch(/timed out after 100 ms/)
    })

    it("a refused payment-token key is the merchant's configuration, not the shopper's card", async () => {
      const { error, entry } = await authorizeExpectingError([
        exchangeHandler([], () => new HttpResponse("Invalid API key provided", { status: 403 })),
      ])
      expect(error.category).toBe("configuration")
      expect(error.message).toBe(
        "We could not process your payment right now. Please try again later or choose another payment method."
      )
      expect(entry).toMatchObject({ level: "error", stage: "exchange" })
      expect(String(entry.detail)).toMatch(/paymentTokenApiKey/)
    })

    it("cnpAPI refusing the envelope (response=1) is a configuration error, not a decline", async () => {
      const { error, entry } = await authorizeExpectingError([
        exchangeHandler([]),
        cnpHandler([], () =>
          cnpResponse("authorization", {}, { response: "1", message: "Authentication failed" })
        ),
      ])
      expect(error.category).toBe("configuration")
      expect(error.processorResponse).toEqual({ code: "1", message: "Authentication failed" })
      expect(entry).toMatchObject({ level: "error", stage: "processor", processor_code: "1" })
    })

    it("an unreadable processor answer: the processor may have authorized, so not settled (409)", async () => {
      const { error } = await authorizeExpectingError(
        [exchangeHandler([]), cnpHandler([], () => "<html>gateway error</html>")],
        {},
        {},
        MedusaError.Types.CONFLICT
      )
      expect(error.category).toBe("protocol")
      expect(error.outcomeUnknown).toBe(true)
    })

    it("a session without a submitted form", async () => {
      const { provider } = createProvider()
      const { data } = await provider.initiatePayment({
        amount: 10,
        currency_code: "usd",
        data: {},
        context: { idempotency_key: SESSION_ID },
      })
      await expect(
        provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
      ).rejects.toMatchObject({
        type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
        message: "Please enter your card details before placing the order.",
      })
    })

    it("scrubs secrets even when a custom gateway puts them in its error", async () => {
      server.use(exchangeHandler([]))
      const leaky: ProcessorGateway = {
        name: "leaky",
        authorize: async (request) => {
          throw new Error(`cannot charge token ${request.token} with key ${PAYMENT_TOKEN_KEY}`)
        },
        sale: async () => {
          throw new Error("unused")
        },
        capture: async () => {
          throw new Error("unused")
        },
        refund: async () => {
          throw new Error("unused")
        },
        cancel: async () => {
          throw new Error("unused")
        },
      }
      const { provider, logger } = createProvider({ gateway: leaky })
      const data = await submittedSession(provider)
      const error = await provider
        .authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
        .catch((e: ServiceScanPaymentError) => e)
      expect(error).toBeInstanceOf(ServiceScanPaymentError)
      expect((error as ServiceScanPaymentError).detail).toContain("[redacted]")
      expectNoSecrets(error, logger.text())
      expect(logger.text()).toContain("[redacted]")
    })
  })

  it("works with a store owner's own gateway", async () => {
    const calls: unknown[] = []
    const approved: GatewayResult = {
      outcome: "approved",
      transactionId: "own-1",
      responseCode: "OK",
      message: "fine",
      card: { last4: "4242", type: "VISA" },
    }
    const own: ProcessorGateway = {
      name: "acme",
      authorize: async (request) => {
        calls.push(request)
        return approved
      },
      sale: async () => approved,
      capture: async () => approved,
      refund: async () => approved,
      cancel: async () => approved,
    }
    server.use(exchangeHandler([]))
    const { provider } = createProvider({ gateway: own })
    const data = await submittedSession(provider, { amount: "3.125", currency_code: "kwd" })
    const result = await provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
    expect(calls).toEqual([
      {
        requestId: SESSION_REQUEST_ID,
        orderId: SESSION_REQUEST_ID,
        amount: 3125,
        currencyCode: "kwd",
        token: TOKEN,
        customerId: undefined,
        // The form whose card the token is: Adyen's shopper reference for a guest.
        formId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      },
    ])
    expect(result.data).toMatchObject({ gateway: "acme", cnp_txn_id: "own-1", card: { last4: "4242", type: "VISA" } })
  })
})
