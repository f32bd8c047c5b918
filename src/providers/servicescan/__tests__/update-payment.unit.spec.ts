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
import { listen } from "./msw"

// No handlers: updatePayment never calls the network.
const server = setupServer()
listen(server)

describe("updatePayment", () => {
  it("re-renders the session for a new amount and keeps the submitted form", async () => {
    const { provider, logger } = createProvider()
    const previous = await submittedSession(provider)
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
    })
    expectNoSecrets(result, logger.text())
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
