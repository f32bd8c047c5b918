import { appTestRunner } from "../helpers/app-runner"
import type { ILockingModule, INotificationModuleService, IPaymentModuleService } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"
import { checkoutWithCard } from "../helpers/checkout"
import { ADYEN, lastSeq, moneyAt, movesSince, PROCESSORS, TestProcessor } from "../helpers/processors"
import { applyOperationOutcomeWorkflow, AppliedOperationOutcome } from "../../src/workflows/apply-operation-outcome"
import type { OperationOutcome } from "../../src/processors/types"
import { applyProcessorEventsWorkflow } from "../../src/workflows/apply-processor-events"
import { paymentLockKey } from "../../src/providers/servicescan/payment-lock"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import { adyenNotifications, eventually } from "../helpers/disputes"

/**
 * Money moves exactly: what the processor captured and refunded (counted at the sandbox, for
 * each processor: helpers/processors.ts) equals what Medusa records, for partial captures, for
 * cancels and for refunds started from two routes at once. One app boot serves every case.
 */
reserveSandboxUrl()
jest.setTimeout(120_000)

const APPROVE = "4457119922390123"

type MedusaPayment = {
  id: string
  amount: number
  captured_at: string | null
  data: { cnp_txn_id: string }
  captures: { amount: number }[]
  refunds: { amount: number }[]
}

const minor = (amounts: { amount: number }[]) => Math.round(amounts.reduce((sum, a) => sum + Number(a.amount) * 100, 0))

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

    /** An order of 21.00 USD paid through the hosted form with `processor`, and its payment. */
    async function order21(processor: TestProcessor): Promise<{ orderId: string; payment: MedusaPayment }> {
      const { result } = await checkoutWithCard(api, store, { number: APPROVE }, { quantity: 2, providerId: processor.providerId })
      if (result.type !== "order") throw new Error(JSON.stringify(result))
      return { orderId: result.order.id, payment: await orderPayment(result.order.id) }
    }

    const post = (path: string, body: object) => api.post(path, body, { ...store.adminHeaders, validateStatus: () => true })

    describe.each(PROCESSORS)("$name", (processor) => {
      /** What the processor captured and refunded on one payment: approved first-time moves, counted at the sandbox. */
      const atProcessor = async (paymentTxnId: string) => moneyAt(await processor.moves(), paymentTxnId)

      describe("partial capture", () => {
        it("captures exactly the amount asked: 5.00 of 21.00 reaches the processor as 500, and 5.00 is what can be refunded", async () => {
          const { orderId, payment } = await order21(processor)

          const answer = await post(`/admin/payments/${payment.id}/capture`, { amount: 5 })
          expect(answer.status).toBe(200)

          const after = await orderPayment(orderId)
          const moves = await atProcessor(payment.data.cnp_txn_id)
          expect(moves.captured).toBe(500)
          expect(minor(after.captures)).toBe(500)
          expect(moves.captures[0]).toMatchObject({ amount: 500 })

          // Medusa lets the merchant refund what it believes was captured; the processor agrees.
          expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 5 })).status).toBe(200)
          expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 0.01 })).status).toBe(400)
          const refunded = await atProcessor(payment.data.cnp_txn_id)
          expect(refunded.refunded).toBe(500)
          expect(minor((await orderPayment(orderId)).refunds)).toBe(500)
        })

        it("captures in parts until the authorization is used up; every total agrees at the processor and in Medusa", async () => {
          const { orderId, payment } = await order21(processor)

          for (const amount of [5, 6, 10]) {
            expect((await post(`/admin/payments/${payment.id}/capture`, { amount })).status).toBe(200)
          }
          // Nothing is left to capture: Medusa answers with the captured payment, and nothing reaches the processor.
          await post(`/admin/payments/${payment.id}/capture`, { amount: 1 })

          const after = await orderPayment(orderId)
          const moves = await atProcessor(payment.data.cnp_txn_id)
          expect(moves.captures.map((t) => t.amount)).toEqual([500, 600, 1000])
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
          const { orderId, payment } = await order21(processor)

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
          const { orderId, payment } = await order21(processor)
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
          const moves = await atProcessor(payment.data.cnp_txn_id)
          const medusa = minor((await orderPayment(orderId)).refunds)
          expect(medusa).toBe(2100)
          expect(moves.refunded).toBe(medusa)
        })
      })

      describe("counted at the sandbox, nothing more", () => {
        it("an order, a partial capture and a refund: one authorization, one capture of 500, one refund of 500, no replays", async () => {
          const mark = await lastSeq(processor)
          const { payment } = await order21(processor)
          expect((await post(`/admin/payments/${payment.id}/capture`, { amount: 5 })).status).toBe(200)
          expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 5 })).status).toBe(200)

          const moves = movesSince(await processor.moves(), mark)
          expect(moves.map((m) => [m.kind, m.amount, m.ok, m.replays])).toEqual([
            ["authorization", 2100, true, 0],
            ["capture", 500, true, 0],
            ["refund", 500, true, 0],
          ])
          expect(moves.slice(1).every((m) => m.paymentId === payment.data.cnp_txn_id)).toBe(true)
        })

        it("an order canceled before capture: one release of that authorization, and Medusa records it canceled", async () => {
          const { orderId, payment } = await order21(processor)
          const mark = await lastSeq(processor)
          expect((await post(`/admin/orders/${orderId}/cancel`, {})).status).toBe(200)

          const moves = movesSince(await processor.moves(), mark)
          expect(moves).toEqual([expect.objectContaining({ kind: "release", ok: true, paymentId: payment.data.cnp_txn_id, replays: 0 })])
          const after = (await orderPayment(orderId)) as MedusaPayment & { canceled_at: string | null }
          expect(after.canceled_at).not.toBeNull()
        })
      })
    })

    describe("asynchronous outcomes (adyen: modifications answer 201 received)", () => {
      type Recorded = { outcome?: string; outcome_reason?: string; cnp_txn_id: string }
      const recorded = async (orderId: string) =>
        (await orderPayment(orderId)).data as {
          cnp_txn_id: string
          status: string
          captures: Recorded[]
          refunds: Recorded[]
          cancellation?: Recorded & { kind: string }
        }
      const WEBHOOK_BASIC = `Basic ${Buffer.from("adyen-webhook:demo-webhook-password").toString("base64")}`

      /** The admin's bell: the feed notifications of one failed operation (idempotency key per operation). */
      const failureAlerts = async (transactionId: string) =>
        (await getContainer().resolve<INotificationModuleService>(Modules.NOTIFICATION).listNotifications({}, { take: null })).filter(
          // The DTO's type leaves out the stored idempotency key.
          (n) => n.channel === "feed" && "idempotency_key" in n && n.idempotency_key === `servicescan:payment_operation.failed:${transactionId}:feed`
        )

      /** Runs the workflow the webhook route runs; the payment's ref is recorded by an order.placed subscriber, so wait for it. */
      async function apply(outcome: OperationOutcome): Promise<AppliedOperationOutcome> {
        const deadline = Date.now() + 20_000
        for (;;) {
          const { result } = await applyOperationOutcomeWorkflow(getContainer()).run({ input: [outcome] })
          if (result[0].effect !== "unmatched" || Date.now() > deadline) return result[0]
          await new Promise((resolve) => setTimeout(resolve, 200))
        }
      }

      it("a capture is pending until its outcome, which is applied once: a repeated delivery changes nothing", async () => {
        const { orderId, payment } = await order21(ADYEN)
        expect((await post(`/admin/payments/${payment.id}/capture`, { amount: 5 })).status).toBe(200)
        const capture = (await ADYEN.moves()).find((m) => m.kind === "capture" && m.paymentId === payment.data.cnp_txn_id)
        expect(capture).toMatchObject({ ok: true, amount: 500 })
        expect((await recorded(orderId)).captures).toEqual([expect.objectContaining({ cnp_txn_id: capture?.id, outcome: "pending" })])

        const outcome: OperationOutcome = {
          operation: "capture",
          paymentTransactionId: payment.data.cnp_txn_id,
          transactionId: String(capture?.id),
          success: true,
          occurredAt: new Date().toISOString(),
        }
        expect(await apply(outcome)).toMatchObject({ payment_id: payment.id, effect: "applied" })
        expect((await recorded(orderId)).captures).toEqual([expect.objectContaining({ outcome: "succeeded" })])
        expect(await apply(outcome)).toMatchObject({ payment_id: payment.id, effect: "unchanged" })
      })

      it("a refund the processor fails later is recorded failed with its reason, found by the payment's pspReference", async () => {
        const { orderId, payment } = await order21(ADYEN)
        expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
        expect((await post(`/admin/payments/${payment.id}/refund`, { amount: 21 })).status).toBe(200)
        const refund = (await ADYEN.moves()).find((m) => m.kind === "refund" && m.paymentId === payment.data.cnp_txn_id)
        // As a REFUND_FAILED notification would report it (the sandbox decides at once, and never fails it later).
        const failed = await apply({
          operation: "refund",
          paymentTransactionId: payment.data.cnp_txn_id,
          transactionId: String(refund?.id),
          success: false,
          reason: "Refund failed at the scheme",
          occurredAt: new Date().toISOString(),
        })
        expect(failed).toMatchObject({ effect: "applied", success: false })
        expect((await recorded(orderId)).refunds).toEqual([
          expect.objectContaining({ outcome: "failed", outcome_reason: "Refund failed at the scheme" }),
        ])
      })

      it("a reversal Adyen fails (CANCEL_OR_REFUND, action refund) settles the cancellation: captured again, raised once at the bell", async () => {
        const { orderId, payment } = await order21(ADYEN)
        expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
        // Refunded whole outside Medusa (the Customer Area): Medusa's data does not know, so the cancel below is sent.
        const outside = await sandboxFetch(`/v71/payments/${payment.data.cnp_txn_id}/refunds`, {
          body: { merchantAccount: sandbox.demo.adyen.merchantAccount, amount: { value: 2100, currency: "USD" } },
          headers: { "x-api-key": sandbox.demo.adyen.apiKey },
        })
        expect(outside.status).toBe(201)
        // Cancelling a captured payment goes to /reversals; all of it was refunded, so Adyen refuses it later.
        const since = await lastSeq(ADYEN)
        await getContainer().resolve<IPaymentModuleService>(Modules.PAYMENT).cancelPayment(payment.id)
        const moves = movesSince(await ADYEN.moves(), since)
        expect(moves).toEqual([expect.objectContaining({ kind: "refund", paymentId: payment.data.cnp_txn_id, ok: false })])
        const reversal = moves[0].id
        expect(await recorded(orderId)).toMatchObject({ status: "canceled", cancellation: { kind: "capture", cnp_txn_id: reversal, outcome: "pending" } })

        // Adyen's word, as its webhook delivers it (signed by the sandbox), posted once.
        const [notification] = await adyenNotifications(reversal)
        expect(notification).toMatchObject({ eventCode: "CANCEL_OR_REFUND" })
        const answer = await api.post("/hooks/servicescan/adyen", notification.body, {
          headers: { authorization: WEBHOOK_BASIC },
          validateStatus: () => true,
        })
        expect(answer.status).toBe(200)
        await eventually(async () => (await recorded(orderId)).cancellation?.outcome === "failed", "the reversal's outcome to be applied")
        expect(await recorded(orderId)).toMatchObject({ status: "captured", cancellation: { outcome: "failed" } })
        await eventually(async () => (await failureAlerts(reversal)).length > 0, "the failure's alert")
        const [alert] = await failureAlerts(reversal)
        expect(alert).toMatchObject({ resource_type: "payment", resource_id: payment.id })
        expect(JSON.stringify(alert.data)).toContain(`The processor failed the cancel ${reversal} of payment ${payment.id} on order #`)
        // Medusa's own rows are unchanged: one capture of 21.00, no refund.
        const after = await orderPayment(orderId)
        expect([minor(after.captures), minor(after.refunds)]).toEqual([2100, 0])
      })

      it("a capture that succeeded and then failed (CAPTURE_FAILED) stops counting; a late success never undoes it; one alert", async () => {
        const { orderId, payment } = await order21(ADYEN)
        expect((await post(`/admin/payments/${payment.id}/capture`, {})).status).toBe(200)
        const captures = (await ADYEN.moves()).filter((m) => m.kind === "capture" && m.paymentId === payment.data.cnp_txn_id)
        expect(captures).toEqual([expect.objectContaining({ ok: true, amount: 2100 })])
        const outcome: OperationOutcome = {
          operation: "capture",
          paymentTransactionId: payment.data.cnp_txn_id,
          transactionId: captures[0].id,
          success: true,
          occurredAt: new Date().toISOString(),
        }
        expect(await apply(outcome)).toMatchObject({ effect: "applied", success: true })
        expect(await apply({ ...outcome, success: false, reason: "Capture failed at the scheme" })).toMatchObject({ effect: "applied", success: false })
        expect(await apply(outcome)).toMatchObject({ effect: "unchanged" })
        expect(await recorded(orderId)).toMatchObject({ status: "authorized", captures: [{ outcome: "failed", outcome_reason: "Capture failed at the scheme" }] })
        await eventually(async () => (await failureAlerts(captures[0].id)).length > 0, "the failure's alert")
        // The same failure delivered again: still one alert.
        expect(await apply({ ...outcome, success: false, reason: "Capture failed at the scheme" })).toMatchObject({ effect: "unchanged" })
        await new Promise((resolve) => setTimeout(resolve, 500))
        expect(await failureAlerts(captures[0].id)).toHaveLength(1)
      })

      it("an outcome waits for the payment's lock, which the admin's capture and refund routes hold", async () => {
        const { orderId, payment } = await order21(ADYEN)
        expect((await post(`/admin/payments/${payment.id}/capture`, { amount: 5 })).status).toBe(200)
        const capture = (await ADYEN.moves()).find((m) => m.kind === "capture" && m.paymentId === payment.data.cnp_txn_id)
        const locking = getContainer().resolve<ILockingModule>(Modules.LOCKING)
        const owner = "money-moves-test"
        await locking.acquire(paymentLockKey(payment.id), { ownerId: owner, expire: 30 })
        let settled = false
        const applying = apply({
          operation: "capture",
          paymentTransactionId: payment.data.cnp_txn_id,
          transactionId: String(capture?.id),
          success: true,
          occurredAt: new Date().toISOString(),
        }).finally(() => (settled = true))
        await new Promise((resolve) => setTimeout(resolve, 1500))
        expect(settled).toBe(false)
        expect((await recorded(orderId)).captures).toEqual([expect.objectContaining({ outcome: "pending" })])
        await locking.release(paymentLockKey(payment.id), { ownerId: owner })
        expect(await applying).toMatchObject({ effect: "applied" })
        expect((await recorded(orderId)).captures).toEqual([expect.objectContaining({ outcome: "succeeded" })])
      })

      it("a failure no payment records is retried for a day, then kept with why and raised, not dropped", async () => {
        const service = getContainer().resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
        const occurredAt = new Date().toISOString()
        const operation: OperationOutcome = {
          operation: "refund",
          paymentTransactionId: "ELSEWHERE0000001",
          transactionId: "ELSEWHEREREFUND1",
          success: false,
          reason: "Refund failed at the scheme",
          occurredAt,
        }
        const [id] = await service.storeProcessorEvents("adyen", [
          { key: "REFUND:ELSEWHEREREFUND1:false", occurredAt, kind: "operation", operation, data: { eventCode: "REFUND" } },
        ])
        await applyProcessorEventsWorkflow(getContainer()).run({ input: { gateway: "adyen", ids: [id] } })
        expect((await service.listProcessorEvents({ id: [id] }))[0]).toMatchObject({ processed_at: null, error: "no payment records this operation yet" })
        const dayLater = new Date(Date.now() + 25 * 3600_000).toISOString()
        await applyProcessorEventsWorkflow(getContainer()).run({ input: { gateway: "adyen", ids: [id], now: dayLater } })
        const [row] = await service.listProcessorEvents({ id: [id] })
        expect(row.processed_at).not.toBeNull()
        expect(row.error).toMatch(/failed refund ELSEWHEREREFUND1, which no payment of this store records/)
        await eventually(async () => (await failureAlerts("ELSEWHEREREFUND1")).length > 0, "the failure's alert")
        expect(await failureAlerts("ELSEWHEREREFUND1")).toEqual([
          expect.objectContaining({ resource_type: "processor_transaction", resource_id: "ELSEWHERE0000001" }),
        ])
      })
    })
  },
})
