import { appTestRunner } from "../helpers/app-runner"
import type { ILockingModule, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { randomBytes, randomUUID } from "node:crypto"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import { drainProcessorEvents } from "../../src/jobs/_apply-processor-events"
import { runAutoResponses } from "../../src/jobs/_run-auto-responses"
import { importServiceScanDisputeCases } from "../../src/jobs/_run-dispute-case-import"
import { syncServiceScanProofRequests } from "../../src/jobs/sync-servicescan-proof-requests"
import { checkoutWithCard } from "../helpers/checkout"
import { adyenNotifications, DISPUTE_DRIVERS, eventually, pointAdyenWebhookAt, storedCase } from "../helpers/disputes"
import { ADYEN, lastSeq, movesSince } from "../helpers/processors"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"

/**
 * `POST /hooks/servicescan/adyen` through the real app: what a forged, a
 * stale and a replayed notification create (nothing), counted in our tables
 * (stored events, cases, chargebacks) and at the sandbox (proof requests);
 * and one defense per dispute under a lost Disputes API answer. Items are
 * signed here with the sandbox's own HMAC code, not the plugin's.
 */
reserveSandboxUrl()
process.env.SERVICESCAN_AUTO_RESPOND = "represent-valid-accept-invalid"
jest.setTimeout(240_000)

const APPROVE = "4457119922390123"
const HMAC_KEY = "5934AD24EED2B42F39D1F8BBAA602FF05E7D291AC95BC71EA5538AC41B6F0F56"
const BASIC = `Basic ${Buffer.from("adyen-webhook:demo-webhook-password").toString("base64")}`
const DAY = 24 * 60 * 60 * 1000

type Fields = Record<string, unknown> & { additionalData?: Record<string, string> }

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let sign: (item: Record<string, unknown>, key: string) => string

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
      await pointAdyenWebhookAt(api.defaults.baseURL as string)
      const { adyenHmacSignature } = await import("servicescan-sandbox")
      sign = (item, key) => adyenHmacSignature(item as Parameters<typeof adyenHmacSignature>[0], key)
    })
    afterEach(async () => {
      await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
    })
    afterAll(async () => {
      await sandbox?.close()
    })

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)

    /** What a notification could have created: stored events, cases and chargebacks here, proof requests at the sandbox. */
    async function effects() {
      return {
        events: (await service().listProcessorEvents({ gateway: "adyen" }, { take: null })).length,
        cases: (await service().listDisputeCases({ gateway: "adyen" }, { take: null })).length,
        chargebacks: (await service().listChargebacks({}, { take: null })).length,
        proofRequests: (await sandboxFetch<{ items: unknown[] }>("/__sandbox/proof-requests")).body.items.length,
      }
    }

    /** An Adyen payment of this store: its pspReference and reference. */
    async function paidAtAdyen() {
      const mark = await lastSeq(ADYEN)
      const { formId, result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true, providerId: ADYEN.providerId })
      if (result.type !== "order") throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      const payment = movesSince(await ADYEN.moves(), mark).find((m) => (m.kind === "authorization" || m.kind === "sale") && m.ok)
      if (!payment) throw new Error("no Adyen payment")
      for (let i = 0; i < 50 && !(await service().listPaymentRefs({ order_id: result.order.id })).length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      // Its AUTHORISATION notification (acknowledged and stored as ignored) is in before anything is counted.
      await eventually(async () => {
        const sent = await adyenNotifications(payment.id)
        return sent.length > 0 && sent.every((n) => n.status === "delivered")
      }, "the payment's AUTHORISATION notification")
      await settle()
      return { pspReference: payment.id, reference: payment.reference ?? "", scanId: formId, orderId: result.order.id }
    }

    /** A standard notification of one CHARGEBACK item, signed with `key`. */
    function chargeback(fields: Fields = {}, key = HMAC_KEY): string {
      const item = {
        pspReference: randomBytes(8).toString("hex").toUpperCase(),
        originalReference: "0000000000000000",
        merchantAccountCode: "ServiceScanDemoECOM",
        merchantReference: "ref",
        amount: { currency: "USD", value: 1000 },
        eventCode: "CHARGEBACK",
        eventDate: new Date().toISOString(),
        success: "true",
        reason: "Other Fraud-Card Absent Environment",
        ...fields,
      }
      const additionalData = {
        chargebackReasonCode: " 10.4",
        chargebackSchemeCode: "visa",
        defendable: "true",
        disputeStatus: "Unresponded",
        defensePeriodEndsAt: new Date(Date.now() + 14 * DAY).toISOString(),
        ...(fields.additionalData ?? {}),
        hmacSignature: sign(item, key),
      }
      return JSON.stringify({ live: "false", notificationItems: [{ NotificationRequestItem: { ...item, additionalData } }] })
    }

    const post = (body: string, authorization: string | null = BASIC) =>
      api.post("/hooks/servicescan/adyen", body, {
        headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
        validateStatus: () => true,
        transformRequest: [(data: unknown) => data],
      })

    /** Lets the subscriber's work of anything stored finish before counting. */
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1500))

    it("a forged notification (wrong HMAC key, or a signed amount changed) is refused with 401 and creates nothing", async () => {
      const { pspReference, reference } = await paidAtAdyen()
      const before = await effects()
      const wrongKey = await post(chargeback({ originalReference: pspReference, merchantReference: reference }, "00".repeat(32)))
      const tampered = await post(
        chargeback({ originalReference: pspReference, merchantReference: reference }).replace('"value":1000', '"value":999')
      )
      const unsigned = await post(chargeback({ originalReference: pspReference, merchantReference: reference }).replace(/"hmacSignature":"[^"]*"/, '"hmacSignature":""'))
      expect([wrongKey.status, tampered.status, unsigned.status]).toEqual([401, 401, 401])
      await settle()
      expect(await effects()).toEqual(before)
    })

    it("a correctly signed notification without the webhook's Basic credentials, or with wrong ones, is refused and creates nothing", async () => {
      const { pspReference, reference } = await paidAtAdyen()
      const before = await effects()
      const body = chargeback({ originalReference: pspReference, merchantReference: reference })
      const none = await post(body, null)
      const wrong = await post(body, `Basic ${Buffer.from("adyen-webhook:guess").toString("base64")}`)
      expect([none.status, wrong.status]).toEqual([401, 401])
      expect(JSON.stringify([none.data, wrong.data])).not.toContain("demo-webhook-password")
      await settle()
      expect(await effects()).toEqual(before)
    })

    it("a stale notification (eventDate beyond Adyen's 30 days of retries, plus a day) is acknowledged and creates nothing", async () => {
      const { pspReference, reference } = await paidAtAdyen()
      const before = await effects()
      const stale = await post(
        chargeback({ originalReference: pspReference, merchantReference: reference, eventDate: new Date(Date.now() - 32 * DAY).toISOString() })
      )
      // Acknowledged, so Adyen stops sending it; kept nowhere.
      expect(stale.status).toBe(200)
      expect(stale.data).toBe("[accepted]")
      await settle()
      expect(await effects()).toEqual(before)
    })

    it("a replayed notification (the same item again, and twice at once) creates one event, one case, one chargeback, one proof request", async () => {
      const { pspReference, reference, orderId } = await paidAtAdyen()
      const before = await effects()
      const body = chargeback({ originalReference: pspReference, merchantReference: reference })
      const disputeRef = JSON.parse(body).notificationItems[0].NotificationRequestItem.pspReference as string
      const first = await post(body)
      expect([first.status, first.data]).toEqual([200, "[accepted]"])
      await eventually(async () => !!(await storedCase(container, disputeRef))?.chargeback_id, "the case's chargeback")
      const replays = await Promise.all([post(body), post(body), post(body)])
      expect(replays.map((r) => [r.status, r.data])).toEqual([
        [200, "[accepted]"],
        [200, "[accepted]"],
        [200, "[accepted]"],
      ])
      await settle()
      expect(await effects()).toEqual({
        events: before.events + 1,
        cases: before.cases + 1,
        chargebacks: before.chargebacks + 1,
        proofRequests: before.proofRequests + 1,
      })
      expect(await storedCase(container, disputeRef)).toMatchObject({ status: "matched", order_id: orderId, processor_transaction_id: pspReference })
    })

    it("a notification with an event code the plugin does not act on is acknowledged, stored once and changes nothing else", async () => {
      await settle()
      const before = await effects()
      const ignored = await post(chargeback({ eventCode: "SCHEME_ARBITRATION_WON" }))
      expect([ignored.status, ignored.data]).toEqual([200, "[accepted]"])
      await settle()
      expect(await effects()).toEqual({ ...before, events: before.events + 1 })
    })

    it("a delivery stored but never applied (the process stopped after its [accepted]) is applied once by the next case import", async () => {
      const { pspReference, reference, orderId } = await paidAtAdyen()
      const before = await effects()
      const body = chargeback({ originalReference: pspReference, merchantReference: reference })
      const disputeRef = JSON.parse(body).notificationItems[0].NotificationRequestItem.pspReference as string
      // What the route stores, without the event that sets its work going.
      const webhook = service().getDisputeGateway("adyen")?.webhook
      const events = webhook?.receive({ body: Buffer.from(body), authorization: BASIC }) ?? []
      expect(await service().storeProcessorEvents("adyen", events)).toHaveLength(1)
      await settle()
      expect(await storedCase(container, disputeRef)).toBeUndefined()

      const later = () => new Date(Date.now() + 2 * 60_000)
      await importServiceScanDisputeCases(container, { now: later })
      expect(await storedCase(container, disputeRef)).toMatchObject({ status: "matched", order_id: orderId })
      // Applied once: the next import finds nothing left to apply.
      await importServiceScanDisputeCases(container, { now: later })
      expect(await effects()).toEqual({
        events: before.events + 1,
        cases: before.cases + 1,
        chargebacks: before.chargebacks + 1,
        proofRequests: before.proofRequests + 1,
      })
    })

    it("under a lost defendDispute answer, a dispute pushed by webhook is defended exactly once", async () => {
      const { pspReference, scanId } = await paidAtAdyen()
      const disputes = DISPUTE_DRIVERS.adyen
      const caseId = await disputes.raise(pspReference)
      await disputes.bringIn(container, caseId)
      await sandboxFetch(`/__sandbox/scans/${scanId}/label`, { body: { groundTruth: "valid" } })
      await sandboxFetch("/__sandbox/faults", { body: { dropResponse: { route: "adyen.disputes.defendDispute", count: 1 } } })
      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })
      await syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + 4 * 60 * 60 * 1000) })
      for (let run = 0; run < 5 && (await storedCase(container, caseId))?.response_status !== "represented"; run++) {
        await runAutoResponses(container).catch(() => undefined)
      }
      await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
      await runAutoResponses(container)
      const answer = await disputes.answer(caseId)
      expect(answer).toMatchObject({ represents: 1, defenseReason: "SupplyDefenseMaterial", documents: [expect.objectContaining({ name: "DefenseMaterial" })] })
      expect(await storedCase(container, caseId)).toMatchObject({ response_status: "represented" })
      const { body: stats } = await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")
      // The lost answer was asked again once (Adyen: "already defended", counted as done): two requests, one defense.
      expect(stats.requests["adyen.disputes.defendDispute"]).toBe(2)
      expect(stats.requests["adyen.disputes.supplyDefenseDocument"]).toBe(1)
    })

    /**
     * `count` placed orders paid at Adyen with their payment references, in bulk SQL (as
     * bench:adyen-webhooks seeds them): a checkout each would take minutes.
     */
    async function seedAdyenPayments(count: number): Promise<{ psp: string; reference: string; scanId: string }[]> {
      const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
      const run = randomBytes(3).toString("hex")
      const rows = Array.from({ length: count }, (_, i) => ({
        id: `${run}_${i}`,
        psp: `DP${run.toUpperCase()}${String(i).padStart(8, "0")}`,
        reference: `drain_ref_${run}_${i}`,
        scanId: randomUUID(),
      }))
      const col = (make: (row: (typeof rows)[number]) => string) => rows.map(make)
      const raw = JSON.stringify({ value: "20", precision: 20 })
      await knex.raw(`INSERT INTO "order" (id, currency_code, email, status, version) SELECT 'order_drain_' || id, 'usd', 'drain@example.com', 'pending', 1 FROM unnest(?::text[]) AS id`, [col((r) => r.id)])
      await knex.raw(
        `INSERT INTO payment_collection (id, currency_code, amount, raw_amount, authorized_amount, raw_authorized_amount, status)
         SELECT 'paycol_drain_' || id, 'usd', 20, ?::jsonb, 20, ?::jsonb, 'authorized' FROM unnest(?::text[]) AS id`,
        [raw, raw, col((r) => r.id)]
      )
      await knex.raw(
        `INSERT INTO payment_session (id, currency_code, amount, raw_amount, provider_id, data, payment_collection_id, status, authorized_at)
         SELECT 'payses_drain_' || id, 'usd', 20, ?::jsonb, ?, '{}'::jsonb, 'paycol_drain_' || id, 'authorized', now() FROM unnest(?::text[]) AS id`,
        [raw, ADYEN.providerId, col((r) => r.id)]
      )
      await knex.raw(
        `INSERT INTO payment (id, amount, raw_amount, currency_code, provider_id, data, payment_collection_id, payment_session_id)
         SELECT 'pay_drain_' || p.id, 20, ?::jsonb, 'usd', ?, jsonb_build_object('psp_reference', p.psp, 'reference', p.ref, 'scan_id', p.scan_id, 'status', 'authorized'),
                'paycol_drain_' || p.id, 'payses_drain_' || p.id
           FROM unnest(?::text[], ?::text[], ?::text[], ?::text[]) AS p(id, psp, ref, scan_id)`,
        [raw, ADYEN.providerId, col((r) => r.id), col((r) => r.psp), col((r) => r.reference), col((r) => r.scanId)]
      )
      await knex.raw(
        `INSERT INTO order_payment_collection (id, order_id, payment_collection_id) SELECT 'ordpay_drain_' || id, 'order_drain_' || id, 'paycol_drain_' || id FROM unnest(?::text[]) AS id`,
        [col((r) => r.id)]
      )
      await service().createPaymentRefs(
        rows.map((r) => ({ payment_id: `pay_drain_${r.id}`, order_id: `order_drain_${r.id}`, processor_transaction_id: r.psp, processor_order_id: r.reference, scan_id: r.scanId }))
      )
      return rows.map(({ psp, reference, scanId }) => ({ psp, reference, scanId }))
    }

    it("60 disputes delivered 4 at a time are each recorded once with their proof request, with no run waiting on the lock", async () => {
      await settle()
      const payments = await seedAdyenPayments(60)
      const disputes = payments.map(() => randomBytes(8).toString("hex").toUpperCase())
      const logger = container.resolve(ContainerRegistrationKeys.LOGGER)
      const logged: string[] = []
      const spies = (["error", "warn"] as const).map((level) =>
        jest.spyOn(logger, level).mockImplementation((...args: unknown[]) => {
          logged.push(String(args[0]))
        })
      )
      try {
        let next = 0
        const answers: [number, unknown][] = []
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (next < payments.length) {
              const i = next++
              const { psp, reference } = payments[i]
              const answer = await post(
                chargeback({ pspReference: disputes[i], originalReference: psp, merchantReference: reference, amount: { currency: "USD", value: 2000 } })
              )
              answers.push([answer.status, answer.data])
            }
          })
        )
        expect(answers).toEqual(payments.map(() => [200, "[accepted]"]))

        const knex = container.resolve(ContainerRegistrationKeys.PG_CONNECTION)
        const recorded = async () =>
          (
            await knex.raw(
              `SELECT count(*)::int AS cases, count(DISTINCT c.case_id)::int AS distinct_cases, count(DISTINCT cb.id)::int AS chargebacks,
                      count(pr.id)::int AS proofs_sent, count(DISTINCT pr.chargeback_id)::int AS distinct_proofs
                 FROM servicescan_dispute_case c
                 LEFT JOIN servicescan_chargeback cb ON cb.id = c.chargeback_id AND cb.deleted_at IS NULL
                 LEFT JOIN servicescan_proof_request pr ON pr.chargeback_id = cb.id AND pr.remote_id IS NOT NULL AND pr.deleted_at IS NULL
                WHERE c.gateway = 'adyen' AND c.deleted_at IS NULL AND c.case_id = ANY(?::text[])`,
              [disputes]
            )
          ).rows[0] as { cases: number; distinct_cases: number; chargebacks: number; proofs_sent: number; distinct_proofs: number }
        // Bounded: well under the catch-up's 60 s (which no run here is left for) on a loaded machine.
        await eventually(async () => (await recorded()).proofs_sent >= payments.length, "every dispute's proof request", 45_000)
        await settle()
        expect(await recorded()).toEqual({ cases: 60, distinct_cases: 60, chargebacks: 60, proofs_sent: 60, distinct_proofs: 60 })
        const { body } = await sandboxFetch<{ items: { scanIds: string[] }[] }>("/__sandbox/proof-requests")
        const asked = new Map<string, number>()
        for (const id of body.items.flatMap((item) => item.scanIds)) asked.set(id.toLowerCase(), (asked.get(id.toLowerCase()) ?? 0) + 1)
        // At the sandbox: one proof request per disputed payment's scan.
        expect(payments.map(({ scanId }) => asked.get(scanId) ?? 0)).toEqual(payments.map(() => 1))
        // Every event applied by the subscribers' drains, none left for the catch-up.
        const pending = await service().listProcessorEvents({ gateway: "adyen", processed_at: null, kind: "case" }, { take: null })
        expect(pending.filter((row) => disputes.includes(String(row.case_id)))).toEqual([])
        expect(logged.filter((line) => /Timed-out acquiring lock|webhook events failed/.test(line))).toEqual([])
      } finally {
        spies.forEach((spy) => spy.mockRestore())
      }
    })

    it("a drain tries each pending event once (an outcome no payment records stays pending, and it ends); a held gateway is not waited for", async () => {
      await settle()
      const [payment] = await seedAdyenPayments(1)
      const dispute = randomBytes(8).toString("hex").toUpperCase()
      const webhook = service().getDisputeGateway("adyen")?.webhook
      const receive = (body: string) => webhook?.receive({ body: Buffer.from(body), authorization: BASIC }) ?? []
      // Stored as the route stores them, without the event that sets a subscriber going.
      const [refundId, caseEventId] = await service().storeProcessorEvents("adyen", [
        ...receive(chargeback({ eventCode: "REFUND", originalReference: `NOPAY${randomBytes(6).toString("hex").toUpperCase()}`, additionalData: {} })),
        ...receive(chargeback({ pspReference: dispute, originalReference: payment.psp, merchantReference: payment.reference, amount: { currency: "USD", value: 2000 } })),
      ])
      expect(refundId && caseEventId).toBeTruthy()

      // Another drain holds the gateway: this one answers at once instead of queueing behind it.
      const locking = container.resolve<ILockingModule>(Modules.LOCKING)
      await locking.acquire("servicescan:processor-events:adyen", { ownerId: "another-drain", expire: 30 })
      const started = Date.now()
      try {
        expect(await drainProcessorEvents(container, "adyen")).toBeNull()
        expect(Date.now() - started).toBeLessThan(1000)
      } finally {
        await locking.release("servicescan:processor-events:adyen", { ownerId: "another-drain" })
      }

      const drained = await drainProcessorEvents(container, "adyen")
      expect(drained).toMatchObject({ cases: 1, chargebacks_recorded: 1, operations: 1 })
      expect(await storedCase(container, dispute)).toMatchObject({ status: "matched" })
      const [refund, caseEvent] = await Promise.all(
        [refundId, caseEventId].map(async (id) => (await service().listProcessorEvents({ id }, { take: 1 }))[0])
      )
      // Waits for its payment (a day) for the catch-up; the next drain tries it again, once.
      expect(refund.processed_at).toBeNull()
      expect(caseEvent.processed_at).not.toBeNull()
      expect(await drainProcessorEvents(container, "adyen")).toMatchObject({ cases: 0, operations: 1 })
    })

    it("the case import deletes settled events past twice the stale bound, and keeps every case's events", async () => {
      const DAY = 24 * 60 * 60 * 1000
      const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString()
      // Adyen sends an AUTHORISATION for every payment: without a purge the table grows by one row per order.
      const stored = (key: string, kind: "case" | "operation" | "ignored", daysAgo: number) => ({
        key: `purge-test:${key}`,
        kind,
        occurredAt: at(daysAgo),
        data: {},
        ...(kind === "case" ? { caseId: "purge-test-case" } : {}),
      })
      const ids = await service().storeProcessorEvents("adyen", [
        stored("old-ignored", "ignored", 70),
        stored("recent-ignored", "ignored", 40),
        stored("old-operation-applied", "operation", 70),
        stored("old-operation-unapplied", "operation", 70),
        stored("old-case", "case", 70),
      ])
      expect(ids).toHaveLength(5)
      const keyed = async () =>
        new Map((await service().listProcessorEvents({ gateway: "adyen" }, { take: null })).map((row) => [row.event_key, row.id]))
      const byKey = await keyed()
      const applied = ["old-operation-applied", "old-case"].map((key) => ({ id: byKey.get(`purge-test:${key}`) ?? "", processed_at: new Date() }))
      await service().updateProcessorEvents(applied)

      await importServiceScanDisputeCases(container)

      const left = [...(await keyed()).keys()].filter((key) => key.startsWith("purge-test:")).sort()
      // Kept: younger than 62 days; an operation still waiting for its payment; a case's event, however old.
      expect(left).toEqual(["purge-test:old-case", "purge-test:old-operation-unapplied", "purge-test:recent-ignored"])
    })
  },
})
