import { MedusaError } from "@medusajs/framework/utils"
import { startSandbox, type Sandbox } from "servicescan-sandbox"
import { ServiceScanPaymentError } from "../errors"
import { ServiceScanProviderService } from "../service"
import type { ServiceScanPaymentData, ServiceScanSessionData } from "../types"
import { createCapturingLogger, expectNoSecrets } from "./helpers"

/**
 * The whole provider against the sandbox over HTTP: token exchange and cnpAPI,
 * as Medusa's payment module calls it (idempotency keys included). The
 * medusaIntegrationTestRunner suite covers the same through the store API.
 */

const APPROVING = "4457119922390123"
const INSUFFICIENT_FUNDS = "4000000000009995"

let sandbox: Sandbox
let counter = 0

function ulidLike(prefix: string): string {
  const body = `0${String(Date.now()).padStart(13, "0")}${String(++counter).padStart(12, "0")}`
  return `${prefix}_${body.replace(/[ILOU]/g, "0")}`
}

/** Medusa's Captures by id, as the payment module's captureService answers the provider (amount in major units). */
const captures = new Map<string, string>()

function makeProvider(overrides: Record<string, unknown> = {}) {
  const logger = createCapturingLogger()
  const captureService = {
    retrieve: async (id: string) => {
      const amount = captures.get(id)
      if (amount === undefined) throw new Error(`Capture with id: ${id} was not found`)
      return { id, amount }
    },
  }
  const provider = new ServiceScanProviderService(
    { logger, captureService },
    {
      checkoutUrl: sandbox.url,
      clientScriptUrl: sandbox.clientScriptUrl,
      shareableKey: sandbox.demo.keys.shareable,
      paymentTokenApiKey: sandbox.demo.keys.paymentToken,
      timeoutMs: 2_000,
      maxRetries: 0,
      gateway: { type: "worldpay", ...sandbox.demo.processor },
      ...overrides,
    }
  )
  return { provider, logger }
}

const secrets = () => [sandbox.demo.keys.paymentToken, sandbox.demo.processor.password, "1111000276870123"]

async function stats(): Promise<Record<string, number>> {
  const response = await fetch(`${sandbox.url}/__sandbox/stats`)
  return ((await response.json()) as { requests: Record<string, number> }).requests
}

async function resetStats(): Promise<void> {
  await fetch(`${sandbox.url}/__sandbox/reset-stats`, { method: "POST" })
}

async function authorizations(id: string): Promise<Array<{ duplicate: boolean; amount: number }>> {
  const response = await fetch(`${sandbox.url}/__sandbox/processor/transactions?type=authorization&id=${id}`)
  return ((await response.json()) as { items: Array<{ duplicate: boolean; amount: number }> }).items
}

/** What the storefront does: render the form from the session, submit it, send the form id back. */
async function checkoutSession(
  provider: ServiceScanProviderService,
  card: string,
  money: { amount: number | string; currency_code: string } = { amount: 10.5, currency_code: "usd" }
) {
  const sessionId = ulidLike("payses")
  const first = await provider.initiatePayment({
    ...money,
    data: { session_id: sessionId },
    context: { idempotency_key: sessionId, customer: { id: "cus_sandbox_1", email: "s@example.com" } },
  })
  const rendered = first.data as ServiceScanSessionData
  const submitted = await fetch(`${sandbox.url}/api/v1/forms`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: "http://localhost:3000" },
    body: JSON.stringify({
      key: rendered.shareable_key,
      card: { number: card, cvv: "123", expiry: "12/30" },
      config: { id: rendered.form_config.id, customerId: rendered.form_config.customerId },
    }),
  })
  const { formId, responseCode } = (await submitted.json()) as { formId: string; responseCode: string }
  // Medusa replaces the session: a new session id, the form id in data.
  const nextSessionId = ulidLike("payses")
  const second = await provider.initiatePayment({
    ...money,
    data: { form_id: formId, response_code: responseCode, session_id: nextSessionId },
    context: { idempotency_key: nextSessionId },
  })
  return { sessionId: nextSessionId, data: second.data as ServiceScanSessionData, formId }
}

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, logger: false })
})

afterAll(async () => {
  await sandbox?.close()
})

describe("the provider against the sandbox", () => {
  it("authorizes with exactly two requests, then captures, refunds twice, and never leaks a secret", async () => {
    const { provider, logger } = makeProvider()
    const { sessionId, data, formId } = await checkoutSession(provider, APPROVING)
    expectNoSecrets(data, logger.text(), secrets())

    await resetStats()
    const authorized = await provider.authorizePayment({ data, context: { idempotency_key: sessionId } })
    const requests = await stats()
    expect(requests["token.exchange"]).toBe(1)
    expect(requests["cnp.online"]).toBe(1)

    const payment = authorized.data as ServiceScanPaymentData
    expect(authorized.status).toBe("authorized")
    expect(payment).toMatchObject({ scan_id: formId, form_id: formId, amount_minor: 1050, card: { last4: "0123" } })

    const captureId = ulidLike("capt")
    captures.set(captureId, payment.amount)
    const captured = await provider.capturePayment({ data: payment, context: { idempotency_key: captureId } })
    const refunded = await provider.refundPayment({
      data: captured.data,
      amount: 2,
      context: { idempotency_key: ulidLike("ref") },
    })
    const refundedTwice = await provider.refundPayment({
      data: refunded.data,
      amount: "3.5",
      context: { idempotency_key: ulidLike("ref") },
    })
    expect((refundedTwice.data as ServiceScanPaymentData).refunds.map((r) => r.amount_minor)).toEqual([200, 350])

    const { items } = (await (
      await fetch(`${sandbox.url}/__sandbox/processor/transactions?type=credit`)
    ).json()) as { items: Array<{ amount: number; originalCnpTxnId: string }> }
    const captureTxn = (captured.data as ServiceScanPaymentData).captures[0].cnp_txn_id
    expect(items.filter((i) => i.originalCnpTxnId === captureTxn).map((i) => i.amount)).toEqual([200, 350])

    expectNoSecrets([authorized, captured, refunded, refundedTwice], logger.text(), secrets())
  })

  it("charges a retried authorize once (cnpAPI duplicate detection on the session's request id)", async () => {
    const { provider } = makeProvider()
    const { sessionId, data } = await checkoutSession(provider, APPROVING, { amount: 1500, currency_code: "jpy" })
    const first = await provider.authorizePayment({ data, context: { idempotency_key: sessionId } })
    const second = await provider.authorizePayment({ data, context: { idempotency_key: sessionId } })
    const requestId = (first.data as ServiceScanPaymentData).request_id
    expect((second.data as ServiceScanPaymentData).cnp_txn_id).toBe(
      (first.data as ServiceScanPaymentData).cnp_txn_id
    )
    expect(await authorizations(requestId)).toEqual([
      expect.objectContaining({ duplicate: false, amount: 1500 }),
      expect.objectContaining({ duplicate: true }),
    ])
  })

  it("cancels an authorization (authReversal) and a sale (void)", async () => {
    const manual = makeProvider().provider
    const one = await checkoutSession(manual, APPROVING, { amount: "3.125", currency_code: "kwd" })
    const authorized = await manual.authorizePayment({ data: one.data, context: { idempotency_key: one.sessionId } })
    expect((authorized.data as ServiceScanPaymentData).amount_minor).toBe(3125)
    const canceled = await manual.cancelPayment({ data: authorized.data, context: {} })
    expect(canceled.data).toMatchObject({ status: "canceled", cancellation: { kind: "authorization" } })

    const automatic = makeProvider({ capture: "automatic" }).provider
    const two = await checkoutSession(automatic, APPROVING)
    const sold = await automatic.authorizePayment({ data: two.data, context: { idempotency_key: two.sessionId } })
    expect(sold.status).toBe("captured")
    const voided = await automatic.cancelPayment({ data: sold.data, context: {} })
    expect(voided.data).toMatchObject({ status: "canceled", cancellation: { kind: "capture" } })
  })

  describe("failures reach the shopper as PAYMENT_AUTHORIZATION_ERROR", () => {
    async function failure(data: Record<string, unknown>, sessionId: string, provider = makeProvider()) {
      const error = await provider.provider
        .authorizePayment({ data, context: { idempotency_key: sessionId } })
        .catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ServiceScanPaymentError)
      expect((error as MedusaError).type).toBe(MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR)
      expectNoSecrets(error, provider.logger.text(), secrets())
      return error as ServiceScanPaymentError
    }

    it("a declining card", async () => {
      const setup = makeProvider()
      const { sessionId, data } = await checkoutSession(setup.provider, INSUFFICIENT_FUNDS)
      const error = await failure(data, sessionId, setup)
      expect(error.message).toBe("Your card was declined. Please check your card details or use a different card.")
      expect(error.processorResponse).toEqual({ code: "110", message: "Insufficient Funds" })
    })

    it("an 871 form, without calling the service", async () => {
      const setup = makeProvider()
      const { sessionId, data } = await checkoutSession(setup.provider, "4457119922390124")
      expect(data.response_code).toBe("871")
      await resetStats()
      const error = await failure(data, sessionId, setup)
      expect(error.message).toBe(
        "The card details were not valid: the card number is invalid (871). Please check and try again."
      )
      expect((await stats())["token.exchange"]).toBe(0)
    })

    it("an 871 form whose code the storefront did not pass is refused by the service (422)", async () => {
      const setup = makeProvider()
      const { sessionId, data } = await checkoutSession(setup.provider, "4457119922390124")
      const { response_code: _dropped, ...withoutCode } = data
      const error = await failure(withoutCode, sessionId, setup)
      expect(error.message).toBe(
        "The card details were not valid: the card number is invalid (871). Please check and try again."
      )
    })

    it("an unknown form id", async () => {
      const setup = makeProvider()
      const { sessionId, data } = await checkoutSession(setup.provider, APPROVING)
      const error = await failure({ ...data, form_id: "0b7e6a39-3c1e-4d39-9a48-0f7c3c1a2b3c" }, sessionId, setup)
      expect(error.message).toBe("Your payment form expired. Please enter your card details again.")
    })

    it("a wrong payment-token key is reported as the merchant's configuration", async () => {
      const setup = makeProvider({ paymentTokenApiKey: "ptk_test_not_a_key" })
      const { sessionId, data } = await checkoutSession(setup.provider, APPROVING)
      const error = await failure(data, sessionId, setup)
      expect(error.category).toBe("configuration")
      expect(setup.logger.text()).not.toContain("ptk_test_not_a_key")
    })

    it("the service stopped mid-checkout", async () => {
      const own = await startSandbox({ port: 0, logger: false })
      const logger = createCapturingLogger()
      const provider = new ServiceScanProviderService(
        { logger },
        {
          checkoutUrl: own.url,
          clientScriptUrl: own.clientScriptUrl,
          shareableKey: own.demo.keys.shareable,
          paymentTokenApiKey: own.demo.keys.paymentToken,
          maxRetries: 0,
          gateway: { type: "worldpay", ...own.demo.processor },
        }
      )
      const sessionId = ulidLike("payses")
      const { data } = await provider.initiatePayment({
        amount: 10,
        currency_code: "usd",
        data: { form_id: "0b7e6a39-3c1e-4d39-9a48-0f7c3c1a2b3c", response_code: "870" },
        context: { idempotency_key: sessionId },
      })
      await own.close()
      const error = await provider
        .authorizePayment({ data, context: { idempotency_key: sessionId } })
        .catch((e: ServiceScanPaymentError) => e)
      expect(error).toMatchObject({
        type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
        message: "We could not reach the payment service. Please try again in a moment.",
        category: "unavailable",
      })
    })
  })
})
