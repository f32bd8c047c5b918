import { MedusaError } from "@medusajs/framework/utils"
import { setupServer } from "msw/node"
import {
  authorizedPayment,
  CLIENT_SCRIPT_URL,
  createProvider,
  CUSTOMER_ID,
  expectNoSecrets,
  FORM_ID,
  SESSION_ID,
  SESSION_REQUEST_ID,
  SHAREABLE_KEY,
  submittedSession,
} from "./helpers"
import { exchangeHandler, listen } from "./msw"

// No handlers unless a spec adds one: updatePayment calls only the exchange, for a form whose token it lacks.
const server = setupServer()
listen(server)

describe("updatePayment", () => {
  it("re-renders the session for a new amount and keeps the submitted form and its sealed token, with no call", async () => {
    const exchanges: Request[] = []
    server.use(exchangeHandler(exchanges))
    const { provider, logger } = createProvider()
    const previous = await submittedSession(provider)
    expect(previous.form_token).toEqual(expect.any(String))
    expect(exchanges).toHaveLength(1)
    // Medusa's updatePaymentSession passes the caller's data and no idempotency key.
    const result = await provider.updatePayment({
      data: previous,
      amount: 1500,
      currency_code: "jpy",
      context: { customer: { id: CUSTOMER_ID, email: "s@example.com" } },
    })
    expect(result.status).toBe("pending")
    expect(result.data).toEqual({
      client_script_url: CLIENT_SCRIPT_URL,
      shareable_key: SHAREABLE_KEY,
      processor: "worldpay",
      form_config: {
        uiVersion: 2,
        showExplanation: false,
        showResult: false,
        id: SESSION_REQUEST_ID,
        customerId: CUSTOMER_ID,
      },
      currency_code: "jpy",
      amount: "1500",
      form_id: FORM_ID,
      response_code: "870",
      form_token: previous.form_token,
    })
    expect(exchanges).toHaveLength(1)
    expectNoSecrets(result, logger.text())
  })

  it("exchanges the form of a session that lacks its token, and replaces a token sealed for another form", async () => {
    const exchanges: Request[] = []
    server.use(exchangeHandler(exchanges))
    const { provider } = createProvider()
    const submitted = await submittedSession(provider)
    const foreign = await submittedSession(provider, { form_id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d" })
    exchanges.length = 0
    const { form_token: _dropped, ...withoutToken } = submitted
    for (const data of [withoutToken, { ...submitted, form_token: foreign.form_token }]) {
      const result = await provider.updatePayment({ data, amount: 12, currency_code: "usd", context: {} })
      expect(result.data?.form_token).toEqual(expect.any(String))
      expect(result.data?.form_token).not.toBe(foreign.form_token)
    }
    expect(exchanges.map((request) => new URL(request.url).pathname)).toEqual([
      `/api/v1/worldpay/form/${FORM_ID}`,
      `/api/v1/worldpay/form/${FORM_ID}`,
    ])
  })

  it("derives the form id from the session id when Medusa passes it", async () => {
    const { provider } = createProvider()
    const result = await provider.updatePayment({
      data: { session_id: SESSION_ID },
      amount: 5,
      currency_code: "usd",
      context: {},
    })
    expect(result.data?.form_config).toMatchObject({ id: SESSION_REQUEST_ID })
  })

  it("leaves an authorized payment untouched", async () => {
    const { provider } = createProvider()
    const data = authorizedPayment()
    await expect(
      provider.updatePayment({ data, amount: 99, currency_code: "usd", context: {} })
    ).resolves.toEqual({ data, status: "authorized" })
  })

  it("validates the form fields like initiatePayment", async () => {
    const { provider } = createProvider()
    await expect(
      provider.updatePayment({ data: { form_id: "nope" }, amount: 5, currency_code: "usd", context: {} })
    ).rejects.toMatchObject({ type: MedusaError.Types.INVALID_DATA, message: expect.stringContaining("data.form_id") })
  })
})
