import { publicStoreBody } from "../public-session-data"

const FORM_ID = "0b7f9f3e-9c55-4d8e-8f1a-2f6f3c1d2e4a"
const SEALED = "v1.c2VhbGVkLXRva2VuLWJ5dGVz"
const FINGERPRINT = "fp_0123456789abcdefghijklmnopqrstu"

const sessionData = {
  client_script_url: "https://checkout.example/client.js",
  shareable_key: "pk_test",
  processor: "worldpay",
  form_config: { uiVersion: 2, showExplanation: false, showResult: false, id: "01J0000000000000000000000", customerId: "cus_1" },
  currency_code: "usd",
  amount: "10.5",
  form_id: FORM_ID,
  response_code: "870",
  session_id: "anything the storefront sent",
}
const savedCardData = {
  ...sessionData,
  form_id: undefined,
  payment_method_id: "sscard_0123456789012345678901",
  saved_card: { id: "sscard_0123456789012345678901", sealed_token: SEALED, fingerprint: FINGERPRINT, brand: "VI", last4: "4444", scan_id: FORM_ID, expires_at: "2026-01-01T00:00:00.000Z" },
}
const holder = {
  id: "acchld_1",
  provider_id: "pp_servicescan_servicescan",
  data: { customer_id: "cus_1", cards: [{ ...savedCardData.saved_card, payment_id: "pay_1", saved_at: "2025-12-01T00:00:00.000Z" }] },
}
const paymentData = {
  status: "authorized",
  scan_id: FORM_ID,
  form_id: FORM_ID,
  source: "form",
  token_fingerprint: FINGERPRINT,
  processor: "worldpay",
  gateway: "worldpay",
  capture_mode: "manual",
  currency_code: "usd",
  amount: "10.5",
  amount_minor: 1050,
  request_id: "01J0000000000000000000000",
  order_id: "01J0000000000000000000000",
  cnp_txn_id: "8300001",
  card: { last4: "4444", type: "MC" },
  processor_response: { code: "000", message: "Approved" },
  captures: [],
  refunds: [],
  authorized_at: "2026-01-01T00:00:00.000Z",
}

const secretsIn = (value: unknown) => {
  const text = JSON.stringify(value)
  return [FORM_ID, SEALED, FINGERPRINT].filter((secret) => text.includes(secret))
}

describe("what the store API shows of a ServiceScan session", () => {
  it("keeps what the widget renders the form from, and drops the form id and whatever else the storefront sent", () => {
    const body = { cart: { id: "cart_1", payment_collection: { payment_sessions: [{ id: "payses_1", provider_id: "pp_servicescan_servicescan", data: sessionData, context: { customer: { id: "cus_1" }, account_holder: holder } }] } } }
    const shown = publicStoreBody(body)
    const [session] = shown.cart.payment_collection.payment_sessions
    expect(session.data).toEqual({
      client_script_url: sessionData.client_script_url,
      shareable_key: "pk_test",
      processor: "worldpay",
      form_config: sessionData.form_config,
      currency_code: "usd",
      amount: "10.5",
    })
    expect(session.context).toEqual({})
    expect(secretsIn(shown)).toEqual([])
    // The stored rows, and whatever else shares them, are not touched.
    expect(body.cart.payment_collection.payment_sessions[0].data.form_id).toBe(FORM_ID)
  })

  it("shows a chosen saved card by id, brand and last four only", () => {
    const shown = publicStoreBody({ payment_sessions: [{ provider_id: "pp_servicescan_servicescan", data: savedCardData }] })
    expect(shown.payment_sessions[0].data).toMatchObject({
      payment_method_id: savedCardData.payment_method_id,
      saved_card: { id: savedCardData.saved_card.id, brand: "VI", last4: "4444" },
    })
    expect(Object.keys(shown.payment_sessions[0].data.saved_card)).toEqual(["id", "brand", "last4"])
    expect(secretsIn(shown)).toEqual([])
  })

  it("recognises this provider's data by its shape when the fields asked for left provider_id out", () => {
    const shown = publicStoreBody({
      order: {
        payment_collections: [
          { payment_sessions: [{ data: savedCardData }, { context: { account_holder: holder } }], payments: [{ data: paymentData }] },
        ],
      },
    })
    const [collection] = shown.order.payment_collections
    expect(collection.payments[0].data).toEqual({ status: "authorized", source: "form", card: { last4: "4444", type: "MC" }, currency_code: "usd", amount: "10.5", capture_mode: "manual" })
    expect(collection.payment_sessions[1].context.account_holder.data).toEqual({
      customer_id: "cus_1",
      cards: [{ id: savedCardData.saved_card.id, brand: "VI", last4: "4444", saved_at: "2025-12-01T00:00:00.000Z" }],
    })
    expect(secretsIn(shown)).toEqual([])
  })

  it("leaves other providers' sessions and unrelated answers as they are, by reference", () => {
    const stripe = { provider_id: "pp_stripe_stripe", data: { client_secret: "pi_secret_x", form_id: "theirs" }, context: { customer: { id: "cus_1" } } }
    const body = { cart: { payment_collection: { payment_sessions: [stripe] } }, products: [{ id: "prod_1", metadata: { data: { a: 1 } } }] }
    expect(publicStoreBody(body)).toBe(body)
    expect(publicStoreBody("text")).toBe("text")
    expect(publicStoreBody(null)).toBeNull()
  })

  it("empties data of this provider in a shape it never writes", () => {
    const shown = publicStoreBody({ provider_id: "pp_servicescan_servicescan", data: { form_id: FORM_ID } })
    expect(shown.data).toEqual({})
  })
})

describe("walking the answer", () => {
  it("still reaches sessions under a key named data or context of something that is not a session", () => {
    const shown = publicStoreBody({
      items: [{ provider_id: "pp_servicescan_servicescan", data: sessionData }],
      data: { payment_sessions: [{ provider_id: "pp_servicescan_servicescan", data: sessionData }] },
      context: { account_holder: holder },
    })
    expect(secretsIn(shown)).toEqual([])
  })
})
