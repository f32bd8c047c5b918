import { appTestRunner } from "../helpers/app-runner"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import type { AxiosResponse } from "axios"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, submitTestForm, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore, SERVICESCAN_PROVIDER_ID } from "../helpers/store"
import { signUpCustomer, SignedInCustomer } from "../helpers/customer"
import { completeCartWorkflow, createPaymentSessionsWorkflow } from "@medusajs/medusa/core-flows"
import { CHECKOUT_TRUST_REFUSALS } from "../../src/providers/servicescan/messages"

/**
 * A leaked id buys nothing (issue 25, package B), through the real app on real PostgreSQL against
 * the real sandbox, counted at the sandbox: a form id pays only in the checkout it was first sent
 * into, a saved card pays only for its owner in the owner's session and for a bounded time, and
 * the store API never shows a form id, a sealed token, a fingerprint or a token to whoever holds a
 * cart id. Each attack was written first and seen to fail before the fix.
 */
reserveSandboxUrl()
jest.setTimeout(180_000)

const CARD = "5555555555554444"
const OWNER_CARD = "378282246310005"
const PASSWORD = "correct horse battery staple"

type Stats = Record<string, number>
type Transaction = { type: string; id: string; token: string | null; response: string }
type SavedCard = { id: string; brand: string | null; last4: string | null }
const ADDRESS = { first_name: "Mallory", last_name: "Drop", address_1: "1 Elsewhere Rd", city: "Reno", country_code: "us", postal_code: "89501" }

appTestRunner({
  testSuite: ({ api, getContainer, utils }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let alice: SignedInCustomer
    let mallory: SignedInCustomer
    /** Alice's saved card, saved in beforeAll (the database snapshot every case starts from). */
    let cardId: string
    /** The processor token behind it, from the sandbox. */
    let cardToken: string

    const stats = async (): Promise<Stats> => (await sandboxFetch<{ requests: Stats }>("/__sandbox/stats")).body.requests
    const count = (s: Stats, route: string) => s[route] ?? 0
    const authorizations = async (): Promise<Transaction[]> =>
      (await sandboxFetch<{ items: Transaction[] }>("/__sandbox/processor/transactions?type=authorization")).body.items
    const as = (who: SignedInCustomer | null) => ({ ...(who ? who.headers : store.storeHeaders), validateStatus: () => true })

    async function cartFor(who: SignedInCustomer | null) {
      const cart = await api.post(
        "/store/carts",
        { region_id: store.regionId, items: [{ variant_id: store.variantId, quantity: 1 }], email: who?.email ?? "guest@example.com" },
        as(who)
      )
      expect(cart.status).toBe(200)
      const collection = await api.post("/store/payment-collections", { cart_id: cart.data.cart.id }, as(who))
      const paymentCollectionId: string = collection.data.payment_collection.id
      const session = await api.post(`/store/payment-collections/${paymentCollectionId}/payment-sessions`, { provider_id: SERVICESCAN_PROVIDER_ID }, as(who))
      expect(session.status).toBe(200)
      return { cartId: cart.data.cart.id as string, paymentCollectionId, answers: [cart, collection, session] }
    }

    const pay = (who: SignedInCustomer | null, paymentCollectionId: string, data: Record<string, unknown>) =>
      api.post(`/store/payment-collections/${paymentCollectionId}/payment-sessions`, { provider_id: SERVICESCAN_PROVIDER_ID, data }, as(who))

    const complete = (who: SignedInCustomer | null, cartId: string, query = "") =>
      api.post(`/store/carts/${cartId}/complete${query}`, {}, as(who))

    async function savedCards(who: SignedInCustomer): Promise<SavedCard[]> {
      const response = await api.get("/store/servicescan/payment-methods", as(who))
      expect(response.status).toBe(200)
      return response.data.payment_methods
    }

    async function waitForSavedCards(who: SignedInCustomer, atLeast: number): Promise<SavedCard[]> {
      const deadline = Date.now() + 20_000
      for (;;) {
        const cards = await savedCards(who)
        if (cards.length >= atLeast || Date.now() > deadline) {
          return cards
        }
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }

    async function sessionsOf(cartId: string): Promise<{ id: string; provider_id: string; data: Record<string, unknown> }[]> {
      const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
        entity: "cart",
        fields: ["payment_collection.payment_sessions.id", "payment_collection.payment_sessions.provider_id", "payment_collection.payment_sessions.data"],
        filters: { id: cartId },
      })
      return data[0]?.payment_collection?.payment_sessions ?? []
    }

    async function accountHolderCards(customerId: string): Promise<{ sealed_token: string; fingerprint: string }[]> {
      const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
        entity: "customer",
        fields: ["account_holders.provider_id", "account_holders.data"],
        filters: { id: customerId },
      })
      const holder = data[0].account_holders.find((h: { provider_id: string }) => h.provider_id === SERVICESCAN_PROVIDER_ID)
      return holder?.data?.cards ?? []
    }

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
      alice = await signUpCustomer(api, store, "alice@example.com", PASSWORD)
      mallory = await signUpCustomer(api, store, "mallory@example.com", PASSWORD)

      // Alice saves a card on a first order: every case starts from this database.
      const { cartId, paymentCollectionId } = await cartFor(alice)
      const form = await submitTestForm({ number: OWNER_CARD }, { scanned: true })
      expect((await pay(alice, paymentCollectionId, { form_id: form.formId, response_code: form.responseCode, save_card: true })).status).toBe(200)
      const placed = await complete(alice, cartId)
      expect(placed.data.type).toBe("order")
      const cards = await waitForSavedCards(alice, 1)
      expect(cards).toHaveLength(1)
      cardId = cards[0].id
      await utils.waitWorkflowExecutions()
      cardToken = (await authorizations()).at(-1)?.token as string
      expect(cardToken).toMatch(/^\d{16}$/)
    })

    afterAll(async () => {
      await sandbox?.close()
    })

    describe("a form id pays only where it was sent first", () => {
      it("refuses another signed-in customer's save_card with a stolen form id before any exchange; the victim still pays", async () => {
        // The victim (a guest) has sent their form; it is not spent yet.
        const victim = await cartFor(null)
        const form = await submitTestForm({ number: CARD }, { scanned: true })
        expect((await pay(null, victim.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode })).status).toBe(200)

        const before = await stats()
        const authsBefore = (await authorizations()).length
        const attacker = await cartFor(mallory)
        const stolen = await pay(mallory, attacker.paymentCollectionId, { form_id: form.formId, response_code: "870", save_card: true })
        expect(stolen.status).toBe(400)
        expect(stolen.data.message).toBe(CHECKOUT_TRUST_REFUSALS.formBoundElsewhere)
        // The attacker's cart cannot be completed with it either.
        const attempt = await complete(mallory, attacker.cartId)
        expect(attempt.data.type).not.toBe("order")

        const after = await stats()
        expect(count(after, "token.exchange")).toBe(count(before, "token.exchange"))
        expect((await authorizations()).length).toBe(authsBefore)
        await utils.waitWorkflowExecutions()
        expect(await savedCards(mallory)).toEqual([])

        // The victim pays with their form: one exchange, one authorization.
        const paid = await complete(null, victim.cartId)
        expect(paid.data.type).toBe("order")
        expect(count(await stats(), "token.exchange")).toBe(count(before, "token.exchange") + 1)
        expect((await authorizations()).length).toBe(authsBefore + 1)
        await utils.waitWorkflowExecutions()
        expect(await savedCards(mallory)).toEqual([])
        expect((await savedCards(alice)).map((card) => card.id)).toEqual([cardId])
      })

      it("refuses a signed-in victim's form id sent into the attacker's own cart with save_card: no card lands on either account", async () => {
        const victim = await cartFor(alice)
        const form = await submitTestForm({ number: CARD }, { scanned: true })
        expect((await pay(alice, victim.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode })).status).toBe(200)

        const before = await stats()
        const attacker = await cartFor(mallory)
        expect((await pay(mallory, attacker.paymentCollectionId, { form_id: form.formId, response_code: "870", save_card: true })).status).toBe(400)
        expect((await complete(mallory, attacker.cartId)).data.type).not.toBe("order")
        const after = await stats()
        expect(count(after, "token.exchange")).toBe(count(before, "token.exchange"))
        expect(count(after, "cnp.online")).toBe(count(before, "cnp.online"))
        await utils.waitWorkflowExecutions()
        expect(await savedCards(mallory)).toEqual([])
        expect((await savedCards(alice)).map((card) => card.id)).toEqual([cardId])
      })

      it("refuses the same form id in a second guest cart, and another customer re-sending it into the victim's own cart", async () => {
        const victim = await cartFor(null)
        const form = await submitTestForm({ number: CARD })
        expect((await pay(null, victim.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode })).status).toBe(200)
        const before = await stats()
        const authsBefore = (await authorizations()).length

        const second = await cartFor(null)
        const refused = await pay(null, second.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode })
        expect(refused.status).toBe(400)
        expect(refused.data.message).toBe(CHECKOUT_TRUST_REFUSALS.formBoundElsewhere)
        expect((await complete(null, second.cartId)).data.type).not.toBe("order")

        // Holding the victim's cart id: a signed-in customer re-sending the form into it to save the card.
        const hijack = await pay(mallory, victim.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode, save_card: true })
        expect(hijack.status).toBe(400)
        expect(hijack.data.message).toBe(CHECKOUT_TRUST_REFUSALS.formBoundElsewhere)

        const after = await stats()
        expect(count(after, "token.exchange")).toBe(count(before, "token.exchange"))
        expect((await authorizations()).length).toBe(authsBefore)

        // The storefront re-sending the same form into the same cart (a retry) is the same binding.
        expect((await pay(null, victim.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode })).status).toBe(200)
        expect((await complete(null, victim.cartId)).data.type).toBe("order")
        expect((await authorizations()).length).toBe(authsBefore + 1)
      })
    })

    describe("a form id smuggled past the store route", () => {
      it("is refused at completion before any exchange, and its card is never saved on another account", async () => {
        const victim = await cartFor(null)
        const form = await submitTestForm({ number: CARD }, { scanned: true })
        expect((await pay(null, victim.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode })).status).toBe(200)

        // What a custom route of the store's own could do: Medusa's workflow, without the store route's middleware.
        const attacker = await cartFor(mallory)
        await createPaymentSessionsWorkflow(container).run({
          input: {
            payment_collection_id: attacker.paymentCollectionId,
            provider_id: SERVICESCAN_PROVIDER_ID,
            customer_id: mallory.id,
            data: { form_id: form.formId, response_code: "870", save_card: true },
          },
        })
        const before = await stats()
        const refused = await complete(mallory, attacker.cartId)
        expect(refused.data).toMatchObject({ type: "cart", error: { message: CHECKOUT_TRUST_REFUSALS.formBoundElsewhere } })
        expect(count(await stats(), "token.exchange")).toBe(count(before, "token.exchange"))
        expect(count(await stats(), "cnp.online")).toBe(count(before, "cnp.online"))

        // Completed anyway, by Medusa's completion called directly (no guard at all): the card is not
        // saved on the account of a customer who did not send the form.
        const { result } = await completeCartWorkflow(container).run({ input: { id: attacker.cartId } })
        expect(result.id).toMatch(/^order_/)
        await utils.waitWorkflowExecutions()
        await new Promise((resolve) => setTimeout(resolve, 1000))
        await utils.waitWorkflowExecutions()
        expect(await savedCards(mallory)).toEqual([])
      })
    })

    describe("a saved card pays only for its owner, in the owner's session", () => {
      it("refuses completing a saved-card cart without authentication and as another customer, with no processor call; the owner completes it", async () => {
        const { cartId, paymentCollectionId } = await cartFor(alice)
        expect((await pay(alice, paymentCollectionId, { payment_method_id: cardId })).status).toBe(200)

        const before = await stats()
        const anonymous = await complete(null, cartId)
        expect(anonymous.data).toMatchObject({ type: "cart", error: { message: CHECKOUT_TRUST_REFUSALS.savedCardSignIn } })
        const other = await complete(mallory, cartId)
        expect(other.data).toMatchObject({ type: "cart", error: { message: CHECKOUT_TRUST_REFUSALS.savedCardNotYours } })
        const after = await stats()
        expect(count(after, "cnp.online")).toBe(count(before, "cnp.online"))
        expect(count(after, "token.exchange")).toBe(count(before, "token.exchange"))

        const owner = await complete(alice, cartId)
        expect(owner.data.type).toBe("order")
        expect(count(await stats(), "cnp.online")).toBe(count(before, "cnp.online") + 1)
        expect((await authorizations()).at(-1)).toMatchObject({ token: cardToken, response: "000" })
      })

      it("refuses a saved-card session older than its lifetime, telling the shopper to choose the card again", async () => {
        const { cartId, paymentCollectionId } = await cartFor(alice)
        expect((await pay(alice, paymentCollectionId, { payment_method_id: cardId })).status).toBe(200)
        // Age the stored session past any lifetime: the card was chosen a day ago.
        const [session] = await sessionsOf(cartId)
        const pg = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
        await pg.raw(
          `UPDATE payment_session SET data = jsonb_set(data::jsonb, '{saved_card,expires_at}', to_jsonb(?::text)) WHERE id = ?`,
          [new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString(), session.id]
        )

        const before = await stats()
        const expired = await complete(alice, cartId)
        expect(expired.data).toMatchObject({ type: "cart", error: { message: CHECKOUT_TRUST_REFUSALS.savedCardChooseAgain } })
        expect(CHECKOUT_TRUST_REFUSALS.savedCardChooseAgain).toMatch(/choose .*card again/i)
        expect(count(await stats(), "cnp.online")).toBe(count(before, "cnp.online"))

        // Choosing it again gives a fresh session that pays, with one authorization. (Replacing the
        // old session asks the processor whether it holds anything under it: a lookup, no charge.)
        const authsBefore = (await authorizations()).length
        expect((await pay(alice, paymentCollectionId, { payment_method_id: cardId })).status).toBe(200)
        expect((await complete(alice, cartId)).data.type).toBe("order")
        expect((await authorizations()).length).toBe(authsBefore + 1)
        expect((await authorizations()).at(-1)).toMatchObject({ token: cardToken, response: "000" })
      })

      it("drops the saved-card session when someone else changes the shipping address; completing then makes no processor call", async () => {
        const { cartId, paymentCollectionId } = await cartFor(alice)
        expect((await pay(alice, paymentCollectionId, { payment_method_id: cardId })).status).toBe(200)

        // The owner may change their own address: the session stays.
        const own = await api.post(`/store/carts/${cartId}`, { shipping_address: { ...ADDRESS, first_name: "Alice" } }, as(alice))
        expect(own.status).toBe(200)
        expect((await sessionsOf(cartId)).map((s) => s.data.payment_method_id)).toEqual([cardId])

        // Someone holding only the cart id redirects the goods.
        const redirected = await api.post(`/store/carts/${cartId}`, { shipping_address: ADDRESS }, as(null))
        expect(redirected.status).toBe(200)
        expect(redirected.data.cart.shipping_address.address_1).toBe(ADDRESS.address_1)
        expect((await sessionsOf(cartId)).filter((s) => s.data.payment_method_id)).toEqual([])
        // Another signed-in customer likewise.
        const again = await cartFor(alice)
        expect((await pay(alice, again.paymentCollectionId, { payment_method_id: cardId })).status).toBe(200)
        expect((await api.post(`/store/carts/${again.cartId}`, { shipping_address: ADDRESS }, as(mallory))).status).toBe(200)
        expect((await sessionsOf(again.cartId)).filter((s) => s.data.payment_method_id)).toEqual([])

        const before = await stats()
        const authsBefore = (await authorizations()).length
        const completed = await complete(alice, cartId)
        expect(completed.data.type).not.toBe("order")
        expect(count(await stats(), "cnp.online")).toBe(count(before, "cnp.online"))
        expect((await authorizations()).length).toBe(authsBefore)
      })
    })

    describe("the store API shows no usable secret to whoever holds the cart id", () => {
      it("answers carts, sessions and completions without a form id, a sealed token, a fingerprint or a token", async () => {
        const answers: AxiosResponse[] = []
        const keep = (response: AxiosResponse) => {
          answers.push(response)
          return response
        }
        const withSessions = "?fields=*payment_collection,*payment_collection.payment_sessions"

        // A guest's hosted form: the session answer, the cart (default fields and asked-for session
        // fields, read and updated), a declined completion, then the order, as it answers.
        const guest = await cartFor(null)
        answers.push(...guest.answers)
        const form = await submitTestForm({ number: CARD }, { scanned: true })
        keep(await pay(null, guest.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode }))
        keep(await api.get(`/store/carts/${guest.cartId}`, as(null)))
        keep(await api.get(`/store/carts/${guest.cartId}${withSessions}`, as(null)))
        keep(await api.get(`/store/carts/${guest.cartId}?fields=payment_collection.payment_sessions.data`, as(null)))
        keep(await api.post(`/store/carts/${guest.cartId}${withSessions}`, { email: "guest2@example.com" }, as(null)))
        const order = keep(await complete(null, guest.cartId, "?fields=*payment_collections,*payment_collections.payments,*payment_collections.payment_sessions"))
        expect(order.data.type).toBe("order")
        keep(await api.get(`/store/carts/${guest.cartId}${withSessions}`, as(null)))
        keep(await api.get(`/store/orders/${order.data.order.id}?fields=*payment_collections.payment_sessions,*payment_collections.payments`, as(null)))
        const formToken = (await authorizations()).at(-1)?.token as string
        expect(formToken).toMatch(/^\d{16}$/)

        // A declined form: the refusal answers with the cart.
        const declined = await cartFor(null)
        const declinedForm = await submitTestForm({ number: "4000000000009995" })
        keep(await pay(null, declined.paymentCollectionId, { form_id: declinedForm.formId, response_code: declinedForm.responseCode }))
        expect(keep(await complete(null, declined.cartId)).data.type).toBe("cart")

        // Alice's saved card: the session, the cart as anyone holding its id reads it, and a refusal.
        const saved = await cartFor(alice)
        answers.push(...saved.answers)
        const chosen = keep(await pay(alice, saved.paymentCollectionId, { payment_method_id: cardId }))
        // What the browser needs to show the chosen card stays.
        const sessionData = chosen.data.payment_collection.payment_sessions[0].data
        expect(sessionData).toMatchObject({
          client_script_url: expect.any(String),
          shareable_key: "pk_test_servicescan_demo",
          form_config: expect.objectContaining({ uiVersion: 2 }),
          payment_method_id: cardId,
          saved_card: expect.objectContaining({ id: cardId, last4: "0005" }),
        })
        expect(Object.keys(sessionData.saved_card).sort()).toEqual(["brand", "id", "last4"])
        keep(await api.get(`/store/carts/${saved.cartId}`, as(null)))
        keep(await api.get(`/store/carts/${saved.cartId}${withSessions}`, as(alice)))
        keep(await api.get(`/store/carts/${saved.cartId}?fields=payment_collection.payment_sessions.context`, as(null)))
        keep(await complete(null, saved.cartId))

        const [stored] = await accountHolderCards(alice.id)
        expect(stored.sealed_token).toBeTruthy()
        const forbidden = [form.formId, declinedForm.formId, stored.sealed_token, stored.fingerprint, cardToken, formToken]
        expect(answers.length).toBeGreaterThan(15)
        for (const answer of answers) {
          const text = JSON.stringify(answer.data)
          for (const secret of forbidden) {
            expect(text.toLowerCase()).not.toContain(secret.toLowerCase())
          }
          expect(text).not.toMatch(/"(form_id|scan_id|sealed_token|fingerprint|token_fingerprint|token)"/)
        }
      })
    })
  },
})
