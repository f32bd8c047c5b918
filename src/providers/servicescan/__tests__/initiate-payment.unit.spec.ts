import { MedusaError } from "@medusajs/framework/utils"
import { setupServer } from "msw/node"
import {
  CLIENT_SCRIPT_URL,
  createProvider,
  CUSTOMER_ID,
  expectNoSecrets,
  FORM_ID,
  SESSION_ID,
  SESSION_REQUEST_ID,
  SHAREABLE_KEY,
} from "./helpers"
import { listen } from "./msw"

// No handlers: initiatePayment must not touch the network at all.
const server = setupServer()
listen(server)

describe("initiatePayment", () => {
  it("renders exactly what the storefront widget needs, with no network call", async () => {
    const { provider, logger } = createProvider({ formConfig: { reportGroup: "Web Shop" } })

    const result = await provider.initiatePayment({
      amount: 10.5,
      currency_code: "usd",
      data: { session_id: SESSION_ID },
      context: {
        idempotency_key: SESSION_ID,
        customer: { id: CUSTOMER_ID, email: "shopper@example.com" },
      },
    })

    expect(result.id).toBe(SESSION_ID)
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
        reportGroup: "Web Shop",
      },
      currency_code: "usd",
      amount: "10.5",
    })
    expect((result.data?.form_config as { id: string }).id.length).toBeLessThanOrEqual(25)
    expectNoSecrets(result, logger.text())
  })

  it("omits customerId for guests and reportGroup when none is configured", async () => {
    const { provider } = createProvider()
    const { data } = await provider.initiatePayment({
      amount: 1500,
      currency_code: "JPY",
      data: { session_id: SESSION_ID },
      context: { idempotency_key: SESSION_ID },
    })
    expect(data?.form_config).toEqual({
      uiVersion: 2,
      showExplanation: false,
      showResult: false,
      id: SESSION_REQUEST_ID,
    })
    expect(data?.currency_code).toBe("jpy")
  })

  it("derives a short form id from any idempotency key, deterministically", async () => {
    const { provider } = createProvider()
    const render = (key: string) =>
      provider.initiatePayment({
        amount: 1,
        currency_code: "usd",
        data: {},
        context: { idempotency_key: key },
      })
    const long = "a-custom-idempotency-key-that-is-much-longer-than-25"
    const first = await render(long)
    const second = await render(long)
    const id = (first.data?.form_config as { id: string }).id
    expect(id).toHaveLength(25)
    expect((second.data?.form_config as { id: string }).id).toBe(id)
  })

  it("accepts the submitted form sent back by the storefront", async () => {
    const { provider } = createProvider()
    const { data } = await provider.initiatePayment({
      amount: "3.125",
      currency_code: "kwd",
      data: { form_id: FORM_ID.toUpperCase(), response_code: "870", session_id: SESSION_ID },
      context: { idempotency_key: SESSION_ID },
    })
    expect(data).toMatchObject({ form_id: FORM_ID, response_code: "870", amount: "3.125" })
  })

  it("keeps a failed validation code for authorize to explain", async () => {
    const { provider } = createProvider()
    const { data } = await provider.initiatePayment({
      amount: 10,
      currency_code: "usd",
      data: { form_id: FORM_ID, response_code: "871" },
      context: { idempotency_key: SESSION_ID },
    })
    expect(data).toMatchObject({ form_id: FORM_ID, response_code: "871" })
  })

  it.each([
    [{ form_id: "not-a-uuid" }, "data.form_id must be the form id returned by the form client's getId() (a UUID)"],
    [{ form_id: 42 }, "data.form_id must be a string: the form id returned by the form client's getId()"],
    [{ form_id: FORM_ID, response_code: "87O" }, "data.response_code must be a string of digits"],
    [{ form_id: FORM_ID, response_code: 870 }, "data.response_code must be a string of digits"],
  ])("rejects invalid storefront data %j with a message naming the field", async (data, message) => {
    const { provider } = createProvider()
    const attempt = provider.initiatePayment({
      amount: 10,
      currency_code: "usd",
      data,
      context: { idempotency_key: SESSION_ID },
    })
    await expect(attempt).rejects.toMatchObject({
      type: MedusaError.Types.INVALID_DATA,
      message: expect.stringContaining(message),
    })
  })

  it.each(["status", "cnp_txn_id", "scan_id", "captures"])(
    "refuses the server-only key %s, so a crafted request cannot fake an authorization",
    async (key) => {
      const { provider } = createProvider()
      await expect(
        provider.initiatePayment({
          amount: 10,
          currency_code: "usd",
          data: { form_id: FORM_ID, response_code: "870", [key]: "authorized" },
          context: { idempotency_key: SESSION_ID },
        })
      ).rejects.toMatchObject({
        type: MedusaError.Types.INVALID_DATA,
        message: expect.stringContaining(`data.${key} is set by the server`),
      })
    }
  )

  it("rounds sub-cent cart totals the way Medusa does, and rejects negative amounts", async () => {
    const { provider } = createProvider()
    const { data } = await provider.initiatePayment({
      amount: "10.8875",
      currency_code: "usd",
      data: {},
      context: { idempotency_key: SESSION_ID },
    })
    expect(data?.amount).toBe("10.8875")
    await expect(
      provider.initiatePayment({ amount: -1, currency_code: "usd", data: {}, context: {} })
    ).rejects.toMatchObject({ type: MedusaError.Types.INVALID_DATA })
  })
})
