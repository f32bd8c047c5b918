import { appTestRunner } from "../helpers/app-runner"
import type { IFileModuleService, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { syncServiceScanProofRequests } from "../../src/jobs/sync-servicescan-proof-requests"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import type { DisputeCaseRow } from "../../src/modules/servicescan/types"
import { importServiceScanDisputeCases } from "../../src/jobs/_run-dispute-case-import"
import { runAutoResponses } from "../../src/jobs/_run-auto-responses"
import { recordPaymentRefsWorkflow } from "../../src/workflows/record-payment-refs"
import { recordPaymentRefsStep } from "../../src/workflows/steps/record-payment-refs"
import { createStep, createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { checkoutWithCard } from "../helpers/checkout"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"
import { adyenNotifications, DISPUTE_DRIVERS, pointAdyenWebhookAt } from "../helpers/disputes"
import { lastSeq, movesSince, PROCESSORS, TestProcessor, WORLDPAY } from "../helpers/processors"
import { outsideWorldpayAuthorization } from "../helpers/outside-authorization"
import { embeddedImages, pdfText } from "../../src/lib/evidence-pack/__tests__/fixtures"

/**
 * The evidence loop through the real app, with the sandbox playing ServiceScan
 * and Worldpay (cnpAPI and its Chargeback API) over HTTP: a chargeback raised
 * at the processor is imported onto the order it disputes, its scans go to
 * ServiceScan, and the answer goes back to the case, counted at the sandbox.
 * The module's policy for the whole suite: represent-valid-accept-invalid.
 */
reserveSandboxUrl()
process.env.SERVICESCAN_AUTO_RESPOND = "represent-valid-accept-invalid"
jest.setTimeout(240_000)

const APPROVE = "4457119922390123"
const HOUR = 60 * 60 * 1000

type SandboxCase = {
  caseId: string
  currentQueue: string
  replyByDay: string
  activities: { activityType: string; notes: string | null }[]
  documents: { documentId: string; contentType: string; size: number; sha256: string }[]
}
type Transaction = { type: string; id: string; orderId?: string; cnpTxnId: string; response: string; duplicate?: boolean }

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
      // Adyen pushes its disputes: the sandbox's demo merchant notifies this app.
      await pointAdyenWebhookAt(api.defaults.baseURL as string)
    })
    afterEach(async () => {
      await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
    })
    afterAll(async () => {
      await sandbox?.close()
    })

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const sandboxCase = async (caseId: string) => (await sandboxFetch<SandboxCase>(`/__sandbox/chargebacks/${caseId}`)).body
    const represents = (c: SandboxCase) => c.activities.filter((a) => a.activityType === "Merchant Represent")
    const acceptances = (c: SandboxCase) => c.activities.filter((a) => a.activityType === "Merchant Accepts Liability")
    const label = (scanId: string, groundTruth: "valid" | "invalid") =>
      sandboxFetch(`/__sandbox/scans/${scanId}/label`, { body: { groundTruth } })
    const importCases = () => importServiceScanDisputeCases(container)
    const poll = (offsetMs: number) => syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + offsetMs) })

    async function caseRow(caseId: string): Promise<DisputeCaseRow> {
      const [row] = (await service().listDisputeCases({ case_id: caseId }, { take: 1 })) as DisputeCaseRow[]
      return row
    }

    /** A paid order through a processor, its scan id, and its payment's id there, once the order's references are recorded. */
    async function paidOrderAt(processor: TestProcessor) {
      const mark = await lastSeq(processor)
      const { formId, result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true, providerId: processor.providerId })
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      const payment = movesSince(await processor.moves(), mark).find((m) => (m.kind === "authorization" || m.kind === "sale") && m.ok)
      if (!payment) {
        throw new Error(`no approved payment at ${processor.name}`)
      }
      // order.placed reaches the plugin's subscriber asynchronously.
      for (let i = 0; i < 50 && !(await service().listPaymentRefs({ order_id: result.order.id })).length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      return { orderId: result.order.id, scanId: formId, paymentId: payment.id }
    }

    /** A paid order through Worldpay, with its authorization's cnpTxnId (the Worldpay-only cases below). */
    async function paidOrder() {
      const { paymentId, ...order } = await paidOrderAt(WORLDPAY)
      return { ...order, authorization: { cnpTxnId: paymentId } }
    }

    async function raiseCase(body: Record<string, unknown>): Promise<string> {
      const { status, body: created } = await sandboxFetch<{ caseId: string }>("/__sandbox/chargebacks", { body })
      expect(status).toBe(201)
      return created.caseId
    }

    async function chargebackOf(caseId: string) {
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data } = await query.graph({
        entity: "chargeback",
        fields: ["id", "order_id", "status", "source", "external_id", "proof_requests.id", "proof_requests.remote_id", "dispute_case.*"],
        filters: { external_id: caseId },
      })
      return data[0] as {
        id: string
        order_id: string
        status: string
        source: string
        proof_requests: { id: string; remote_id: string | null }[]
        dispute_case: { response_status: string; case_id: string } | null
      }
    }

    const proofRequestCount = async () => (await sandboxFetch<{ items: unknown[] }>("/__sandbox/proof-requests")).body.items.length

    describe.each(PROCESSORS)("through $name", (processor) => {
      const disputes = DISPUTE_DRIVERS[processor.name]

      it("a dispute raised at the processor reaches its order, its scan is proven, and it is represented with the evidence pack, with no human", async () => {
        const { orderId, scanId, paymentId } = await paidOrderAt(processor)
        const proofsBefore = await proofRequestCount()
        const caseId = await disputes.raise(paymentId)
        // Worldpay: the import job reads it; Adyen: the sandbox pushes it to the webhook.
        await disputes.bringIn(container, caseId)

        const row = await caseRow(caseId)
        expect(row).toMatchObject({ gateway: processor.name, status: "matched", order_id: orderId, processor_transaction_id: paymentId, awaiting_merchant: true })
        const chargeback = await chargebackOf(caseId)
        expect(chargeback).toMatchObject({ order_id: orderId, source: "processor", status: "evidence_pending" })
        expect(chargeback.dispute_case).toMatchObject({ case_id: caseId })
        // On the order through the link, where the admin's order page looks (the import writes its links itself).
        const { data: linked } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
          entity: "order",
          fields: ["id", "chargebacks.id"],
          filters: { id: orderId },
        })
        expect((linked[0] as unknown as { chargebacks: { id: string }[] }).chargebacks).toEqual([expect.objectContaining({ id: chargeback.id })])
        // The proof request went out with the payment's scan id.
        const proofs = (await sandboxFetch<{ items: { id: string; scanIds: string[] }[] }>("/__sandbox/proof-requests")).body.items
        expect(proofs.length).toBe(proofsBefore + 1)
        expect(proofs.at(-1)?.scanIds).toEqual([scanId])

        await label(scanId, "valid")
        await poll(4 * HOUR)
        expect((await chargebackOf(caseId)).status).toBe("evidence_ready")
        // The policy acts on evidence_ready (a subscriber); calling it again is what the import run does, and sends nothing twice.
        await runAutoResponses(container)

        const atProcessor = await disputes.answer(caseId)
        expect(atProcessor).toMatchObject({ represents: 1, acceptances: 0 })
        expect(atProcessor.documents).toEqual([expect.objectContaining({ contentType: "application/pdf" })])
        if (processor.name === "adyen") {
          // Chosen by rule: the sandbox lists SupplyDefenseMaterial last, and the pack went in as its DefenseMaterial.
          expect(atProcessor).toMatchObject({ defenseReason: "SupplyDefenseMaterial", documents: [expect.objectContaining({ name: "DefenseMaterial" })] })
        } else {
          expect(atProcessor.documents[0].name).toBe(`servicescan-evidence-${caseId}.pdf`)
        }
        const answered = await caseRow(caseId)
        expect(answered).toMatchObject({ response_status: "represented", document_id: `servicescan-evidence-${caseId}.pdf` })
        expect(answered.represented_at).not.toBeNull()

        // The pack the processor holds is the one in the File Module (sealed there: see evidence-at-rest.spec.ts), and reads back as evidence.
        const sealedPack = await container.resolve<IFileModuleService>(Modules.FILE).getAsBuffer(answered.pack_file_id as string)
        expect(sealedPack.subarray(0, 4).toString("latin1")).toBe("SSE1")
        const pdf = service()
          .getEvidenceVault()
          .open(sealedPack, answered.pack_key as string, { kind: "evidence-pack", disputeCaseId: answered.id })
        const query = container.resolve(ContainerRegistrationKeys.QUERY)
        const {
          data: [order],
        } = await query.graph({ entity: "order", fields: ["display_id"], filters: { id: orderId } })
        const text = pdfText(new Uint8Array(pdf)).all
        expect(text).toContain(String(order.display_id))
        expect(text).toContain(caseId)
        expect(text).toContain(scanId)
        const image = await fetch(`${reserveSandboxUrl()}/disputes/image/${scanId}.jpg`, {
          headers: { "x-api-key": "sk_test_servicescan_demo" },
        })
        const served = Buffer.from(await image.arrayBuffer())
        const embedded = await embeddedImages(new Uint8Array(pdf))
        expect(embedded.map((e) => Buffer.from(e.bytes).equals(served))).toContain(true)
        expect(pdf.subarray(0, 5).toString()).toBe("%PDF-")
        expect(atProcessor.documents[0].size).toBe(pdf.length)

        // The admin downloads the same pack, behind its session.
        const download = await api.get(`/admin/servicescan/chargebacks/${chargeback.id}/evidence-pack`, {
          ...store.adminHeaders,
          responseType: "arraybuffer",
        })
        expect(download.headers["content-type"]).toBe("application/pdf")
        expect(Buffer.from(download.data).equals(pdf)).toBe(true)

        // Running everything again (and, for Adyen, the dispute's webhooks delivered again): no second
        // chargeback, proof request, document or defense.
        if (processor.name === "adyen") {
          for (const notification of await adyenNotifications(caseId)) {
            await sandboxFetch(`/__sandbox/adyen/notifications/${notification.id}/deliver`, { method: "POST" })
          }
        }
        await disputes.bringIn(container, caseId)
        await runAutoResponses(container)
        await poll(8 * HOUR)
        const again = await disputes.answer(caseId)
        expect(again.represents).toBe(1)
        expect(again.documents).toHaveLength(1)
        expect((await service().listChargebacks({ external_id: caseId })).length).toBe(1)
        expect((await chargebackOf(caseId)).proof_requests).toHaveLength(1)

        // The network decides: the outcome reaches the chargeback.
        await disputes.decideWon(container, caseId)
        expect((await caseRow(caseId)).outcome).toBe("won")
        expect((await chargebackOf(caseId)).status).toBe("won")
      })

      it("every scan likely true fraud: the policy accepts liability, once", async () => {
        const { scanId, paymentId } = await paidOrderAt(processor)
        const caseId = await disputes.raise(paymentId)
        await disputes.bringIn(container, caseId)
        await label(scanId, "invalid")
        await poll(4 * HOUR)
        expect((await chargebackOf(caseId)).status).toBe("no_evidence")
        await runAutoResponses(container)
        await runAutoResponses(container)
        const atProcessor = await disputes.answer(caseId)
        expect(atProcessor).toMatchObject({ acceptances: 1, represents: 0, documents: [] })
        expect(await caseRow(caseId)).toMatchObject({ response_status: "liability_accepted" })
      })
    })


    it("a case that matches no payment is kept unmatched with its data, and an admin assigns it to an order", async () => {
      const cnpTxnId = await outsideWorldpayAuthorization("outside")
      const caseId = await raiseCase({ cnpTxnId })
      const report = await importCases()
      expect(report.unmatched).toBeGreaterThanOrEqual(1)
      const row = await caseRow(caseId)
      expect(row).toMatchObject({ status: "unmatched", order_id: null, processor_transaction_id: cnpTxnId })
      expect(row.match_note).toContain(cnpTxnId)
      expect(await service().listChargebacks({ external_id: caseId })).toEqual([])

      const { data: list } = await api.get("/admin/servicescan/cases?status=unmatched", store.adminHeaders)
      expect(list.items).toContainEqual(expect.objectContaining({ case_id: caseId, status: "unmatched" }))

      // An import again keeps it, unmatched, once.
      await importCases()
      expect((await service().listDisputeCases({ case_id: caseId })).length).toBe(1)

      const { orderId } = await paidOrder()
      const assigned = await api.post(`/admin/servicescan/cases/${row.id}/assign`, { order_id: orderId }, store.adminHeaders)
      expect(assigned.data.dispute_case).toMatchObject({ status: "matched", order_id: orderId })
      const chargeback = await chargebackOf(caseId)
      expect(chargeback).toMatchObject({ order_id: orderId, source: "processor" })

      const again = await api.post(
        `/admin/servicescan/cases/${row.id}/assign`,
        { order_id: orderId },
        { ...store.adminHeaders, validateStatus: () => true }
      )
      expect(again.status).toBe(400)
      expect(again.data.message).toMatch(/already matched/)
    })

    it("a case past its reply-by day: nothing is sent", async () => {
      const { scanId, authorization } = await paidOrder()
      const yesterday = new Date(Date.now() - 24 * HOUR).toISOString().slice(0, 10)
      const caseId = await raiseCase({ cnpTxnId: authorization.cnpTxnId, replyBy: yesterday })
      await importCases()
      await label(scanId, "valid")
      await poll(4 * HOUR)
      await runAutoResponses(container)
      const atProcessor = await sandboxCase(caseId)
      expect(represents(atProcessor)).toHaveLength(0)
      expect(atProcessor.documents).toHaveLength(0)
      expect(await caseRow(caseId)).toMatchObject({ response_status: "expired" })
      // An admin cannot send it either.
      const chargeback = await chargebackOf(caseId)
      const answer = await api.post(
        `/admin/servicescan/chargebacks/${chargeback.id}/respond`,
        { action: "represent" },
        { ...store.adminHeaders, validateStatus: () => true }
      )
      expect(answer.status).toBe(400)
      expect(answer.data.message).toMatch(/reply-by day/)
    })

    it("under faults (30% errors, 10% resets, lost answers) each case is still represented exactly once, counted at the processor", async () => {
      const cases: string[] = []
      for (let i = 0; i < 4; i++) {
        const { scanId, authorization } = await paidOrder()
        cases.push(await raiseCase({ cnpTxnId: authorization.cnpTxnId }))
        await label(scanId, "valid")
      }
      const faults = await sandboxFetch("/__sandbox/faults", {
        body: { errorRate: 0.3, resetRate: 0.1, dropResponse: { route: "chargebacks.update", count: 2 } },
      })
      expect(faults.status).toBe(200)
      // What the jobs do over hours of a flaky processor: import, poll, answer; runs may fail. The
      // faults are random, so the runs go on until both lost answers have happened. Thirty runs were
      // not always enough: a first import reads 32 lists (a month back, then the actionable cases),
      // and one list that fails all three of its attempts fails the run, which is simply repeated.
      // Eight runs of this test alone needed 1 to 12 rounds, and one earlier run more than 30; a
      // round under faults takes well under a second.
      const lostAnswersLeft = async () =>
        (await sandboxFetch<{ dropResponse?: { count: number } | null }>("/__sandbox/faults")).body.dropResponse?.count ?? 0
      // The jobs' clock only moves forward, four hours a run, so every backoff a failure set comes due.
      let hours = 0
      const jobRun = async () => {
        hours += 4
        await importCases().catch(() => undefined)
        await poll(hours * HOUR).catch(() => undefined)
        await runAutoResponses(container).catch(() => undefined)
      }
      for (let run = 1; run <= 150 && (await lostAnswersLeft()) > 0; run++) {
        await jobRun()
      }
      // Both lost answers happened: two representments were processed without our hearing of it.
      expect(await lostAnswersLeft()).toBe(0)
      await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
      // Then the processor is well again, and the jobs go on. The loop above stops as soon as both
      // lost answers happened, which can be before a case's proof request was even submitted, and a
      // proof request is submitted in one run and its result read in a later one; so a few runs
      // (not one) bring every case to its answer. A case stuck for good still fails below.
      const unanswered = async () => {
        let count = 0
        for (const caseId of cases) {
          const answered = represents(await sandboxCase(caseId)).length > 0 && (await caseRow(caseId)).response_status === "represented"
          count += answered ? 0 : 1
        }
        return count
      }
      for (let run = 1; run <= 6 && (await unanswered()) > 0; run++) {
        await jobRun()
      }

      for (const caseId of cases) {
        const atProcessor = await sandboxCase(caseId)
        expect({ caseId, represents: represents(atProcessor).length, documents: atProcessor.documents.length }).toEqual({
          caseId,
          represents: 1,
          documents: 1,
        })
        expect(await caseRow(caseId)).toMatchObject({ response_status: "represented" })
        expect((await service().listChargebacks({ external_id: caseId })).length).toBe(1)
      }
    }, 600_000)

    it("recording payment references undoes only what its own run added when the workflow fails after it", async () => {
      const kept = await paidOrder()
      const added = await paidOrder()
      // The second order's reference as if its subscriber had never run: the failing run adds it.
      const [ref] = await service().listPaymentRefs({ order_id: added.orderId })
      await service().deletePaymentRefs([ref.id])

      const { errors } = await recordRefsThenFail(container).run({
        input: { order_ids: [kept.orderId, added.orderId] },
        throwOnError: false,
      })
      expect(errors.map((e) => e.error?.message)).toEqual(["a later step failed"])
      // Recorded before the run: left alone. Added by the run: removed with it.
      expect(await service().listPaymentRefs({ order_id: kept.orderId })).toHaveLength(1)
      expect(await service().listPaymentRefs({ order_id: added.orderId })).toHaveLength(0)

      // The step does add it when nothing fails after it, so the removal above was the compensation's.
      const { result } = await recordPaymentRefsWorkflow(container).run({ input: { order_ids: [kept.orderId, added.orderId] } })
      expect(result).toBe(1)
      expect(await service().listPaymentRefs({ order_id: added.orderId })).toHaveLength(1)
    })
  },
})

/** The order.placed step, then a step that fails: the engine compensates the first. */
const recordRefsThenFail = createWorkflow(
  "test-servicescan-record-payment-refs-then-fail",
  (input: WorkflowData<{ order_ids: string[] }>) => {
    recordPaymentRefsStep(input)
    createStep("test-servicescan-fail-after-refs", async () => {
      throw new Error("a later step failed")
    })()
    return new WorkflowResponse(undefined)
  }
)
