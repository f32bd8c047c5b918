import { setupServer } from "msw/node"
import { ServiceScanPaymentError } from "../errors"
import { CHECKOUT_TRUST_REFUSALS } from "../messages"
import { parseServiceScanOptions } from "../options"
import type { ServiceScanAccountHolderData } from "../saved-cards"
import type { ServiceScanSessionData } from "../types"
import { CnpRequestRecord, createProvider, CUSTOMER_ID, FORM_ID, SESSION_ID } from "./helpers"
import { cnpHandler, exchangeHandler, listen } from "./msw"

/**
 * A session that names a saved card is a charge authority: it pays for a
 * bounded time after the card was chosen (`savedCards.sessionLifetimeMs`), and
 * never after, whoever completes it. What goes over the wire when it is late:
 * nothing.
 */
const server = setupServer()
listen(server)

const SECRET = "saved-cards-SECRET-for-lifetime-specs-4242"
const customer = { id: CUSTOMER_ID, email: "shopper@example.com" }
const MINUTE = 60_000

async function savedCardSession(lifetimeMs?: number) {
  const { provider, logger } = createProvider({ savedCards: { secret: SECRET, ...(lifetimeMs ? { sessionLifetimeMs: lifetimeMs } : {}) } })
  server.use(exchangeHandler([]))
  const created = await provider.createAccountHolder({ context: { customer } })
  const saved = await provider.savePaymentMethod({
    data: { form_id: FORM_ID, card: { last4: "0123", type: "VI" }, payment_id: "pay_1" },
    context: { account_holder: { data: created.data ?? {} } },
  })
  const holder = (await provider.updateAccountHolder({
    context: { account_holder: { data: { ...created.data, cards: [saved.data] } } },
  })).data as ServiceScanAccountHolderData
  server.resetHandlers()
  const before = Date.now()
  const { data } = await provider.initiatePayment({
    amount: 10.5,
    currency_code: "usd",
    data: { payment_method_id: saved.id, session_id: SESSION_ID },
    context: { idempotency_key: SESSION_ID, customer, account_holder: { data: holder } },
  })
  return { provider, logger, session: data as ServiceScanSessionData, before, after: Date.now() }
}

describe("the lifetime of a saved-card session", () => {
  it("ends 30 minutes after the card was chosen by default, or after the configured lifetime", async () => {
    const byDefault = await savedCardSession()
    const deadline = Date.parse(byDefault.session.saved_card?.expires_at ?? "")
    expect(deadline).toBeGreaterThanOrEqual(byDefault.before + 30 * MINUTE)
    expect(deadline).toBeLessThanOrEqual(byDefault.after + 30 * MINUTE)

    const short = await savedCardSession(2 * MINUTE)
    expect(Date.parse(short.session.saved_card?.expires_at ?? "")).toBeLessThanOrEqual(short.after + 2 * MINUTE)
  })

  it("is not renewed when Medusa re-renders the session for a new amount", async () => {
    const { provider, session } = await savedCardSession()
    const updated = await provider.updatePayment({
      amount: 21,
      currency_code: "usd",
      data: { ...session },
      context: { idempotency_key: SESSION_ID, customer },
    })
    expect((updated.data as ServiceScanSessionData).saved_card?.expires_at).toBe(session.saved_card?.expires_at)
  })

  it.each([
    ["past its deadline", (session: ServiceScanSessionData) => ({ ...session, saved_card: { ...session.saved_card!, expires_at: new Date(Date.now() - 1000).toISOString() } })],
    ["without a deadline (made before sessions had one)", (session: ServiceScanSessionData) => {
      const { expires_at: _dropped, ...card } = session.saved_card!
      return { ...session, saved_card: card }
    }],
  ])("refuses a session %s with the shopper's words, and sends nothing", async (_case, age) => {
    const { provider, session } = await savedCardSession()
    const exchanges: Request[] = []
    const cnp: CnpRequestRecord[] = []
    server.use(exchangeHandler(exchanges), cnpHandler(cnp))

    const attempt = provider.authorizePayment({ data: age(session), context: { idempotency_key: SESSION_ID } })

    await expect(attempt).rejects.toBeInstanceOf(ServiceScanPaymentError)
    await expect(attempt).rejects.toThrow(CHECKOUT_TRUST_REFUSALS.savedCardChooseAgain)
    expect(exchanges).toHaveLength(0)
    expect(cnp).toHaveLength(0)
  })

  it("is an option with bounds, named when wrong", () => {
    const base = {
      checkoutUrl: "https://checkout.example",
      clientScriptUrl: "https://checkout.example/client.js",
      shareableKey: "pk",
      paymentTokenApiKey: "ptk",
      gateway: { type: "worldpay", url: "https://cnp.example/online", merchantId: "m", user: "u", password: "p" },
    }
    expect(parseServiceScanOptions({ ...base, savedCards: { secret: SECRET } }).savedCards?.sessionLifetimeMs).toBe(30 * MINUTE)
    expect(() => parseServiceScanOptions({ ...base, savedCards: { secret: SECRET, sessionLifetimeMs: 1000 } })).toThrow(
      /savedCards\.sessionLifetimeMs: must be at least 60000 ms/
    )
    expect(() => parseServiceScanOptions({ ...base, savedCards: { secret: SECRET, sessionLifetimeMs: "30m" } })).toThrow(
      /savedCards\.sessionLifetimeMs: must be a number of milliseconds/
    )
  })
})
