import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"
import { checkoutWithCard } from "../helpers/checkout"

/**
 * Money moves exactly: what the processor captured and refunded (counted at the sandbox's
 * cnpAPI) equals what Medusa records, for partial captures and for refunds started from two
 * routes at once. One app boot serves every case.
 */
reserveSandboxUrl()
jest.setTimeout(120_000)

const APPROVE = "4457119922390123"

type Transaction = {
  type: string
  id: string
  amount?: number
  cnpTxnId: string
  originalCnpTxnId: string | null
  response: string
  duplicate?: boolean
}

type MedusaPayment = {
  id: string
  amount: number
  captured_at: string | null
  data: { cnp_txn_id: string }
  captures: { amount: number }[]
  refunds: { amount: number }[]
}

async function processorTransactions(): Promise<Transaction[]> {
  const { body } = await sandboxFetch<{ items: Transaction[] }>("/__sandbox/processor/transactions")
  return body.items
}

/** What the sandbox's processor did to one authorization: approved, first-time (not replayed) captures and credits. */
async function atProcessor(authorizationTxnId: string): Promise<{ captured: number; refunded: number; captures: Transaction[] }> {
  const all = (await processorTransactions()).filter((t) => t.response === "000" && !t.duplicate)
  const captures = all.filter((t) => t.type === "capture" && t.originalCnpTxnId === authorizationTxnId)
  const captureIds = new Set(captures.map((t) => t.cnpTxnId))
  const credits = all.filter((t) => t.type === "credit" && t.originalCnpTxnId !== null && captureIds.has(t.originalCnpTxnId))
  return {
    captured: captures.reduce((sum, t) => sum + (t.amount ?? 0), 0),
    refunded: credits.reduce((sum, t) => sum + (t.amount ?? 0), 0),
    captures,
  }
}

const minor = (amounts: { amount: number }[]) => Math.round(amounts.reduce((sum, a) => sum + Number(a.amount) * 100, 0))

medusaIntegrationTestRunner({
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

    afterEach(async () => {
      await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
    })

    async function orderPayment(orderId: string): Promise<MedusaPayment> {
      const query = getContainer().resolve(ContainerRegistrationKeys.QUERY)
      const { data } = await query.graph({
        entity: "order",
        fields: ["id", "payment_collections.payments.*", "payment_collections.payments.captures.*", "payment_collections.payments.refunds.*"],
        filters: { id: orderId },
      })
      return data[0].payment_collections[0].payments[0]
    }

    /** An order of 21.00 USD paid through the hosted form, and its payment. */
    async function order21(): Promise<{ orderId: string; payment: MedusaPayment }> {
      const { result } = await checkoutWithCard(api, store, { number: APPROVE }, { quantity: 2 })
      if (result.type !== "order") throw new Error(JSON.stringify(result))
      return { orderId: result.order.id, payment: await orderPayment(result.order.id) }
    }

    const post = (path: string, body: object) => api.post(path, body, { ...store.adminHeaders, validateStatus: () => true })

    describe("partial capture", () => {
      it("captures exactly the amount asked: 5.00 of 21.00 reaches the processor as 500, and 5.00 is what can be refunded", async () => {
        const { orderId, payment } = await order21()

        const answer = await post(`/admin/payments/${payment.id}/capture`, { amount: 5 })
        expect(answer.status).toBe(200)

        const after = await orderPayment(orderId)
        const processor = await atProcessor(payment.data.cnp_txn_id)
        expect(processor.captured).toBe(500)
        expect(minor(after.captures)).toBe(500)
        expect(processor.captures[0]).toMatchObject({ amount: 500 })

        // Medusa lets the merchant refund what it believes was captured; the processor agrees.
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 5 })).status).toBe(200)
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 0.01 })).status).toBe(400)
        const refunded = await atProcessor(payment.data.cnp_txn_id)
        expect(refunded.refunded).toBe(500)
        expect(minor((await orderPayment(orderId)).refunds)).toBe(500)
      })

      it("captures in parts until the authorization is used up; every total agrees at the processor and in Medusa", async () => {
        const { orderId, payment } = await order21()

        for (const amount of [5, 6, 10]) {
          expect((await post(`/admin/payments/${payment.id}/capture`, { amount })).status).toBe(200)
        }
        // Nothing is left to capture: Medusa answers with the captured payment, and nothing reaches the processor.
        await post(`/admin/payments/${payment.id}/capture`, { amount: 1 })

        const after = await orderPayment(orderId)
        const processor = await atProcessor(payment.data.cnp_txn_id)
        expect(processor.captures.map((t) => t.amount)).toEqual([500, 600, 1000])
        expect(minor(after.captures)).toBe(2100)
        expect(after.captured_at).not.toBeNull()

        // A refund larger than any one capture: one credit per capture, the totals still agree.
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 15 })).status).toBe(200)
        expect((await atProcessor(payment.data.cnp_txn_id)).refunded).toBe(1500)
        expect(minor((await orderPayment(orderId)).refunds)).toBe(1500)
        // What remains refundable is 6.00, in both places.
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 6.01 })).status).toBe(400)
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 6 })).status).toBe(200)
        expect((await atProcessor(payment.data.cnp_txn_id)).refunded).toBe(2100)
      })

      it("two partial captures of the same amount at the same moment are two captures at the processor", async () => {
        const { orderId, payment } = await order21()

        const answers = await Promise.all([
          post(`/admin/payments/${payment.id}/capture`, { amount: 3 }),
          post(`/admin/payments/${payment.id}/capture`, { amount: 3 }),
        ])
        expect(answers.map((a) => a.status)).toEqual([200, 200])
        expect((await atProcessor(payment.data.cnp_txn_id)).captured).toBe(600)
        expect(minor((await orderPayment(orderId)).captures)).toBe(600)
      })
    })

    describe("refunds are serialized on every path", () => {
      it("an order canceled while a refund of the same payment is at the processor: both credits reach it, under their own ids", async () => {
        const { orderId, payment } = await order21()
        expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
        // Slow processor answers: the cancel starts while the admin's refund is still at the processor,
        // after Medusa has recorded it, so the cancel refunds what remains (10.50), the same amount.
        await sandboxFetch("/__sandbox/faults", { method: "POST", body: { latencyMs: 1500 } })

        const refund = post(`/admin/payments/${payment.id}/refund`, { amount: 10.5 })
        await new Promise((resolve) => setTimeout(resolve, 500))
        const cancel = post(`/admin/orders/${orderId}/cancel`, {})
        const [refunded, canceled] = await Promise.all([refund, cancel])

        expect(refunded.status).toBe(200)
        expect(canceled.status).toBe(200)
        const processor = await atProcessor(payment.data.cnp_txn_id)
        const medusa = minor((await orderPayment(orderId)).refunds)
        expect(medusa).toBe(2100)
        expect(processor.refunded).toBe(medusa)
      })
    })
  },
})
