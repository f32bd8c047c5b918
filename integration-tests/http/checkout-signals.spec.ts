import { appTestRunner } from "../helpers/app-runner"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import { purgeServiceScanCheckoutSignals } from "../../src/jobs/purge-servicescan-checkout-signals"
import { USER_AGENT_MAX_LENGTH } from "../../src/modules/servicescan/services/checkout-signal"
import { signUpCustomer, SignedInCustomer } from "../helpers/customer"
import { reserveSandboxUrl, startTestSandbox, submitTestForm, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore, SERVICESCAN_PROVIDER_ID } from "../helpers/store"
import { waitFor } from "../helpers/wait"

/**
 * Checkout signals (issue 28), through the real app on real PostgreSQL against the real sandbox:
 * a completed checkout keeps the shopper's IP (as Express resolves it under Medusa's one trusted
 * proxy hop), user agent, the widget's device id from the session and the customer, and gets its
 * payment once the order is placed; a malformed device id is refused before anything is stored;
 * the daily purge deletes only what is older than the retention (400 days here, the default).
 * `enabled: false` is src/modules/servicescan/__tests__/checkout-signals.spec.ts.
 */
reserveSandboxUrl()
jest.setTimeout(180_000)

const CARD = "4457119922390123"
const DEVICE = "0b5e2f4c-9d1a-4c3e-8f7a-1e2d3c4b5a69"
const DAY = 24 * 60 * 60 * 1000

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let alice: SignedInCustomer

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const signals = () => service().listCheckoutSignals({}, { take: null })
    const sql = (statement: string, bindings: unknown[] = []) =>
      container.resolve(ContainerRegistrationKeys.PG_CONNECTION).raw(statement, bindings)

    /** Alice's request as a proxy in front of the store forwards it: the client it saw, after one the shopper wrote. */
    const through = (clientIp: string, userAgent: string) => ({
      headers: { ...alice.headers.headers, "x-forwarded-for": `198.51.100.66, ${clientIp}`, "user-agent": userAgent },
      validateStatus: () => true,
    })

    async function cart() {
      const opts = { ...alice.headers, validateStatus: () => true }
      const created = await api.post("/store/carts", { region_id: store.regionId, items: [{ variant_id: store.variantId, quantity: 1 }], email: alice.email }, opts)
      expect(created.status).toBe(200)
      const collection = await api.post("/store/payment-collections", { cart_id: created.data.cart.id }, opts)
      return { cartId: created.data.cart.id as string, paymentCollectionId: collection.data.payment_collection.id as string }
    }

    const session = (paymentCollectionId: string, data: Record<string, unknown>) =>
      api.post(`/store/payment-collections/${paymentCollectionId}/payment-sessions`, { provider_id: SERVICESCAN_PROVIDER_ID, data }, { ...alice.headers, validateStatus: () => true })

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
      alice = await signUpCustomer(api, store, "alice.signals@example.com")
    })

    afterAll(async () => {
      await sandbox?.close()
    })

    it("keeps the completion's IP, user agent, device id and customer, one row per session, and the payment once placed", async () => {
      const { cartId, paymentCollectionId } = await cart()
      const form = await submitTestForm({ number: CARD })
      const sent = await session(paymentCollectionId, { form_id: form.formId, response_code: form.responseCode, device_id: DEVICE })
      expect(sent.status).toBe(200)
      // The id is evidence, not something a browser needs back: no store answer carries it.
      expect(JSON.stringify(sent.data)).not.toContain(DEVICE)

      const longAgent = `Mozilla/5.0 (X11; Linux x86_64) ${"x".repeat(2_000)}`
      const placed = await api.post(`/store/carts/${cartId}/complete`, {}, through("203.0.113.7", longAgent))
      expect(placed.data.type).toBe("order")
      expect(JSON.stringify(placed.data)).not.toContain(DEVICE)

      const [sessionRow] = (
        await container.resolve(ContainerRegistrationKeys.QUERY).graph({
          entity: "payment_collection",
          fields: ["payment_sessions.id", "payments.id"],
          filters: { id: paymentCollectionId },
        })
      ).data as { payment_sessions: { id: string }[]; payments: { id: string }[] }[]
      const paymentId = sessionRow.payments[0].id
      // The order.placed subscriber fills in the payment.
      const rows = await waitFor(signals, (all) => all.some((row) => row.payment_id === paymentId), 20_000)
      const mine = rows.filter((row) => row.cart_id === cartId)
      expect(mine).toHaveLength(1)
      expect(mine[0]).toMatchObject({
        payment_session_id: sessionRow.payment_sessions[0].id,
        payment_id: paymentId,
        customer_id: alice.id,
        // Medusa trusts one proxy hop: the address that proxy saw, never the one the shopper wrote first.
        ip_address: "203.0.113.7",
        user_agent: longAgent.slice(0, USER_AGENT_MAX_LENGTH),
        device_id: DEVICE,
      })

      // Completing the placed cart again records no second row (Medusa answers with the order).
      const again = await api.post(`/store/carts/${cartId}/complete`, {}, through("192.0.2.9", "Other/1.0"))
      expect(again.data.type).toBe("order")
      expect((await signals()).filter((row) => row.cart_id === cartId)).toHaveLength(1)
    })

    it("keeps one row per session: a retried completion updates it; bad values are dropped, not stored", async () => {
      const input = { payment_session_id: "payses_retry_1", cart_id: "cart_retry_1", customer_id: null, user_agent: "A/1", device_id: DEVICE }
      const first = await service().recordCheckoutSignal({ ...input, ip_address: "::ffff:203.0.113.20" })
      const second = await service().recordCheckoutSignal({ ...input, ip_address: "2001:DB8::1", user_agent: "B/2", device_id: "bad id" })
      expect(first).toEqual({ id: expect.any(String), inserted: true })
      expect(second).toEqual({ id: first!.id, inserted: false })
      const rows = (await signals()).filter((row) => row.payment_session_id === "payses_retry_1")
      expect(rows).toHaveLength(1)
      expect(rows[0]).toMatchObject({ ip_address: "2001:db8::1", user_agent: "B/2", device_id: null })
      const third = await service().recordCheckoutSignal({ ...input, ip_address: "not an ip" })
      expect(third?.inserted).toBe(false)
      expect((await signals()).find((row) => row.payment_session_id === "payses_retry_1")).toMatchObject({ ip_address: null, device_id: DEVICE })
    })

    it("refuses a malformed device id with a 400 naming the field, and records nothing", async () => {
      const before = (await signals()).length
      const { cartId, paymentCollectionId } = await cart()
      const form = await submitTestForm({ number: CARD })
      for (const bad of ["short", `${"a".repeat(65)}`, "<script>alert(1)</script>xxxx", 42, { $ne: null }]) {
        const refused = await session(paymentCollectionId, { form_id: form.formId, response_code: form.responseCode, device_id: bad })
        expect(refused.status).toBe(400)
        expect(refused.data.message).toMatch(/^data\.device_id must be/)
      }
      // Nothing went in: the cart has no ServiceScan session to complete with.
      const completed = await api.post(`/store/carts/${cartId}/complete`, {}, through("203.0.113.8", "Agent/1"))
      expect(completed.data.type).not.toBe("order")
      expect((await signals()).length).toBe(before)
    })

    it("purges only the signals older than the retention, counting rows", async () => {
      const { retentionDays } = service().getCheckoutSignalSettings()
      expect(retentionDays).toBe(400)
      const made = await service().createCheckoutSignals(
        Array.from({ length: 5 }, (_, i) => ({ payment_session_id: `payses_purge_${i}`, cart_id: `cart_purge_${i}`, device_id: DEVICE }))
      )
      const now = Date.now()
      const ages = [401, 500, 1_000, 399, 130]
      for (const [i, row] of made.entries()) {
        await sql(`UPDATE servicescan_checkout_signal SET created_at = ? WHERE id = ?`, [new Date(now - ages[i] * DAY), row.id])
      }
      const before = (await signals()).length
      const report = await purgeServiceScanCheckoutSignals(container, { now: () => new Date(now), batchSize: 2 })
      expect(report).toEqual({ deleted: 3, retentionDays: 400 })
      const left = await signals()
      expect(left.length).toBe(before - 3)
      expect(left.filter((row) => row.payment_session_id.startsWith("payses_purge_")).map((row) => row.payment_session_id).sort()).toEqual([
        "payses_purge_3",
        "payses_purge_4",
      ])
      // A second run finds nothing more.
      expect((await purgeServiceScanCheckoutSignals(container, { now: () => new Date(now) })).deleted).toBe(0)
    })
  },
})
