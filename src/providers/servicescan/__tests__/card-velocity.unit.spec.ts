import { createHash } from "node:crypto"
import { MemoryCachingProvider } from "@medusajs/caching/dist/providers/memory-cache"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { setupServer } from "msw/node"
import { ServiceScanPaymentError, TOO_MANY_ATTEMPTS } from "../errors"
import { SHOPPER_MESSAGES } from "../messages"
import { parseServiceScanOptions } from "../options"
import { ServiceScanProviderService } from "../service"
import { readVelocityOptions, VELOCITY_DEFAULTS } from "../velocity-options"
import type { ServiceScanAccountHolderData } from "../saved-cards"
import type { ServiceScanSessionData } from "../types"
import {
  baseOptions,
  CnpRequestRecord,
  cnpResponse,
  createCapturingLogger,
  createProvider,
  CUSTOMER_ID,
  expectNoSecrets,
  FORM_ID,
  logEntries,
  SECRETS,
  SESSION_ID,
  submittedSession,
} from "./helpers"
import { cnpHandler, exchangeHandler, listen } from "./msw"

/**
 * The per-card velocity limit (`velocity.perCard`, default 5 declines an hour):
 * declines are counted by the card's processor token, and a card over the
 * limit is refused before the processor call, after the exchange for a new
 * form and before any call for a saved card.
 */
const server = setupServer()
listen(server)

const SAVED_CARDS_SECRET = "saved-cards-SECRET-for-velocity-specs-42"
const declined = () => cnpResponse("authorization", { response: "110", message: "Insufficient Funds" })

function wire() {
  return { exchanges: [] as Request[], cnp: [] as CnpRequestRecord[] }
}

async function authorizeError(provider: ServiceScanProviderService, data?: ServiceScanSessionData) {
  return provider
    .authorizePayment({ data: data ?? (await submittedSession(provider)), context: { idempotency_key: SESSION_ID } })
    .then(
      () => {
        throw new Error("authorized")
      },
      (error: unknown) => error as ServiceScanPaymentError
    )
}

async function declineTimes(provider: ServiceScanProviderService, times: number) {
  for (let i = 0; i < times; i++) {
    const error = await authorizeError(provider)
    expect(error.message).toBe(SHOPPER_MESSAGES.declined)
  }
}

describe("the per-card velocity limit", () => {
  it("refuses a card declined 5 times before the processor call: one exchange, no authorization, a plain sentence", async () => {
    const { provider, logger } = createProvider()
    server.use(exchangeHandler([]), cnpHandler([], declined))
    await declineTimes(provider, 5)

    const { exchanges, cnp } = wire()
    server.resetHandlers(exchangeHandler(exchanges), cnpHandler(cnp, declined))
    const error = await authorizeError(provider)

    expect(exchanges).toHaveLength(1)
    expect(cnp).toHaveLength(0)
    expect(error).toBeInstanceOf(ServiceScanPaymentError)
    expect(error).toMatchObject({
      name: TOO_MANY_ATTEMPTS,
      type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
      category: "declined",
    })
    expect(error.message).toMatch(/^Too many payment attempts\. Please try again in (59|60) minutes\.$/)
    expect(error.message).not.toMatch(/insufficient|declined|card/i)
    const entry = logEntries(logger).at(-1)
    expect(entry).toMatchObject({ level: "info", event: "failed", category: "declined", stage: "processor" })
    expect(String(entry?.detail)).toMatch(/declined 5 times in 3600 s \(velocity\.perCard\); nothing was sent to worldpay/)
    expectNoSecrets(error, logger.text())
  })

  it("lets a card through while it is under the limit: two declines, then the good attempt is sent", async () => {
    const { provider } = createProvider()
    server.use(exchangeHandler([]), cnpHandler([], declined))
    await declineTimes(provider, 2)
    const { cnp } = wire()
    server.resetHandlers(exchangeHandler([]), cnpHandler(cnp))
    const result = await provider.authorizePayment({ data: await submittedSession(provider), context: { idempotency_key: SESSION_ID } })
    expect(result.status).toBe("authorized")
    expect(cnp).toHaveLength(1)
  })

  it("counts a replayed decline (a retried completion of one session) once, and never an outage", async () => {
    const { provider } = createProvider()
    server.use(exchangeHandler([]), cnpHandler([], declined))
    await declineTimes(provider, 4)
    server.resetHandlers(
      exchangeHandler([]),
      cnpHandler([], () => cnpResponse("authorization", { response: "110", message: "Insufficient Funds", duplicate: true }))
    )
    await declineTimes(provider, 3)
    server.resetHandlers(
      exchangeHandler([]),
      cnpHandler([], () => cnpResponse("authorization", { response: "101", message: "Issuer Unavailable" }))
    )
    for (let i = 0; i < 3; i++) {
      expect((await authorizeError(provider)).message).toBe(SHOPPER_MESSAGES.notProcessed)
    }
    // Still 4 declines counted: the next attempt reaches the processor.
    const { cnp } = wire()
    server.resetHandlers(exchangeHandler([]), cnpHandler(cnp, declined))
    await authorizeError(provider)
    expect(cnp).toHaveLength(1)
  })

  it("is off with velocity: false, or perCard: false", async () => {
    for (const velocity of [false, { perCard: false }] as const) {
      const { provider } = createProvider({ velocity })
      server.use(exchangeHandler([]), cnpHandler([], declined))
      await declineTimes(provider, 7)
      server.resetHandlers()
    }
  })

  it("follows a configured limit", async () => {
    const { provider } = createProvider({ velocity: { perCard: { max: 1, windowSeconds: 120 } } })
    server.use(exchangeHandler([]), cnpHandler([], declined))
    await declineTimes(provider, 1)
    const error = await authorizeError(provider)
    expect(error.name).toBe(TOO_MANY_ATTEMPTS)
    expect(error.message).toBe("Too many payment attempts. Please try again in 2 minutes.")
  })

  it("refuses a saved card over its limit before any call, counted with the declines of the same card typed into the form", async () => {
    const { provider } = createProvider({ savedCards: { secret: SAVED_CARDS_SECRET } })
    server.use(exchangeHandler([]), cnpHandler([], declined))
    // The same card (the same processor token) typed into the form, declined 5 times.
    await declineTimes(provider, 5)

    const created = await provider.createAccountHolder({ context: { customer: { id: CUSTOMER_ID, email: "s@example.com" } } })
    const saved = await provider.savePaymentMethod({
      data: { form_id: FORM_ID, card: { last4: "0123", type: "VI" }, payment_id: "pay_1" },
      context: { account_holder: { data: created.data ?? {} } },
    })
    const holder = { ...created.data, cards: [saved.data] } as ServiceScanAccountHolderData
    const { data: session } = await provider.initiatePayment({
      amount: 10.5,
      currency_code: "usd",
      data: { payment_method_id: saved.id, session_id: SESSION_ID },
      context: { idempotency_key: SESSION_ID, customer: { id: CUSTOMER_ID, email: "s@example.com" }, account_holder: { data: holder } },
    })

    const { exchanges, cnp } = wire()
    server.resetHandlers(exchangeHandler(exchanges), cnpHandler(cnp, declined))
    const error = await authorizeError(provider, session as ServiceScanSessionData)
    expect(error.name).toBe(TOO_MANY_ATTEMPTS)
    expect(exchanges).toHaveLength(0)
    expect(cnp).toHaveLength(0)
  })

  describe("where the declines are kept", () => {
    const hasher = (key: string) => createHash("sha1").update(key).digest("hex")
    const providerWith = (container: Record<string, unknown>) =>
      new ServiceScanProviderService({ logger: createCapturingLogger(), ...container }, baseOptions())

    it("two providers on one Caching Module (two processes of a store) count one card together", async () => {
      // The Caching Module forwards to its default provider; this is Medusa's in-memory one.
      const caching = new MemoryCachingProvider({ hasher })
      const first = providerWith({ [Modules.CACHING]: caching })
      const second = providerWith({ [Modules.CACHING]: caching })
      server.use(exchangeHandler([]), cnpHandler([], declined))
      await declineTimes(first, 3)
      await declineTimes(second, 2)
      expect((await authorizeError(first)).name).toBe(TOO_MANY_ATTEMPTS)
      expect((await authorizeError(second)).name).toBe(TOO_MANY_ATTEMPTS)
    })

    it("without a Caching Module each provider counts on its own (one process)", async () => {
      const first = providerWith({})
      const second = providerWith({})
      server.use(exchangeHandler([]), cnpHandler([], declined))
      await declineTimes(first, 5)
      expect((await authorizeError(first)).name).toBe(TOO_MANY_ATTEMPTS)
      expect((await authorizeError(second)).message).toBe(SHOPPER_MESSAGES.declined)
    })

    it("a Caching Module that fails lets the card through and warns the merchant, without secrets", async () => {
      const failing = {
        get: async () => Promise.reject(new Error("redis is down")),
        set: async () => Promise.reject(new Error("redis is down")),
        clear: async () => Promise.reject(new Error("redis is down")),
      }
      const logger = createCapturingLogger()
      const provider = new ServiceScanProviderService({ logger, [Modules.CACHING]: failing }, baseOptions())
      server.use(exchangeHandler([]), cnpHandler([], declined))
      await declineTimes(provider, 6)
      expect(logEntries(logger).filter((entry) => entry.event === "velocity_store_failed")).not.toHaveLength(0)
      expectNoSecrets({}, logger.text(), SECRETS)
    })
  })
})

describe("the velocity option", () => {
  it.each([
    [{ perIp: { max: 0, windowSeconds: 60 } }, "velocity.perIp.max: must be at least 1"],
    [{ perCard: { max: 3 } }, "velocity.perCard.windowSeconds"],
    [{ perCart: true }, "velocity.perCart: must be { max, windowSeconds } or false"],
    [{ perDay: { max: 1, windowSeconds: 60 } }, "velocity: has unsupported keys: perDay"],
    ["on", "velocity: must be { perIp?, perCart?, perCustomer?, perCard? } or false"],
  ])("refuses %p, naming the field", (velocity, message) => {
    expect(() => ServiceScanProviderService.validateOptions({ ...baseOptions(), velocity })).toThrow(message)
  })

  it("defaults the limits left out; false turns all of them off; the middleware reads the same", () => {
    expect(parseServiceScanOptions(baseOptions()).velocity).toEqual(VELOCITY_DEFAULTS)
    const perCard = { max: 2, windowSeconds: 60 }
    expect(parseServiceScanOptions(baseOptions({ velocity: { perIp: false, perCard } })).velocity).toEqual({
      ...VELOCITY_DEFAULTS,
      perIp: false,
      perCard,
    })
    const off = { perIp: false, perCart: false, perCustomer: false, perCard: false }
    expect(parseServiceScanOptions(baseOptions({ velocity: false })).velocity).toEqual(off)
    expect(readVelocityOptions(baseOptions({ velocity: false }))).toEqual(off)
    expect(readVelocityOptions(baseOptions({ velocity: { perIp: false, perCard } }))).toEqual({ ...VELOCITY_DEFAULTS, perIp: false, perCard })
    expect(readVelocityOptions(undefined)).toEqual(VELOCITY_DEFAULTS)
  })
})
