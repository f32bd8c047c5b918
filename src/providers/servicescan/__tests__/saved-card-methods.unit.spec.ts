import { MedusaError } from "@medusajs/framework/utils"
import { HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { ServiceScanPaymentError } from "../errors"
import {
  deriveSavedCardKeys,
  MAX_SAVED_CARDS,
  readAccountHolderData,
  savedCardIdFor,
  sealToken,
  ServiceScanAccountHolderData,
  tokenFingerprint,
} from "../saved-cards"
import type { ServiceScanPaymentData, ServiceScanSessionData } from "../types"
import {
  CnpRequestRecord,
  cnpQueryResponse,
  cnpResponse,
  createProvider,
  CUSTOMER_ID,
  expectNoSecrets,
  FORM_ID,
  SECRETS,
  SESSION_ID,
  SESSION_REQUEST_ID,
  TOKEN,
} from "./helpers"
import { cnpHandler, exchangeHandler, listen } from "./msw"

/**
 * The account-holder and payment-method methods, and paying with a saved
 * card: what goes over the wire (one processor call, no exchange), what the
 * session and the payment keep, and what they never keep (the token).
 */
const server = setupServer()
listen(server)

const SAVED_CARDS_SECRET = "saved-cards-SECRET-for-provider-specs-42"
const ALL_SECRETS = [...SECRETS, SAVED_CARDS_SECRET]
const OTHER_CUSTOMER = "cus_01JB8XKQ7YV2M3N4P5Q6R7S8BB"
const customer = (id = CUSTOMER_ID) => ({ id, email: `${id}@example.com` })

function savedCardsProvider() {
  return createProvider({ savedCards: { secret: SAVED_CARDS_SECRET } })
}

function wire() {
  const exchanges: Request[] = []
  const cnp: CnpRequestRecord[] = []
  return { exchanges, cnp }
}

/** An account holder as Medusa keeps it after createAccountHolder and a saved card. */
async function holderWithCard(provider: ReturnType<typeof savedCardsProvider>["provider"], customerId = CUSTOMER_ID) {
  const { exchanges } = wire()
  server.use(exchangeHandler(exchanges))
  const created = await provider.createAccountHolder({ context: { customer: customer(customerId) } })
  const saved = await provider.savePaymentMethod({
    data: { form_id: FORM_ID, card: { last4: "0123", type: "VI" }, payment_id: "pay_1" },
    context: { account_holder: { data: created.data ?? {} } },
  })
  const updated = await provider.updateAccountHolder({
    context: {
      account_holder: {
        data: { ...created.data, cards: [...((created.data?.cards as unknown[]) ?? []), saved.data] },
      },
    },
  })
  server.resetHandlers()
  return { cardId: saved.id, data: updated.data as ServiceScanAccountHolderData }
}

describe("account holders", () => {
  it("createAccountHolder names the Medusa customer and starts with no cards, without any call", async () => {
    const { provider } = savedCardsProvider()
    const result = await provider.createAccountHolder({ context: { customer: customer() } })
    expect(result).toEqual({ id: CUSTOMER_ID, data: { customer_id: CUSTOMER_ID, cards: [] } })
  })

  it("createAccountHolder answers an existing record as it is", async () => {
    const { provider } = savedCardsProvider()
    const { data } = await holderWithCard(provider)
    const result = await provider.createAccountHolder({ context: { customer: customer(), account_holder: { data } } })
    expect(result).toEqual({ id: CUSTOMER_ID, data })
  })

  it("updateAccountHolder refuses data that is not a customer record, naming the field", async () => {
    const { provider } = savedCardsProvider()
    await expect(provider.updateAccountHolder({ context: { account_holder: { data: { cards: "x" } } } })).rejects.toThrow(
      /customer_id/
    )
  })

  it("updateAccountHolder drops a card copied from another customer's record", async () => {
    const { provider, logger } = savedCardsProvider()
    const { data: theirs } = await holderWithCard(provider, OTHER_CUSTOMER)
    const mine = await provider.createAccountHolder({ context: { customer: customer() } })
    const result = await provider.updateAccountHolder({
      context: { account_holder: { data: { ...mine.data, cards: theirs.cards } } },
    })
    expect(readAccountHolderData(result.data)?.cards).toEqual([])
    expect(logger.text()).toMatch(/saved_cards_dropped/)
  })

  it("deleteAccountHolder has nothing to remove at the processor", async () => {
    const { provider } = savedCardsProvider()
    const { exchanges, cnp } = wire()
    server.use(exchangeHandler(exchanges), cnpHandler(cnp))
    const { data } = await holderWithCard(provider)
    server.use(exchangeHandler(exchanges), cnpHandler(cnp))
    await expect(provider.deleteAccountHolder({ context: { account_holder: { data } } })).resolves.toEqual({})
    expect(cnp).toHaveLength(0)
  })
})

describe("savePaymentMethod", () => {
  it("exchanges the form id once, makes no processor call, and answers the card with its token sealed", async () => {
    const { provider, logger } = savedCardsProvider()
    const { exchanges, cnp } = wire()
    server.use(exchangeHandler(exchanges), cnpHandler(cnp))
    const holder = await provider.createAccountHolder({ context: { customer: customer() } })
    const keys = deriveSavedCardKeys(SAVED_CARDS_SECRET)

    const saved = await provider.savePaymentMethod({
      data: {
        form_id: FORM_ID,
        token_fingerprint: tokenFingerprint(keys, TOKEN),
        card: { last4: "0123", type: "VI" },
        payment_id: "pay_1",
      },
      context: { account_holder: { data: holder.data ?? {} } },
    })

    expect(exchanges).toHaveLength(1)
    expect(new URL(exchanges[0].url).pathname).toBe(`/api/v1/worldpay/form/${FORM_ID}`)
    expect(cnp).toHaveLength(0)
    expect(saved.id).toMatch(/^sscard_/)
    expect(saved.data).toEqual(
      expect.objectContaining({
        id: saved.id,
        brand: "VI",
        last4: "0123",
        scan_id: FORM_ID,
        payment_id: "pay_1",
        fingerprint: tokenFingerprint(keys, TOKEN),
        sealed_token: expect.stringMatching(/^k1\.default\./),
      })
    )
    expectNoSecrets(saved, logger.text(), ALL_SECRETS)
  })

  it("answers the card already saved when the same token is saved again", async () => {
    const { provider } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    server.use(exchangeHandler([]))
    const again = await provider.savePaymentMethod({
      data: { form_id: "9d8c7b6a-5f4e-4d3c-8b2a-1a0b9c8d7e6f" },
      context: { account_holder: { data } },
    })
    expect(again.id).toBe(cardId)
    expect(again.data).toEqual(data.cards[0])
  })

  it("refuses a form whose token is not the one the payment was made with", async () => {
    const { provider, logger } = savedCardsProvider()
    server.use(exchangeHandler([], () => HttpResponse.json({ token: "1111000276879999" })))
    const holder = await provider.createAccountHolder({ context: { customer: customer() } })
    await expect(
      provider.savePaymentMethod({
        data: { form_id: FORM_ID, token_fingerprint: tokenFingerprint(deriveSavedCardKeys(SAVED_CARDS_SECRET), TOKEN) },
        context: { account_holder: { data: holder.data ?? {} } },
      })
    ).rejects.toThrow(/not the one the payment was made with/)
    expect(logger.text()).not.toContain("1111000276879999")
  })

  it("reports an exchange the service refuses (an expired form) as an error, with no card", async () => {
    const { provider } = savedCardsProvider()
    server.use(exchangeHandler([], () => HttpResponse.json({ error: "Form expired" }, { status: 410 })))
    const holder = await provider.createAccountHolder({ context: { customer: customer() } })
    await expect(
      provider.savePaymentMethod({ data: { form_id: FORM_ID }, context: { account_holder: { data: holder.data ?? {} } } })
    ).rejects.toBeInstanceOf(ServiceScanPaymentError)
  })

  it("is refused when saved cards are off, and without an account holder", async () => {
    const { provider } = createProvider()
    await expect(provider.savePaymentMethod({ data: { form_id: FORM_ID }, context: {} })).rejects.toThrow(
      /not enabled/
    )
    const { provider: enabled } = savedCardsProvider()
    await expect(enabled.savePaymentMethod({ data: { form_id: FORM_ID }, context: {} })).rejects.toThrow(/account holder/)
  })
})

describe("listPaymentMethods", () => {
  it("lists brand and last four, never the token, its seal or its fingerprint", async () => {
    const { provider } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    const methods = await provider.listPaymentMethods({ context: { account_holder: { data } } })
    expect(methods).toEqual([{ id: cardId, data: { brand: "Visa", last4: "0123", saved_at: expect.any(String) } }])
    const text = JSON.stringify(methods)
    expect(text).not.toContain(TOKEN)
    expect(text).not.toContain(data.cards[0].sealed_token)
    expect(text).not.toContain(data.cards[0].fingerprint)
  })

  it("leaves out cards sealed under another secret, and lists nothing when saved cards are off", async () => {
    const { provider } = savedCardsProvider()
    const { data } = await holderWithCard(provider)
    const { provider: rotated } = createProvider({ savedCards: { secret: `${SAVED_CARDS_SECRET}-rotated` } })
    expect(await rotated.listPaymentMethods({ context: { account_holder: { data } } })).toEqual([])
    const { provider: off } = createProvider()
    expect(await off.listPaymentMethods({ context: { account_holder: { data } } })).toEqual([])
  })

  it(`keeps at most ${MAX_SAVED_CARDS} cards through updateAccountHolder, and only cards whose id is the customer's`, async () => {
    const { provider } = savedCardsProvider()
    const keys = deriveSavedCardKeys(SAVED_CARDS_SECRET)
    const { data } = await holderWithCard(provider)
    const cards = Array.from({ length: MAX_SAVED_CARDS + 3 }, (_, i) => {
      const token = `11110002768${String(80000 + i)}`
      const fingerprint = tokenFingerprint(keys, token)
      const id = savedCardIdFor(keys, CUSTOMER_ID, fingerprint)
      const saved_at = `2026-02-${String(i + 1).padStart(2, "0")}T00:00:00.000Z`
      return { ...data.cards[0], id, fingerprint, saved_at, sealed_token: sealToken(keys, token, { customerId: CUSTOMER_ID, cardId: id }) }
    })
    const result = await provider.updateAccountHolder({ context: { account_holder: { data: { ...data, cards } } } })
    const kept = readAccountHolderData(result.data)?.cards ?? []
    expect(kept).toHaveLength(MAX_SAVED_CARDS)
    expect(kept.map((card) => card.id)).toEqual(cards.slice(3).map((card) => card.id))

    // A sealed token moved under an id that is not derived from this customer and token is not kept.
    const renamed = { ...cards[0], id: "sscard_AAAAAAAAAAAAAAAAAAAAAA" }
    const forged = await provider.updateAccountHolder({ context: { account_holder: { data: { ...data, cards: [renamed] } } } })
    expect(readAccountHolderData(forged.data)?.cards).toEqual([])
  })
})

describe("paying with a saved card", () => {
  async function savedCardSession(
    provider: ReturnType<typeof savedCardsProvider>["provider"],
    holder: ServiceScanAccountHolderData,
    cardId: string,
    customerId = CUSTOMER_ID
  ): Promise<ServiceScanSessionData> {
    const { data } = await provider.initiatePayment({
      amount: 10.5,
      currency_code: "usd",
      data: { payment_method_id: cardId, session_id: SESSION_ID },
      context: { idempotency_key: SESSION_ID, customer: customer(customerId), account_holder: { data: holder } },
    })
    return data as ServiceScanSessionData
  }

  it("puts the card in the session with its token sealed, never the token itself", async () => {
    const { provider, logger } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    const session = await savedCardSession(provider, data, cardId)
    expect(session.payment_method_id).toBe(cardId)
    expect(session.form_id).toBeUndefined()
    expect(session.form_config.customerId).toBe(CUSTOMER_ID)
    expect(session.saved_card).toEqual(
      expect.objectContaining({ id: cardId, brand: "VI", last4: "0123", scan_id: FORM_ID, sealed_token: expect.any(String) })
    )
    expectNoSecrets(session, logger.text(), ALL_SECRETS)
  })

  it("authorizes the token with exactly one processor call and no exchange", async () => {
    const { provider, logger } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    const session = await savedCardSession(provider, data, cardId)
    const { exchanges, cnp } = wire()
    server.use(
      exchangeHandler(exchanges),
      cnpHandler(cnp, (request) =>
        cnpResponse("authorization", { id: String(request.txn["@_id"]), cnpTxnId: "840000000000000077", orderId: SESSION_REQUEST_ID })
      )
    )

    const result = await provider.authorizePayment({ data: session, context: { idempotency_key: SESSION_ID } })

    expect(exchanges).toHaveLength(0)
    expect(cnp).toHaveLength(1)
    expect(cnp[0].type).toBe("authorization")
    expect(cnp[0].txn["@_id"]).toBe(SESSION_REQUEST_ID)
    expect(cnp[0].txn["@_customerId"]).toBe(CUSTOMER_ID)
    expect(cnp[0].txn.token).toEqual({ cnpToken: TOKEN })
    const payment = result.data as ServiceScanPaymentData
    expect(result.status).toBe("authorized")
    expect(payment).toEqual(
      expect.objectContaining({
        source: "saved_card",
        scan_id: null,
        form_id: null,
        saved_card: { id: cardId, scan_id: FORM_ID },
        token_fingerprint: data.cards[0].fingerprint,
        customer_id: CUSTOMER_ID,
        cnp_txn_id: "840000000000000077",
        card: { last4: "0123", type: "VI" },
      })
    )
    expect(payment.save_card).toBeUndefined()
    expectNoSecrets(result, logger.text(), ALL_SECRETS)
  })

  it("tells the shopper an expired saved card has expired", async () => {
    const { provider, logger } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    const session = await savedCardSession(provider, data, cardId)
    server.use(cnpHandler([], () => cnpResponse("authorization", { response: "305", message: "Expired Card" })))
    const error = await provider
      .authorizePayment({ data: session, context: { idempotency_key: SESSION_ID } })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServiceScanPaymentError)
    expect((error as ServiceScanPaymentError).type).toBe(MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR)
    expect((error as ServiceScanPaymentError).message).toBe(
      "This saved card has expired. Please enter your card details or choose another card."
    )
    expect((error as ServiceScanPaymentError).processorResponse).toEqual({ code: "305", message: "Expired Card" })
    expectNoSecrets(error, logger.text(), ALL_SECRETS)
  })

  it("tells the shopper a token the processor no longer knows cannot be used", async () => {
    const { provider } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    const session = await savedCardSession(provider, data, cardId)
    server.use(cnpHandler([], () => cnpResponse("authorization", { response: "822", message: "Token was not found" })))
    await expect(provider.authorizePayment({ data: session, context: { idempotency_key: SESSION_ID } })).rejects.toThrow(
      "This saved card can no longer be used. Please enter your card details or choose another card."
    )
  })

  it("refuses another customer's card at session creation, with no call", async () => {
    const { provider } = savedCardsProvider()
    const { cardId } = await holderWithCard(provider, OTHER_CUSTOMER)
    const { data: mine } = await holderWithCard(provider)
    const { exchanges, cnp } = wire()
    server.use(exchangeHandler(exchanges), cnpHandler(cnp))
    const error = await savedCardSession(provider, mine, cardId).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MedusaError)
    expect((error as MedusaError).type).toBe(MedusaError.Types.NOT_ALLOWED)
    expect((error as MedusaError).message).toBe(
      "This saved card is not on your account. Choose one of your saved cards or enter your card details."
    )
    expect(exchanges).toHaveLength(0)
    expect(cnp).toHaveLength(0)
  })

  it("never opens a sealed card for another customer's session, and sends nothing", async () => {
    const { provider } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    const session = await savedCardSession(provider, data, cardId)
    const { exchanges, cnp } = wire()
    server.use(exchangeHandler(exchanges), cnpHandler(cnp))
    const forged = { ...session, form_config: { ...session.form_config, customerId: OTHER_CUSTOMER } }
    await expect(provider.authorizePayment({ data: forged, context: { idempotency_key: SESSION_ID } })).rejects.toThrow(
      "We could not use your saved card. Please choose it again or enter your card details."
    )
    expect(exchanges).toHaveLength(0)
    expect(cnp).toHaveLength(0)
  })

  it("refuses saved cards to a guest, when they are off, and with a form at the same time", async () => {
    const { provider } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    const initiate = (input: Record<string, unknown>, withCustomer = true, p = provider) =>
      p.initiatePayment({
        amount: 10,
        currency_code: "usd",
        data: { session_id: SESSION_ID, ...input },
        context: { idempotency_key: SESSION_ID, ...(withCustomer ? { customer: customer(), account_holder: { data } } : {}) },
      })
    await expect(initiate({ payment_method_id: cardId }, false)).rejects.toThrow("Sign in to pay with a saved card")
    await expect(initiate({ form_id: FORM_ID, save_card: true }, false)).rejects.toThrow("Sign in to save your card")
    await expect(initiate({ payment_method_id: cardId, form_id: FORM_ID })).rejects.toThrow(/either form_id .* or payment_method_id/)
    await expect(initiate({ payment_method_id: cardId, save_card: true })).rejects.toThrow(/already saved/)
    await expect(initiate({ payment_method_id: "sscard_nope" })).rejects.toThrow(/payment_method_id must be the id of a saved card/)
    await expect(initiate({ saved_card: data.cards[0] })).rejects.toThrow(/data.saved_card is set by the server/)
    const { provider: off } = createProvider()
    await expect(initiate({ payment_method_id: cardId }, true, off)).rejects.toThrow(/not enabled/)
    await expect(initiate({ form_id: FORM_ID, save_card: true }, true, off)).rejects.toThrow(/not enabled/)
  })

  it("records that the shopper asked to save the form's card, with the token's fingerprint", async () => {
    const { provider, logger } = savedCardsProvider()
    const { data: session } = await provider.initiatePayment({
      amount: 10.5,
      currency_code: "usd",
      data: { form_id: FORM_ID, response_code: "870", save_card: true, session_id: SESSION_ID },
      context: { idempotency_key: SESSION_ID, customer: customer() },
    })
    expect(session?.save_card).toBe(true)
    const { exchanges, cnp } = wire()
    server.use(exchangeHandler(exchanges), cnpHandler(cnp))
    const result = await provider.authorizePayment({ data: session, context: { idempotency_key: SESSION_ID } })
    expect(exchanges).toHaveLength(1)
    expect(cnp).toHaveLength(1)
    expect(result.data).toEqual(
      expect.objectContaining({
        source: "form",
        scan_id: FORM_ID,
        save_card: true,
        customer_id: CUSTOMER_ID,
        token_fingerprint: tokenFingerprint(deriveSavedCardKeys(SAVED_CARDS_SECRET), TOKEN),
      })
    )
    expectNoSecrets(result, logger.text(), ALL_SECRETS)
  })

  it("releases a lost authorization of an abandoned saved-card session (deletePayment asks the processor)", async () => {
    const { provider } = savedCardsProvider()
    const { cardId, data } = await holderWithCard(provider)
    const session = await savedCardSession(provider, data, cardId)
    const { cnp } = wire()
    server.use(
      cnpHandler(cnp, (request) =>
        request.type === "queryTransaction"
          ? request.txn.origActionType === "A"
            ? cnpQueryResponse([{ type: "authorization", cnpTxnId: "840000000000000055" }])
            : cnpQueryResponse([])
          : cnpResponse(request.type, { id: String(request.txn["@_id"]) })
      )
    )
    await provider.deletePayment({ data: session })
    expect(cnp.map((request) => request.type)).toEqual(["queryTransaction", "queryTransaction", "authReversal"])
    expect(cnp[2].txn["@_id"]).toBe(SESSION_REQUEST_ID)
  })
})
