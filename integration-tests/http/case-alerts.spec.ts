import { appTestRunner } from "../helpers/app-runner"
import type { IEventBusModuleService, INotificationModuleService, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { alertDueServiceScanCases } from "../../src/jobs/alert-servicescan-due-cases"
import { importServiceScanDisputeCases } from "../../src/jobs/_run-dispute-case-import"
import { syncServiceScanProofRequests } from "../../src/jobs/sync-servicescan-proof-requests"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import { ServiceScanEvents, type DisputeCaseRow } from "../../src/modules/servicescan/types"
import { checkoutWithCard } from "../helpers/checkout"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"
import { waitFor } from "../helpers/wait"
import { outsideWorldpayAuthorization } from "../helpers/outside-authorization"

/**
 * Case alerts through Medusa's Notification Module, with its local provider
 * serving `feed` (the admin's bell) and `email` (medusa-config.ts): cases
 * raised at the sandbox's Worldpay and imported for real, the due-soon job
 * run twice, evidence proven at the sandbox's ServiceScan, a decision carried
 * from the network. Counted in the Notification Module's own table, and read
 * back through `GET /admin/notifications` as the dashboard's bell does.
 * The module's policy for the whole suite: autoRespond "off"; alerts by
 * email with a template (the app reads both when it boots).
 */
reserveSandboxUrl()
process.env.SERVICESCAN_AUTO_RESPOND = "off"
process.env.SERVICESCAN_ALERT_EMAIL_TEMPLATE = "servicescan-case-alert"
jest.setTimeout(240_000)

const APPROVE = "4457119922390123"
const HOUR = 60 * 60 * 1000
const DAY = 24 * HOUR

type Transaction = { type: string; id: string; cnpTxnId: string; duplicate?: boolean }
type FeedItem = { id: string; to: string; channel: string; template: string; data: { title?: string; description?: string } }

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
    })
    afterAll(async () => {
      await sandbox?.close()
    })

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const notifications = () => container.resolve<INotificationModuleService>(Modules.NOTIFICATION)
    const dayOffset = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10)

    /** Every notification of one alert (its idempotency keys start with the alert's), per channel. */
    async function sentFor(alertKey: string) {
      const all = await notifications().listNotifications({}, { take: null, order: { created_at: "ASC" } })
      const mine = all.filter((n) => n.idempotency_key?.startsWith(`${alertKey}:`))
      return { feed: mine.filter((n) => n.channel === "feed"), email: mine.filter((n) => n.channel === "email") }
    }
    /**
     * Events reach the subscriber after the workflow ends, and a notification is stored `pending` before its provider
     * sends it: waits for `count` feed notifications, all sent, or times out answering what there is.
     */
    const feedOf = (alertKey: string, count = 1) =>
      waitFor(
        () => sentFor(alertKey),
        (sent) => sent.feed.length >= count && [...sent.feed, ...sent.email].every((n) => n.status === "success"),
        10_000
      )
    /** Lets a second delivery, if any were coming, arrive before counting again. */
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1_500))

    async function caseRow(caseId: string): Promise<DisputeCaseRow> {
      const [row] = (await service().listDisputeCases({ case_id: caseId }, { take: 1 })) as DisputeCaseRow[]
      return row
    }

    async function paidOrder() {
      const { formId, result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true })
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      const { body } = await sandboxFetch<{ items: Transaction[] }>("/__sandbox/processor/transactions?type=authorization")
      const authorization = body.items.filter((t) => !t.duplicate).at(-1) as Transaction
      await waitFor(() => service().listPaymentRefs({ order_id: result.order.id }), (refs) => refs.length > 0, 5_000)
      const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
        entity: "order",
        fields: ["display_id"],
        filters: { id: result.order.id },
      })
      return { orderId: result.order.id, displayId: (data[0] as { display_id: number }).display_id, scanId: formId, authorization }
    }

    async function raiseCase(body: Record<string, unknown>): Promise<string> {
      const { status, body: created } = await sandboxFetch<{ caseId: string }>("/__sandbox/chargebacks", { body })
      expect(status).toBe(201)
      return created.caseId
    }

    it("a case due in 3 days produces exactly one feed notification, and the next job run sends none", async () => {
      const { authorization, displayId } = await paidOrder()
      const dueIn3 = await raiseCase({ cnpTxnId: authorization.cnpTxnId, reasonCode: "10.4", replyBy: dayOffset(3) })
      // Beyond the default 5 days: not due soon yet.
      const dueIn10 = await raiseCase({ cnpTxnId: authorization.cnpTxnId, reasonCode: "10.4", replyBy: dayOffset(10) })
      expect(await importServiceScanDisputeCases(container)).toMatchObject({ matched: 2 })
      const soon = await caseRow(dueIn3)
      const later = await caseRow(dueIn10)
      const soonKey = `servicescan:case.due_soon:${soon.id}`

      expect(await alertDueServiceScanCases(container)).toEqual({ alerted: 1 })
      const first = await feedOf(soonKey)
      expect(first.feed).toHaveLength(1)
      expect(first.feed[0]).toMatchObject({
        to: "",
        template: "admin-ui",
        status: "success",
        data: {
          title: "Chargeback case due in 3 days",
          description: `Worldpay case ${dueIn3} on order #${displayId} waits for an answer by ${soon.reply_by}.`,
        },
      })
      // The template option is set: one email too, with the template's data and no card data.
      expect(first.email).toHaveLength(1)
      expect(first.email[0]).toMatchObject({ to: "disputes@example.com", template: "servicescan-case-alert", status: "success" })
      expect(first.email[0].data).toMatchObject({ event: "servicescan.case.due_soon", case_id: dueIn3, days_left: 3, reply_by: soon.reply_by })
      expect(JSON.stringify(first.email[0].data)).not.toMatch(/last4|card_type|4457|0123/)
      expect((await caseRow(dueIn3)).due_soon_alerted_at).not.toBeNull()
      expect((await caseRow(dueIn10)).due_soon_alerted_at).toBeNull()

      // The next run: nothing is due that was not announced.
      expect(await alertDueServiceScanCases(container)).toEqual({ alerted: 0 })
      // The same event delivered again (at-least-once delivery): the idempotency keys hold.
      await container.resolve<IEventBusModuleService>(Modules.EVENT_BUS).emit({
        name: ServiceScanEvents.CASE_DUE_SOON,
        data: { id: soon.id, case_id: dueIn3, gateway: "worldpay", order_id: soon.order_id, chargeback_id: soon.chargeback_id, reply_by: soon.reply_by, days_left: 3 },
      })
      await settle()
      const again = await sentFor(soonKey)
      expect(again.feed.map((n) => n.id)).toEqual(first.feed.map((n) => n.id))
      expect(again.email.map((n) => n.id)).toEqual(first.email.map((n) => n.id))
      expect((await sentFor(`servicescan:case.due_soon:${later.id}`)).feed).toHaveLength(0)

      // Eight days on, the other case is due in 2 days: announced once, then never again.
      const inEightDays = () => new Date(Date.now() + 8 * DAY)
      expect(await alertDueServiceScanCases(container, { now: inEightDays })).toEqual({ alerted: 1 })
      expect((await feedOf(`servicescan:case.due_soon:${later.id}`)).feed[0].data).toMatchObject({ title: "Chargeback case due in 2 days" })
      expect(await alertDueServiceScanCases(container, { now: inEightDays })).toEqual({ alerted: 0 })

      // What the admin's bell reads: the feed, for every admin (`to` ""), newest first.
      const { data } = await api.get(`/admin/notifications?channel=feed&to[]=&limit=50`, store.adminHeaders)
      const titles = (data.notifications as FeedItem[]).map((n) => n.data.title)
      expect(titles.filter((title) => title === "Chargeback case due in 3 days")).toHaveLength(1)
    })


    it("an unmatched case needs attention: one feed notification, however often it is imported", async () => {
      const caseId = await raiseCase({ cnpTxnId: await outsideWorldpayAuthorization("alerts"), reasonCode: "10.4", replyBy: dayOffset(12) })
      // Every unmatched case is tried again on each import (the sandbox's demo merchant has others): counted, not announced again.
      expect((await importServiceScanDisputeCases(container)).unmatched).toBeGreaterThanOrEqual(1)
      const row = await caseRow(caseId)
      expect(row.status).toBe("unmatched")
      const key = `servicescan:case.needs_attention:${row.id}:unmatched`
      const sent = await feedOf(key)
      expect(sent.feed).toHaveLength(1)
      expect(sent.feed[0].data).toEqual({
        title: "Chargeback case needs an order",
        description: `Worldpay case ${caseId} matches no payment of this store. Assign it to its order under Disputes, Unmatched cases before ${row.reply_by}.`,
      })

      await importServiceScanDisputeCases(container)
      await settle()
      expect((await sentFor(key)).feed).toHaveLength(1)
    })

    it("with autoRespond off, a case whose evidence completes needs an answer; the network's decision is announced", async () => {
      const { authorization, scanId, displayId } = await paidOrder()
      const caseId = await raiseCase({ cnpTxnId: authorization.cnpTxnId, reasonCode: "10.4", replyBy: dayOffset(20) })
      await importServiceScanDisputeCases(container)
      const row = await caseRow(caseId)
      const key = `servicescan:case.needs_attention:${row.id}:auto_respond_off`
      // The evidence is not complete yet (the proof request is pending): nobody is asked to act.
      await settle()
      expect((await sentFor(key)).feed).toHaveLength(0)

      await sandboxFetch(`/__sandbox/scans/${scanId}/label`, { body: { groundTruth: "valid" } })
      await syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + 4 * HOUR) })
      const sent = await feedOf(key)
      expect(sent.feed).toHaveLength(1)
      expect(sent.feed[0].data).toMatchObject({
        title: "Chargeback case needs an answer",
        description: expect.stringContaining(`Worldpay case ${caseId} on order #${displayId} has its evidence.`),
      })
      expect(sent.email).toHaveLength(1)
      // Polled again: nothing changed, nothing sent.
      await syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + 8 * HOUR) })
      await settle()
      expect((await sentFor(key)).feed).toHaveLength(1)

      // The network decides; the next import carries it to the chargeback and announces it once.
      expect((await sandboxFetch(`/__sandbox/chargebacks/${caseId}/decide`, { body: { outcome: "won" } })).status).toBe(200)
      await importServiceScanDisputeCases(container)
      const chargebackId = (await caseRow(caseId)).chargeback_id as string
      const decided = await feedOf(`servicescan:case.decided:${chargebackId}:won`)
      expect(decided.feed).toHaveLength(1)
      expect(decided.feed[0].data).toEqual({ title: "Chargeback won", description: `Worldpay case ${caseId} on order #${displayId} was won.` })
      await importServiceScanDisputeCases(container)
      await settle()
      expect((await sentFor(`servicescan:case.decided:${chargebackId}:won`)).feed).toHaveLength(1)

      // An admin corrects the outcome: a new decision, a new alert.
      const corrected = await api.post(`/admin/servicescan/chargebacks/${chargebackId}/outcome`, { outcome: "lost" }, store.adminHeaders)
      expect(corrected.status).toBe(200)
      expect((await feedOf(`servicescan:case.decided:${chargebackId}:lost`)).feed[0].data).toMatchObject({
        title: "Chargeback lost",
        description: expect.stringContaining("(set by an admin)"),
      })
    })
  },
})
