import { appTestRunner } from "../helpers/app-runner"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { IPaymentModuleService, MedusaContainer } from "@medusajs/framework/types"
import type { AxiosResponse } from "axios"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, submitTestForm, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore, SERVICESCAN_PROVIDER_ID } from "../helpers/store"
import { signUpCustomer, SignedInCustomer } from "../helpers/customer"
import { startStorefrontPage } from "../helpers/storefront-page"
import { launchChromium } from "../../scripts/chromium.cjs"
import { join } from "node:path"
import { NEW_SESSION_MESSAGES, SAVED_CARD_REMOVED } from "../../src/workflows/utils/checkout-session"
import { SHOPPER_MESSAGES } from "../../src/providers/servicescan/messages"
import { lastSeq, movesSince, PROCESSORS } from "../helpers/processors"

/**
 * Saved cards through the real app, on real PostgreSQL, against the real
 * sandbox over HTTP: a signed-in shopper saves the card on a first checkout
 * and pays with it on the second (one processor call, no exchange); another
 * customer cannot use it; a chargeback on the second order sends the first
 * order's scan and reaches evidence ready; deleting the card removes it
 * everywhere; no store API answer ever carries the processor token.
 * The cases build on each other, in order; one app boot serves them all.
 */
reserveSandboxUrl()
jest.setTimeout(180_000)

const CARD = "5555555555554444"
const SAVED_CARDS_SECRET = "test-saved-cards-secret-0123456789abcdef"

type Stats = Record<string, number>
type Transaction = { type: string; id: string; token: string | null; customerId: string | null; response: string }
type SavedCard = { id: string; provider_id: string; brand: string | null; last4: string | null; saved_at: string }

appTestRunner({
  testSuite: ({ api, getContainer, dbUtils, utils }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let alice: SignedInCustomer
    let bob: SignedInCustomer
    /** Every answer the store API gave a browser in this spec, to scan for secrets. */
    const browserPayloads: string[] = []

    // What the cases hand on to the next.
    let firstFormId: string
    let firstOrderId: string
    let secondOrderId: string
    let cardId: string
    let token: string

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
      alice = await signUpCustomer(api, store, "alice@example.com")
      bob = await signUpCustomer(api, store, "bob@example.com")
    })

    afterAll(async () => {
      await sandbox?.close()
    })

    // The runner restores the database to its state after beforeAll before each case; these
    // cases build on each other, so each one's end state becomes the next one's start.
    afterEach(async () => {
      await utils.waitWorkflowExecutions()
      await dbUtils.snapshot()
    })

    const stats = async (): Promise<Stats> =>
      (await sandboxFetch<{ requests: Stats }>("/__sandbox/stats")).body.requests
    const resetStats = () => sandboxFetch("/__sandbox/reset-stats", { method: "POST" })
    const transactions = async (query: string): Promise<Transaction[]> =>
      (await sandboxFetch<{ items: Transaction[] }>(`/__sandbox/processor/transactions?${query}`)).body.items

    const keep = <T extends AxiosResponse>(response: T): T => {
      browserPayloads.push(JSON.stringify(response.data))
      return response
    }
    const as = (who: SignedInCustomer | null) => ({
      ...(who ? who.headers : store.storeHeaders),
      validateStatus: () => true,
    })

    /** A cart of the shopper's with a payment collection, and the ServiceScan session a storefront starts with. */
    async function cartFor(who: SignedInCustomer | null, providerId = SERVICESCAN_PROVIDER_ID) {
      const cart = keep(
        await api.post("/store/carts", { region_id: store.regionId, items: [{ variant_id: store.variantId, quantity: 1 }], email: who?.email ?? "guest@example.com" }, as(who))
      )
      expect(cart.status).toBe(200)
      const collection = keep(await api.post("/store/payment-collections", { cart_id: cart.data.cart.id }, as(who)))
      const paymentCollectionId: string = collection.data.payment_collection.id
      keep(await api.post(`/store/payment-collections/${paymentCollectionId}/payment-sessions`, { provider_id: providerId }, as(who)))
      return { cartId: cart.data.cart.id as string, paymentCollectionId }
    }

    async function pay(who: SignedInCustomer | null, paymentCollectionId: string, data: Record<string, unknown>, providerId = SERVICESCAN_PROVIDER_ID) {
      return keep(
        await api.post(`/store/payment-collections/${paymentCollectionId}/payment-sessions`, { provider_id: providerId, data }, as(who))
      )
    }

    async function complete(who: SignedInCustomer | null, cartId: string) {
      return keep(await api.post(`/store/carts/${cartId}/complete`, {}, as(who)))
    }

    async function savedCards(who: SignedInCustomer): Promise<SavedCard[]> {
      const response = keep(await api.get("/store/servicescan/payment-methods", as(who)))
      expect(response.status).toBe(200)
      return response.data.payment_methods
    }

    /** Saving runs when the order is placed (a subscriber): wait for it. */
    async function waitForSavedCards(who: SignedInCustomer, count: number): Promise<SavedCard[]> {
      const deadline = Date.now() + 20_000
      for (;;) {
        const cards = await savedCards(who)
        if (cards.length >= count || Date.now() > deadline) {
          return cards
        }
        await new Promise((resolve) => setTimeout(resolve, 200))
      }
    }

    async function paymentOf(orderId: string): Promise<{ id: string; data: Record<string, unknown> }> {
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data } = await query.graph({
        entity: "order",
        fields: ["id", "payment_collections.payments.id", "payment_collections.payments.data"],
        filters: { id: orderId },
      })
      return data[0].payment_collections[0].payments[0]
    }

    async function accountHolderData(customerId: string): Promise<Record<string, unknown>> {
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data } = await query.graph({
        entity: "customer",
        fields: ["id", "account_holders.provider_id", "account_holders.data"],
        filters: { id: customerId },
      })
      return data[0].account_holders.find((holder: { provider_id: string }) => holder.provider_id === SERVICESCAN_PROVIDER_ID).data
    }

    it("saves the card on the first checkout, once the order is placed", async () => {
      const { cartId, paymentCollectionId } = await cartFor(alice)
      const form = await submitTestForm({ number: CARD }, { scanned: true })
      firstFormId = form.formId
      const session = await pay(alice, paymentCollectionId, { form_id: form.formId, response_code: form.responseCode, save_card: true })
      expect(session.status).toBe(200)

      const result = await complete(alice, cartId)
      expect(result.data.type).toBe("order")
      firstOrderId = result.data.order.id

      const cards = await waitForSavedCards(alice, 1)
      expect(cards).toEqual([
        { id: expect.stringMatching(/^sscard_/), provider_id: SERVICESCAN_PROVIDER_ID, brand: null, last4: "4444", saved_at: expect.any(String) },
      ])
      cardId = cards[0].id

      // The saved card is the token the first payment was authorized with, and its form's scan.
      const payment = await paymentOf(firstOrderId)
      expect(payment.data).toMatchObject({ source: "form", scan_id: firstFormId, save_card: true, customer_id: alice.id })
      const [authorization] = await transactions(`type=authorization&id=${payment.data.request_id}`)
      token = authorization.token as string
      expect(token).toMatch(/^\d{16}$/)
      const holder = await accountHolderData(alice.id)
      expect(holder).toMatchObject({
        customer_id: alice.id,
        cards: [expect.objectContaining({ id: cardId, scan_id: firstFormId, payment_id: payment.id, fingerprint: payment.data.token_fingerprint })],
      })
      expect(JSON.stringify(holder)).not.toContain(token)
    })

    it("pays with the saved card on the second checkout with exactly one processor call and no exchange", async () => {
      const { cartId, paymentCollectionId } = await cartFor(alice)
      const session = await pay(alice, paymentCollectionId, { payment_method_id: cardId })
      expect(session.data.message).toBeUndefined()
      expect(session.status).toBe(200)
      const data = session.data.payment_collection.payment_sessions[0].data
      expect(data).toMatchObject({ payment_method_id: cardId, saved_card: expect.objectContaining({ id: cardId, last4: "4444" }) })
      expect(data.form_id).toBeUndefined()

      await resetStats()
      const result = await complete(alice, cartId)
      expect(result.data.type).toBe("order")
      secondOrderId = result.data.order.id

      const after = await stats()
      expect(after["cnp.online"]).toBe(1)
      expect(after["token.exchange"]).toBe(0)
      expect(after["forms.create"]).toBe(0)

      const payment = await paymentOf(secondOrderId)
      expect(payment.data).toMatchObject({
        status: "authorized",
        source: "saved_card",
        scan_id: null,
        form_id: null,
        saved_card: { id: cardId, scan_id: firstFormId },
        customer_id: alice.id,
      })
      const [authorization] = await transactions(`type=authorization&id=${payment.data.request_id}`)
      expect(authorization).toMatchObject({ token, customerId: alice.id, response: "000" })
    })

    it("keeps a card saved twice as one card", async () => {
      const { cartId, paymentCollectionId } = await cartFor(alice)
      const form = await submitTestForm({ number: CARD }, { scanned: true })
      await pay(alice, paymentCollectionId, { form_id: form.formId, response_code: form.responseCode, save_card: true })
      await resetStats()
      const result = await complete(alice, cartId)
      expect(result.data.type).toBe("order")
      // Saving exchanges the paid form once more (the authorization made the first exchange):
      // the second exchange at the sandbox is the save running.
      const deadline = Date.now() + 20_000
      while ((await stats())["token.exchange"] < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect((await stats())["token.exchange"]).toBe(2)
      await utils.waitWorkflowExecutions()
      const cards = await savedCards(alice)
      expect(cards.map((card) => card.id)).toEqual([cardId])
      expect((await accountHolderData(alice.id)).cards).toHaveLength(1)
    })

    it("refuses another customer's card with a clear error, and a guest's, before any processor call", async () => {
      const before = await stats()
      const { paymentCollectionId } = await cartFor(bob)
      const refused = await pay(bob, paymentCollectionId, { payment_method_id: cardId })
      expect(refused.status).toBe(400)
      expect(refused.data.message).toBe(
        "This saved card is not on your account. Choose one of your saved cards or enter your card details."
      )
      expect(await savedCards(bob)).toEqual([])
      // Bob cannot delete it either: it is as unknown to him as a card that never existed.
      const deleted = keep(await api.delete(`/store/servicescan/payment-methods/${cardId}`, as(bob)))
      expect(deleted.status).toBe(404)

      const guest = await cartFor(null)
      const guestRefused = await pay(null, guest.paymentCollectionId, { payment_method_id: cardId })
      expect(guestRefused.status).toBe(400)
      expect(guestRefused.data.message).toBe("Sign in to pay with a saved card, or enter your card details.")
      const listAnonymously = keep(await api.get("/store/servicescan/payment-methods", as(null)))
      expect(listAnonymously.status).toBe(401)

      const after = await stats()
      expect(after["cnp.online"]).toBe(before["cnp.online"])
      expect(after["token.exchange"]).toBe(before["token.exchange"])
    })

    it("sends the first order's scan for a chargeback on the second order, which reaches evidence ready", async () => {
      const admin = { ...store.adminHeaders, validateStatus: () => true }
      type RemoteProof = { id: string; scanIds: string[] }
      const proofRequests = async () =>
        (await sandboxFetch<{ items: RemoteProof[] }>("/__sandbox/proof-requests")).body.items
      const before = await proofRequests()
      const recorded = await api.post(
        "/admin/servicescan/chargebacks",
        { external_id: "dp_saved_card_1", order_id: secondOrderId, amount: "10.50", currency_code: "usd", reason: "fraudulent" },
        admin
      )
      expect(recorded.status).toBe(201)
      const chargeback = recorded.data.chargeback
      expect(chargeback.proof_requests).toEqual([expect.objectContaining({ scan_ids: [firstFormId] })])

      // What ServiceScan received: exactly one new proof request, with the first order's scan.
      const sent = (await proofRequests()).filter((proof) => !before.some((earlier) => earlier.id === proof.id))
      expect(sent.map((proof) => proof.scanIds)).toEqual([[firstFormId]])

      await sandboxFetch(`/__sandbox/scans/${firstFormId}/label`, { body: { groundTruth: "valid" } })
      const checked = await api.post(`/admin/servicescan/chargebacks/${chargeback.id}/check`, {}, admin)
      expect(checked.status).toBe(200)
      expect(checked.data.chargeback.status).toBe("evidence_ready")

      // The admin can tell which earlier order the scan came from.
      const sources = await api.get(`/admin/servicescan/chargebacks/${chargeback.id}/scan-sources`, admin)
      expect(sources.status).toBe(200)
      const { data: orders } = await container
        .resolve(ContainerRegistrationKeys.QUERY)
        .graph({ entity: "order", fields: ["id", "display_id"], filters: { id: firstOrderId } })
      const firstOrder = { scan_id: firstFormId, order_id: firstOrderId, order_display_id: orders[0].display_id }
      expect(sources.data.scan_sources).toEqual([firstOrder])
      // And with the chargeback itself, as the admin reads it (order widget, dispute page).
      expect(checked.data.chargeback.scan_sources).toEqual([firstOrder])
      // The order widget's list asks for the evidence; a list without it has no proof requests and no sources.
      const evidence = "+proof_requests.status,+proof_requests.scans.scan_id,+proof_requests.scans.ground_truth"
      const listed = await api.get(`/admin/servicescan/chargebacks?order_id=${secondOrderId}&fields=${evidence}`, admin)
      expect(listed.data.items).toEqual([expect.objectContaining({ id: chargeback.id, scan_sources: [firstOrder] })])
      const plain = await api.get(`/admin/servicescan/chargebacks?order_id=${secondOrderId}`, admin)
      expect(plain.data.items).toEqual([expect.not.objectContaining({ scan_sources: expect.anything() })])
    })

    it("pays with the saved card in Chromium through the widget, chosen with the keyboard, with one processor call", async () => {
      const { cartId } = await cartFor(alice)
      const storefront = await startStorefrontPage(join(__dirname, "../helpers/saved-card-page.tsx"), String(api.defaults.baseURL), {
        publishableKey: store.publishableKey,
        cartId,
        email: alice.email,
        password: "correct horse battery staple",
      }, (body) => browserPayloads.push(body))
      const browser = await launchChromium()
      try {
        const page = await browser.newPage()
        const problems: string[] = []
        page.on("pageerror", (error) => problems.push(String(error)))
        await page.goto(storefront.url)

        // Signed in, the page lists the saved card and picks it; the card form is not loaded.
        const saved = page.getByRole("radio", { name: "Card ending in 4444" })
        await saved.waitFor({ timeout: 20_000 })
        expect(await saved.isChecked()).toBe(true)
        expect(await page.getByRole("radio").count()).toBe(2)
        expect(await page.locator("iframe").count()).toBe(0)

        // Keyboard only: Tab into the group (to its checked radio), arrows to choose.
        await page.keyboard.press("Tab")
        expect(await saved.evaluate((input) => input === document.activeElement)).toBe(true)
        await page.keyboard.press("ArrowDown")
        expect(await page.getByRole("radio", { name: "Use another card" }).isChecked()).toBe(true)
        await page.getByRole("checkbox", { name: "Save this card" }).waitFor()
        await page.locator("iframe").waitFor()
        await page.keyboard.press("ArrowUp")
        expect(await saved.isChecked()).toBe(true)
        expect(await page.getByRole("checkbox").count()).toBe(0)

        await resetStats()
        await page.keyboard.press("Tab")
        expect(await page.evaluate(() => document.activeElement?.id)).toBe("pay")
        await page.keyboard.press("Enter")
        await page.waitForFunction(() => !!document.querySelector("#result")?.textContent, undefined, { timeout: 30_000 })
        const result = JSON.parse((await page.textContent("#result")) as string)
        expect(result).toEqual({ order_id: expect.stringMatching(/^order_/) })
        expect(problems).toEqual([])

        // At the sandbox: one processor call, no exchange, no form.
        const after = await stats()
        expect(after["cnp.online"]).toBe(1)
        expect(after["token.exchange"]).toBe(0)
        expect(after["forms.create"]).toBe(0)
        const payment = await paymentOf(result.order_id)
        expect(payment.data).toMatchObject({ source: "saved_card", saved_card: { id: cardId, scan_id: firstFormId }, customer_id: alice.id })
        const [authorization] = await transactions(`type=authorization&id=${payment.data.request_id}`)
        expect(authorization).toMatchObject({ token, response: "000" })
      } finally {
        await browser.close()
        await storefront.close()
      }
    })

    it("deletes a card everywhere: the list, the account holder, and a session created with it before", async () => {
      const { cartId, paymentCollectionId } = await cartFor(alice)
      expect((await pay(alice, paymentCollectionId, { payment_method_id: cardId })).status).toBe(200)

      const deleted = keep(await api.delete(`/store/servicescan/payment-methods/${cardId}`, as(alice)))
      expect(deleted.status).toBe(200)
      expect(deleted.data).toEqual({ id: cardId, object: "payment_method", deleted: true })
      expect(await savedCards(alice)).toEqual([])
      expect((await accountHolderData(alice.id)).cards).toEqual([])

      const before = await stats()
      const result = await complete(alice, cartId)
      expect(result.data).toMatchObject({
        type: "cart",
        error: { name: SAVED_CARD_REMOVED, message: NEW_SESSION_MESSAGES.savedCardRemoved },
      })
      expect((await stats())["cnp.online"]).toBe(before["cnp.online"])

      const again = await pay(alice, paymentCollectionId, { payment_method_id: cardId })
      expect(again.status).toBe(400)
      const malformed = keep(await api.delete("/store/servicescan/payment-methods/not-a-card", as(alice)))
      expect(malformed.status).toBe(400)
      expect(malformed.data.message).toMatch(/id must be the id of a saved card/)
    })

    it("tells the shopper a saved card expired, in words they can act on, and places no order", async () => {
      // A card the processor has since refused as expired: the sandbox's 4000000000000069 tokenizes,
      // then every authorization answers 305 Expired Card. Saved here through the provider's own
      // methods (the payment module's createPaymentMethods and updateAccountHolder, as the save
      // workflow calls them), since no order can ever be paid with it to save it the usual way.
      const form = await submitTestForm({ number: "4000000000000069" }, { scanned: true })
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data: customers } = await query.graph({
        entity: "customer",
        fields: ["id", "email", "account_holders.id", "account_holders.provider_id", "account_holders.data"],
        filters: { id: alice.id },
      })
      const holder = customers[0].account_holders.find((h: { provider_id: string }) => h.provider_id === SERVICESCAN_PROVIDER_ID)
      const customer = { id: alice.id, email: alice.email }
      const payments = container.resolve<IPaymentModuleService>(Modules.PAYMENT)
      const method = await payments.createPaymentMethods({
        provider_id: SERVICESCAN_PROVIDER_ID,
        data: { form_id: form.formId, card: { last4: "0069", type: "VI" } },
        context: { account_holder: { data: holder.data }, customer },
      })
      await payments.updateAccountHolder({
        id: holder.id,
        provider_id: SERVICESCAN_PROVIDER_ID,
        context: { account_holder: { data: { ...holder.data, cards: [...holder.data.cards, method.data] } }, customer },
      })
      expect(await savedCards(alice)).toEqual([expect.objectContaining({ id: method.id, brand: "Visa", last4: "0069" })])

      const { cartId, paymentCollectionId } = await cartFor(alice)
      expect((await pay(alice, paymentCollectionId, { payment_method_id: method.id })).status).toBe(200)
      await resetStats()
      const result = await complete(alice, cartId)
      expect(result.data).toMatchObject({ type: "cart", error: { message: SHOPPER_MESSAGES.savedCardExpired } })
      expect(SHOPPER_MESSAGES.savedCardExpired).toBe("This saved card has expired. Please enter your card details or choose another card.")
      // The one authorization the processor refused, and nothing else.
      const after = await stats()
      expect(after["cnp.online"]).toBe(1)
      expect(after["token.exchange"]).toBe(0)
      const refused = await transactions("type=authorization")
      expect(refused.at(-1)).toMatchObject({ response: "305", customerId: alice.id })
    })

    it("never gave a browser the processor token or the saved cards secret", async () => {
      expect(token).toBeTruthy()
      expect(browserPayloads.length).toBeGreaterThan(20)
      for (const payload of browserPayloads) {
        expect(payload).not.toContain(token)
        expect(payload).not.toContain(SAVED_CARDS_SECRET)
        expect(payload).not.toContain("ptk_test_servicescan_demo")
      }
      // Medusa copies the account holder, saved cards included, into each session's context, and the
      // store API returns it with the cart: for this provider's sessions it answers an empty context
      // (checkout-trust.spec.ts has the rest), and the token rests sealed in the database either way.
      const { cartId } = await cartFor(alice)
      const cart = keep(await api.get(`/store/carts/${cartId}`, as(alice)))
      const sessions = cart.data.cart.payment_collection.payment_sessions
      expect(sessions[0].context).toEqual({})
      expect(JSON.stringify(cart.data)).not.toContain(token)
    })

    describe.each(PROCESSORS)("saved cards at $name", (processor) => {
      it("saves the card on a first checkout, then pays with it: one authorization for the same shopper and token, no exchange", async () => {
        const shopper = await signUpCustomer(api, store, `saver-${processor.name}@example.com`)
        const first = await cartFor(shopper, processor.providerId)
        // As the widget sends the session's form_config: the form carries the customer, whom Adyen stores the card for.
        const form = await submitTestForm({ number: CARD }, { scanned: true, config: { customerId: shopper.id } })
        const session = await pay(shopper, first.paymentCollectionId, { form_id: form.formId, response_code: form.responseCode, save_card: true }, processor.providerId)
        expect(session.status).toBe(200)
        const mark = await lastSeq(processor)
        const placed = await complete(shopper, first.cartId)
        expect(placed.data.type).toBe("order")
        const [paid] = movesSince(await processor.moves(), mark)
        // The shopper reference rule (docs/architecture.md): the card is stored and charged for the customer.
        expect(paid).toMatchObject({ kind: "authorization", ok: true, shopper: shopper.id, token: expect.stringMatching(processor.tokenPattern) })

        const cards = await waitForSavedCards(shopper, 1)
        expect(cards).toEqual([expect.objectContaining({ provider_id: processor.providerId, last4: "4444" })])

        const second = await cartFor(shopper, processor.providerId)
        expect((await pay(shopper, second.paymentCollectionId, { payment_method_id: cards[0].id }, processor.providerId)).status).toBe(200)
        await resetStats()
        const again = await complete(shopper, second.cartId)
        expect(again.data.type).toBe("order")

        const after = await stats()
        expect(after[processor.routes.authorize]).toBe(1)
        expect(after["token.exchange"]).toBe(0)
        expect(after["forms.create"]).toBe(0)
        const moves = movesSince(await processor.moves(), paid.seq)
        expect(moves).toEqual([expect.objectContaining({ kind: "authorization", ok: true, shopper: shopper.id, token: paid.token, replays: 0 })])
        const payment = await paymentOf(again.data.order.id)
        expect(payment.data).toMatchObject({ source: "saved_card", gateway: processor.name, saved_card: { id: cards[0].id }, cnp_txn_id: moves[0].id })
      })
    })
  },
})
