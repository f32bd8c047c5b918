import { appTestRunner } from "../helpers/app-runner"
import type { AxiosResponse } from "axios"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, submitTestForm, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore, SERVICESCAN_PROVIDER_ID } from "../helpers/store"
import { signUpCustomer, SignedInCustomer } from "../helpers/customer"

/**
 * Card testing (issue 25, package C), through the real app on real PostgreSQL against the real
 * sandbox, counted at the sandbox: completions with ServiceScan are limited per client address,
 * per cart, per signed-in customer and per card, a refusal is a 429 with Retry-After before the
 * service or the processor is called, and no answer tells the shopper why a card was declined.
 * Each attack was written first and seen to fail before the fix.
 *
 * The limits are the provider's defaults (medusa-config.ts sets none): 15 failed completions an
 * hour per client address, 5 per cart, 10 per customer, 5 declines of one card. The test app has
 * no Caching Module, so the counts live in the process (the fallback), which one app boot shares.
 * Each case acts as its own client through X-Forwarded-For: Medusa trusts one proxy hop, and the
 * test's requests come from loopback, so `req.ip` is the address each case names.
 */
reserveSandboxUrl()
jest.setTimeout(300_000)

const APPROVE = "4111111111111111"
const INSUFFICIENT_FUNDS = "4000000000009995"
const DO_NOT_HONOR = "4000000000000002"
const EXPIRED = "4000000000000069"
/** Its token registration fails (820): the exchange answers 402, so the processor is never asked. */
const UNTOKENIZABLE = "4457119999999996"

/** What a declined shopper must never be told: the card's own reason. */
const CARD_REASONS = /insufficient|security code|cvv|expired|limit/i

type Stats = Record<string, number>

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      store = await seedStore(getContainer())
    })

    afterAll(async () => {
      await sandbox?.close()
    })

    const stats = async (): Promise<Stats> => (await sandboxFetch<{ requests: Stats }>("/__sandbox/stats")).body.requests
    const exchanges = (s: Stats) => s["token.exchange"] ?? 0
    const processorCalls = (s: Stats) => s["cnp.online"] ?? 0
    const authorizations = async () =>
      (await sandboxFetch<{ count: number }>("/__sandbox/processor/transactions?type=authorization")).body.count

    /** The store API as one client: its address (through the trusted proxy hop) and, if signed in, its token. */
    const as = (ip: string, who: SignedInCustomer | null = null) => ({
      headers: { ...(who ? who.headers : store.storeHeaders).headers, "x-forwarded-for": ip },
      validateStatus: () => true,
    })

    async function newCart(ip: string, who: SignedInCustomer | null = null) {
      const cart = await api.post(
        "/store/carts",
        { region_id: store.regionId, items: [{ variant_id: store.variantId, quantity: 1 }], email: who?.email ?? "shopper@example.com" },
        as(ip, who)
      )
      expect(cart.status).toBe(200)
      const collection = await api.post("/store/payment-collections", { cart_id: cart.data.cart.id }, as(ip, who))
      expect(collection.status).toBe(200)
      return { cartId: cart.data.cart.id as string, paymentCollectionId: collection.data.payment_collection.id as string }
    }

    /** Types `card` into the hosted form and sends the form as the cart's session (replacing the one before). */
    async function sendCard(
      ip: string,
      cart: { cartId: string; paymentCollectionId: string },
      card: string,
      who: SignedInCustomer | null = null
    ): Promise<void> {
      const form = await submitTestForm({ number: card })
      const session = await api.post(
        `/store/payment-collections/${cart.paymentCollectionId}/payment-sessions`,
        { provider_id: SERVICESCAN_PROVIDER_ID, data: { form_id: form.formId, response_code: form.responseCode } },
        as(ip, who)
      )
      expect(session.status).toBe(200)
    }

    const complete = (ip: string, cart: { cartId: string }, who: SignedInCustomer | null = null) =>
      api.post(`/store/carts/${cart.cartId}/complete`, {}, as(ip, who))

    /** Types `card` into the hosted form, sends the form as the cart's session, completes the cart. */
    async function payWith(
      ip: string,
      cart: { cartId: string; paymentCollectionId: string },
      card: string,
      who: SignedInCustomer | null = null
    ): Promise<AxiosResponse> {
      await sendCard(ip, cart, card, who)
      return complete(ip, cart, who)
    }

    /** What the completion alone cost at the sandbox (a replaced session is looked up at the processor when it is sent). */
    async function completionCost(send: () => Promise<AxiosResponse>) {
      const before = await stats()
      const answer = await send()
      const after = await stats()
      return {
        answer,
        exchanges: exchanges(after) - exchanges(before),
        processorCalls: processorCalls(after) - processorCalls(before),
      }
    }

    /** What the shopper is shown: the cart error's message, or the refusal's. */
    const shown = (answer: AxiosResponse): string =>
      String(answer.data?.type === "cart" ? answer.data.error?.message : answer.data?.message ?? "")

    function expectRefusal(answer: AxiosResponse) {
      expect(answer.status).toBe(429)
      const retryAfter = Number(answer.headers["retry-after"])
      expect(Number.isInteger(retryAfter)).toBe(true)
      expect(retryAfter).toBeGreaterThan(0)
      expect(retryAfter).toBeLessThanOrEqual(3600)
      expect(answer.data.message).toMatch(/too many payment attempts.*try again in \d+ minutes?/i)
      expect(answer.data.message).not.toMatch(CARD_REASONS)
    }

    it("a shopper who mistypes twice, then uses a good card, pays; neither decline names the card's reason", async () => {
      const ip = "198.51.100.10"
      const cart = await newCart(ip)
      for (const card of [INSUFFICIENT_FUNDS, INSUFFICIENT_FUNDS]) {
        const declined = await payWith(ip, cart, card)
        expect(declined.status).toBe(200)
        expect(declined.data.type).toBe("cart")
        expect(shown(declined)).toMatch(/declined/i)
        expect(shown(declined)).not.toMatch(CARD_REASONS)
      }
      const paid = await payWith(ip, cart, APPROVE)
      expect(paid.status).toBe(200)
      expect(paid.data.type).toBe("order")
    })

    it("20 declining completions in a row from one client: 429 with Retry-After once the limit is hit, and the service is not called again", async () => {
      const ip = "203.0.113.20"
      const cards = [EXPIRED, UNTOKENIZABLE, UNTOKENIZABLE]
      const attempts: { answer: AxiosResponse; exchanges: number; processorCalls: number; authorizations: number }[] = []
      for (let i = 0; i < 20; i++) {
        // A new cart each time, as a card tester does: only the client's address ties them together.
        const cart = await newCart(ip)
        await sendCard(ip, cart, cards[i % cards.length])
        const cost = await completionCost(() => complete(ip, cart))
        attempts.push({ ...cost, authorizations: await authorizations() })
      }

      // Fifteen failures are allowed in the hour: the sixteenth attempt is the first refused.
      expect(attempts.findIndex(({ answer }) => answer.status === 429)).toBe(15)
      for (const { answer, exchanges } of attempts.slice(0, 15)) {
        expect(answer.status).toBe(200)
        expect(answer.data.type).toBe("cart")
        expect(exchanges).toBe(1)
      }
      for (const refused of attempts.slice(15)) {
        expectRefusal(refused.answer)
        // Nothing more reached the service or the processor: token exchanges and authorizations stop growing.
        expect(refused.exchanges).toBe(0)
        expect(refused.processorCalls).toBe(0)
        expect(refused.authorizations).toBe(attempts[14].authorizations)
      }
      // And no answer, refused or declined, named the card's reason.
      for (const { answer } of attempts) {
        expect(shown(answer)).not.toMatch(CARD_REASONS)
      }
    })

    it("the same card declined 5 times, from other clients and carts: the 6th is refused before the processor", async () => {
      const declined: AxiosResponse[] = []
      for (let i = 0; i < 5; i++) {
        declined.push(await payWith(`198.51.100.${30 + i}`, await newCart(`198.51.100.${30 + i}`), DO_NOT_HONOR))
      }
      for (const answer of declined) {
        expect(answer.data.type).toBe("cart")
        expect(shown(answer)).not.toMatch(CARD_REASONS)
      }

      const ip = "198.51.100.39"
      const cart = await newCart(ip)
      await sendCard(ip, cart, DO_NOT_HONOR)
      const refused = await completionCost(() => complete(ip, cart))
      expectRefusal(refused.answer)
      // A new form's card is known only once the service exchanged it: one exchange, no processor call.
      expect(refused.exchanges).toBe(1)
      expect(refused.processorCalls).toBe(0)

      // Another card from the same client and cart still pays.
      const paid = await payWith(ip, cart, APPROVE)
      expect(paid.data.type).toBe("order")
    })

    it("one cart failing 5 times: the 6th completion of that cart is refused before the service", async () => {
      const ip = "198.51.100.50"
      const cart = await newCart(ip)
      for (let i = 0; i < 5; i++) {
        // Each from another address: only the cart ties them together.
        const answer = await payWith(`198.51.100.${51 + i}`, cart, UNTOKENIZABLE)
        expect(answer.data.type).toBe("cart")
      }
      await sendCard(ip, cart, APPROVE)
      const refused = await completionCost(() => complete(ip, cart))
      expectRefusal(refused.answer)
      expect(refused.exchanges).toBe(0)
      expect(refused.processorCalls).toBe(0)

      // Another cart of the same client pays.
      expect((await payWith(ip, await newCart(ip), APPROVE)).data.type).toBe("order")
    })

    it("an outage is not held against the shopper: 6 completions of one cart while the service is down, then it pays", async () => {
      const ip = "198.51.100.70"
      const cart = await newCart(ip)
      try {
        for (let i = 0; i < 6; i++) {
          await sendCard(ip, cart, APPROVE)
          await sandboxFetch("/__sandbox/faults", { body: { errorRate: 1 } })
          const answer = await complete(ip, cart)
          await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
          expect(answer.status).toBe(200)
          expect(shown(answer)).toMatch(/could not reach the payment service/i)
        }
      } finally {
        await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
      }
      // More than the cart's 5 failures, but none said anything about a card: the cart still pays.
      const paid = await payWith(ip, cart, APPROVE)
      expect(paid.data.type).toBe("order")
    })

    it("one signed-in customer failing 10 times across carts and addresses: the 11th is refused before the service", async () => {
      const customer = await signUpCustomer(api, store, "tester@example.com")
      for (let i = 0; i < 10; i++) {
        const ip = `192.0.2.${10 + i}`
        const answer = await payWith(ip, await newCart(ip, customer), UNTOKENIZABLE, customer)
        expect(answer.data.type).toBe("cart")
      }
      const ip = "192.0.2.99"
      const cart = await newCart(ip, customer)
      await sendCard(ip, cart, APPROVE, customer)
      const refused = await completionCost(() => complete(ip, cart, customer))
      expectRefusal(refused.answer)
      expect(refused.exchanges).toBe(0)
      expect(refused.processorCalls).toBe(0)

      // A guest from that address is limited by address and cart only, and pays.
      const guest = await newCart(ip)
      expect((await payWith(ip, guest, APPROVE)).data.type).toBe("order")
    })
  },
})
