import { appTestRunner } from "../helpers/app-runner"
import type { MedusaContainer } from "@medusajs/framework/types"
import { randomBytes } from "node:crypto"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
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
