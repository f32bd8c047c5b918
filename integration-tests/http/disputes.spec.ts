import { appTestRunner } from "../helpers/app-runner"
import { staticEvidenceFiles } from "../helpers/static-files"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { MedusaContainer } from "@medusajs/framework/types"
import { rm } from "node:fs/promises"
import { join } from "node:path"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore, SYSTEM_PROVIDER_ID } from "../helpers/store"
import { checkoutWithCard, completeCart, startCheckout } from "../helpers/checkout"
import { waitFor } from "../helpers/wait"
import { syncServiceScanProofRequests } from "../../src/jobs/sync-servicescan-proof-requests"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import { signWebhookPayload } from "../../src/modules/servicescan/lifecycle/webhook-signature"
import { recordChargebackWorkflow, RecordChargebackWorkflowInput } from "../../src/workflows/record-chargeback"
import { createStep, createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"

/**
 * The disputes feature through the real app, with the real sandbox over HTTP:
 * checkout with the provider, chargebacks arriving by webhook and admin API,
 * the poll job, evidence on the order, the image proxy and the failure modes.
 * One app boot for all of it (a boot costs ~10 s here).
 */
reserveSandboxUrl()
jest.setTimeout(180_000)

const APPROVE = "4457119922390123"
const SECRET_KEY = "sk_test_servicescan_demo"
const WEBHOOK_SECRET = "whsec_test_servicescan_demo_0123456789"
const HOUR = 60 * 60 * 1000
const FRAUDULENT = "This scan was judged fraudulent; no image is available"

type RemoteProof = { id: string; scanIds: string[]; status: string }
type Chargeback = {
  id: string
  external_id: string
  order_id: string
  status: string
  extra_scan_ids: string[]
  proof_requests: {
    id: string
    remote_id: string | null
    status: string
    scan_ids: string[]
    last_error: string | null
    scans: { scan_id: string; ground_truth: string | null; archived_at: string | null }[]
  }[]
}

let externalIds = 0
const nextExternalId = () => `dp_${Date.now().toString(36)}_${++externalIds}`

/**
 * `recordChargebackWorkflow` as a step of a caller that fails right after it:
 * the recording is rolled back by its own compensations, as it would be when
 * another store's dispute handler calls it and then fails.
 */
const failAfterRecording = createStep("test-fail-after-recording", async () => {
  throw new Error("The caller failed after recording (a test's failure)")
})
const recordThenFailWorkflow = createWorkflow(
  "test-record-chargeback-then-fail",
  (input: WorkflowData<RecordChargebackWorkflowInput>) => {
    const recorded = recordChargebackWorkflow.runAsStep({ input })
    failAfterRecording()
    return new WorkflowResponse(recorded)
  }
)

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    const evidenceFiles = staticEvidenceFiles()

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
      await evidenceFiles.remember()
    })

    afterEach(async () => {
      await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
    })

    afterAll(async () => {
      await sandbox?.close()
      await evidenceFiles.forget()
    })

    // ---- helpers ---------------------------------------------------------

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)

    /** The poll job, with a clock that can be moved forward instead of waiting hours. */
    const runJob = (offsetMs = 0) =>
      syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + offsetMs) })

    async function paidOrder(): Promise<{ orderId: string; scanId: string }> {
      const { formId, result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true })
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      return { orderId: result.order.id, scanId: formId }
    }

    /** An order paid with Medusa's system provider: no scan ids at all. */
    async function orderWithoutScans(): Promise<string> {
      const checkout = await startCheckout(api, store, { providerId: SYSTEM_PROVIDER_ID })
      const result = await completeCart(api, store, checkout)
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      return result.order.id
    }

    async function newScan(): Promise<string> {
      const { body } = await sandboxFetch<{ scanId: string }>("/__sandbox/scans", { body: { accountId: sandbox.demo.accountId } })
      return body.scanId
    }

    const label = (scanId: string, groundTruth: "valid" | "invalid" | "fraud") =>
      sandboxFetch(`/__sandbox/scans/${scanId}/label`, { body: { groundTruth } })
    const faults = (body: Record<string, unknown>) => sandboxFetch("/__sandbox/faults", { body })
    const remoteProofs = async () => (await sandboxFetch<{ items: RemoteProof[] }>("/__sandbox/proof-requests")).body.items
    const stats = async () => (await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")).body.requests

    function webhook(
      body: unknown,
      options: { secret?: string; timestamp?: number; header?: string | null; raw?: string } = {}
    ) {
      const raw = options.raw ?? JSON.stringify(body)
      const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000)
      const signature =
        options.header === undefined ? signWebhookPayload(raw, options.secret ?? WEBHOOK_SECRET, timestamp) : options.header
      return api.post("/hooks/servicescan/chargebacks", raw, {
        headers: {
          "content-type": "application/json",
          ...(signature === null ? {} : { "x-servicescan-signature": signature }),
        },
        validateStatus: () => true,
      })
    }

    const chargebackBody = (orderId: string, extra: Record<string, unknown> = {}) => ({
      external_id: nextExternalId(),
      order_id: orderId,
      amount: "10.50",
      currency_code: "usd",
      reason: "fraudulent",
      reason_code: "10.4",
      due_by: new Date(Date.now() + 7 * 24 * HOUR).toISOString(),
      ...extra,
    })

    const admin = {
      get: (path: string) => api.get(path, { ...store.adminHeaders, validateStatus: () => true }),
      post: (path: string, body: unknown) => api.post(path, body, { ...store.adminHeaders, validateStatus: () => true }),
    }

    async function getChargeback(id: string): Promise<Chargeback> {
      const { status, data } = await admin.get(`/admin/servicescan/chargebacks/${id}`)
      expect(status).toBe(200)
      return data.chargeback
    }

    /** Records a chargeback carrying the given scan ids (attached by an admin), on an order without its own. */
    async function chargebackWithScans(scanIds: string[], orderId?: string): Promise<Chargeback> {
      const { status, data } = await admin.post("/admin/servicescan/chargebacks", {
        ...chargebackBody(orderId ?? (await orderWithoutScans())),
        scan_ids: scanIds,
      })
      expect(status).toBe(201)
      return data.chargeback
    }

    async function sandboxImage(scanId: string): Promise<Buffer> {
      const response = await fetch(`${sandbox.url}/disputes/image/${scanId}.jpg`, { headers: { "x-api-key": SECRET_KEY } })
      expect(response.status).toBe(200)
      return Buffer.from(await response.arrayBuffer())
    }

    const proxiedImage = (scanId: string, query = "") =>
      api.get(`/admin/servicescan/scans/${scanId}/image${query}`, {
        ...store.adminHeaders,
        responseType: "arraybuffer",
        validateStatus: () => true,
      })
    const errorBody = (data: ArrayBuffer) => JSON.parse(Buffer.from(data).toString("utf8"))

    /** Lets the archive subscriber finish before a test ends (the next test starts from a restored database). */
    async function waitForArchives(chargebackIds: string[]): Promise<void> {
      await waitFor(
        () =>
          service().listScanEvidences(
            { proof_request: { chargeback_id: chargebackIds }, ground_truth: "valid" },
            { select: ["id", "archived_at", "archive_error"], take: null }
          ),
        (rows) => rows.every((row) => row.archived_at || row.archive_error),
        10_000
      )
    }

    // ---- end to end --------------------------------------------------------

    describe("from checkout to evidence on the order", () => {
      it("checkout, webhook chargeback, pending, labelled, job run, complete with ground truth and archived image", async () => {
        const { orderId, scanId } = await paidOrder()

        const delivery = await webhook(chargebackBody(orderId))
        expect(delivery.status).toBe(200)
        expect(delivery.data).toEqual({ chargeback_id: expect.any(String), created: true })
        const chargebackId: string = delivery.data.chargeback_id

        // The proof request went out at once, with the payment's scan id.
        let chargeback = await getChargeback(chargebackId)
        expect(chargeback.status).toBe("evidence_pending")
        expect(chargeback.proof_requests).toHaveLength(1)
        const [proof] = chargeback.proof_requests
        expect(proof).toMatchObject({ status: "pending", scan_ids: [scanId], remote_id: expect.any(String) })
        expect((await remoteProofs()).filter((p) => p.id === proof.remote_id)).toEqual([
          expect.objectContaining({ scanIds: [scanId], status: "pending" }),
        ])

        // Not due yet: the job respects the poll interval and makes no call.
        const before = await stats()
        expect(await runJob()).toMatchObject({ claimed: 0 })
        expect((await stats())["disputes.proof.get"]).toBe(before["disputes.proof.get"])

        // Three and a half hours later, still pending at the service.
        expect(await runJob(3.5 * HOUR)).toMatchObject({ claimed: 1, still_pending: 1, completed: 0 })
        expect((await getChargeback(chargebackId)).status).toBe("evidence_pending")

        await label(scanId, "valid")
        expect(await runJob(8 * HOUR)).toMatchObject({ claimed: 1, completed: 1 })

        const query = container.resolve(ContainerRegistrationKeys.QUERY)
        const { data: orders } = await query.graph({
          entity: "order",
          fields: ["id", "chargebacks.*", "chargebacks.proof_requests.*", "chargebacks.proof_requests.scans.*"],
          filters: { id: orderId },
        })
        const onOrder = (orders[0] as unknown as { chargebacks: Chargeback[] }).chargebacks
        expect(onOrder).toHaveLength(1)
        expect(onOrder[0]).toMatchObject({ id: chargebackId, status: "evidence_ready" })
        expect(onOrder[0].proof_requests[0]).toMatchObject({ status: "complete" })
        expect(onOrder[0].proof_requests[0].scans).toEqual([
          expect.objectContaining({ scan_id: scanId, ground_truth: "valid" }),
        ])

        // The completion event archives the image in the File Module (a subscriber).
        chargeback = await waitFor(
          () => getChargeback(chargebackId),
          (c) => Boolean(c.proof_requests[0].scans[0].archived_at),
          10_000
        )
        expect(chargeback.proof_requests[0].scans[0].archived_at).toEqual(expect.any(String))

        // The service's image URL (it needs the secret key) and the archive's location stay server-side.
        const asked = await admin.get(
          `/admin/servicescan/chargebacks/${chargebackId}?fields=${encodeURIComponent("+proof_requests.scans.image_url,+proof_requests.scans.archived_file_url")}`
        )
        expect(asked.status).toBe(200)
        expect(asked.data.chargeback.proof_requests[0].scans[0]).not.toHaveProperty("image_url")
        expect(asked.data.chargeback.proof_requests[0].scans[0]).not.toHaveProperty("archived_file_url")

        const expected = await sandboxImage(scanId)
        const inline = await proxiedImage(scanId)
        expect(inline.status).toBe(200)
        expect(inline.headers["content-type"]).toBe("image/jpeg")
        expect(inline.headers["content-disposition"]).toBe(`inline; filename="${scanId}.jpg"`)
        expect(inline.headers["cache-control"]).toBe("private, no-store, no-transform")
        expect(inline.headers["x-servicescan-image-source"]).toBe("archive")
        expect(Buffer.from(inline.data)).toEqual(expected)

        const download = await proxiedImage(scanId, "?download=1")
        expect(download.headers["content-disposition"]).toBe(`attachment; filename="${scanId}.jpg"`)
        expect(Buffer.from(download.data)).toEqual(expected)
        // The key never reaches the admin's browser.
        expect(JSON.stringify(download.headers)).not.toContain(SECRET_KEY)

        // The archived copy is gone (a wiped local store): ServiceScan still has it.
        const [row] = await service().listScanEvidences({ scan_id: scanId }, { select: ["archived_file_id"] })
        await rm(join(process.cwd(), "static", row.archived_file_id!))
        const fallback = await proxiedImage(scanId)
        expect(fallback.status).toBe(200)
        expect(fallback.headers["x-servicescan-image-source"]).toBe("servicescan")
        expect(Buffer.from(fallback.data)).toEqual(expected)
      })

      it("streams the image from ServiceScan when it is not archived", async () => {
        const scan = await newScan()
        const chargeback = await chargebackWithScans([scan])
        await label(scan, "valid")
        const expected = await sandboxImage(scan)
        const response = await proxiedImage(scan)
        expect(response.status).toBe(200)
        expect(response.headers["x-servicescan-image-source"]).toBe("servicescan")
        expect(Buffer.from(response.data)).toEqual(expected)
        expect(chargeback.status).toBe("evidence_pending")
      })
    })

    // ---- image proxy error rows ------------------------------------------------

    describe("image proxy: every error row maps to a clear admin error", () => {
      it("refuses what is not a UUIDv4, naming the field, and scans that are not this store's", async () => {
        const bad = await proxiedImage("not-a-uuid")
        expect(bad.status).toBe(400)
        expect(errorBody(bad.data).message).toMatch(/scanId/)

        const stranger = await proxiedImage(await newScan())
        expect(stranger.status).toBe(404)
        expect(errorBody(stranger.data).message).toMatch(/No chargeback evidence of this store has scan/)

        const anonymous = await api.get(`/admin/servicescan/scans/${await newScan()}/image`, { validateStatus: () => true })
        expect(anonymous.status).toBe(401)
      })

      it("maps not labelled (404), fraud (403), image lost (404), ownership check failure (502)", async () => {
        const [unlabelled, fraud, lost, owned] = [await newScan(), await newScan(), await newScan(), await newScan()]
        await chargebackWithScans([unlabelled, fraud, lost, owned])

        const notYet = await proxiedImage(unlabelled)
        expect(notYet.status).toBe(404)
        expect(errorBody(notYet.data)).toMatchObject({ code: "image_not_available", message: expect.stringMatching(/not been labelled/) })

        await label(fraud, "fraud")
        const fraudulent = await proxiedImage(fraud)
        expect(fraudulent.status).toBe(403)
        expect(errorBody(fraudulent.data)).toMatchObject({ code: "scan_fraudulent", message: FRAUDULENT })

        await label(lost, "valid")
        await sandboxFetch(`/__sandbox/scans/${lost}/image`, { method: "DELETE" })
        const missing = await proxiedImage(lost)
        expect(missing.status).toBe(404)
        expect(errorBody(missing.data)).toMatchObject({ code: "image_missing", message: expect.stringMatching(/no longer locate/) })

        await label(owned, "valid")
        await faults({ ownershipCheck: "fail" })
        const ownership = await proxiedImage(owned)
        expect(ownership.status).toBe(502)
        expect(errorBody(ownership.data)).toMatchObject({ code: "ownership_check_failed" })
      })

      it("answers 403 for a scan our evidence already marks fraudulent, without asking the service", async () => {
        const scan = await newScan()
        const chargeback = await chargebackWithScans([scan])
        await label(scan, "invalid")
        await admin.post(`/admin/servicescan/chargebacks/${chargeback.id}/check`, {})
        expect((await getChargeback(chargeback.id)).proof_requests[0].scans[0].ground_truth).toBe("invalid")

        const before = (await stats())["disputes.image.get"]
        const response = await proxiedImage(scan)
        expect(response.status).toBe(403)
        expect(errorBody(response.data).message).toBe(FRAUDULENT)
        expect((await stats())["disputes.image.get"]).toBe(before)
      })

      it("maps a refused key to a configuration error and an unavailable service to a gateway error", async () => {
        const scan = await newScan()
        await chargebackWithScans([scan])
        await label(scan, "valid")

        await faults({ keyLookup: "fail" })
        const refused = await proxiedImage(scan)
        expect(refused.status).toBe(502)
        expect(errorBody(refused.data)).toMatchObject({ code: "configuration_error", message: expect.stringMatching(/secretKey/) })
        expect(Buffer.from(refused.data).toString()).not.toContain(SECRET_KEY)

        await faults({ keyLookup: null, errorRate: 1 })
        const down = await proxiedImage(scan)
        expect(down.status).toBe(502)
        expect(errorBody(down.data)).toMatchObject({ code: "upstream_error", message: expect.stringMatching(/503/) })

        // The health check's probe lifts the configuration error once the key works again.
        await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
        const { data } = await admin.get("/admin/servicescan/health")
        expect(data.health).toMatchObject({ ok: true, configuration_error: null })
      })
    })

    // ---- webhook ---------------------------------------------------------------

    describe("webhook", () => {
      it("records the same delivery once: one chargeback, one proof request, even when concurrent", async () => {
        const { orderId, scanId } = await paidOrder()
        const body = chargebackBody(orderId)
        const first = await webhook(body)
        const second = await webhook(body)
        const [third, fourth] = await Promise.all([webhook(body), webhook(body)])
        expect(first.data).toMatchObject({ created: true })
        for (const repeat of [second, third, fourth]) {
          expect(repeat.status).toBe(200)
          expect(repeat.data).toEqual({ chargeback_id: first.data.chargeback_id, created: false })
        }
        const { data } = await admin.get(`/admin/servicescan/chargebacks?order_id=${orderId}`)
        expect(data.count).toBe(1)
        expect((await remoteProofs()).filter((p) => p.scanIds.includes(scanId))).toHaveLength(1)

        // The same dispute id on another order is an upstream mistake, not a repeat.
        const otherOrderId = await orderWithoutScans()
        const conflict = await webhook({ ...body, order_id: otherOrderId })
        expect(conflict.status).toBe(422)
        expect(conflict.data.message).toBe(
          `Chargeback ${body.external_id} is already recorded on order ${orderId}, not ${otherOrderId}`
        )
        expect((await admin.get(`/admin/servicescan/chargebacks?order_id=${otherOrderId}`)).data.count).toBe(0)
      })

      it("keeps, on its order, a rolled-back chargeback whose proof request may exist at ServiceScan", async () => {
        const { orderId, scanId } = await paidOrder()
        const body = chargebackBody(orderId)
        // The PUT is processed by ServiceScan, its answer lost: the proof request may exist there.
        await faults({ dropResponse: { route: "disputes.proofRequest.create", count: 1 } })
        const { errors } = await recordThenFailWorkflow(container).run({
          input: { ...body, amount: "10.50", source: "api" },
          throwOnError: false,
        })
        expect(errors[0]?.error?.message).toMatch(/a test's failure/)
        await sandboxFetch("/__sandbox/faults", { method: "DELETE" })

        const { data } = await admin.get(`/admin/servicescan/chargebacks?order_id=${orderId}&fields=${encodeURIComponent("+proof_requests.status")}`)
        expect(data.items).toEqual([expect.objectContaining({ external_id: body.external_id, proof_requests: [expect.objectContaining({ status: "submitting" })] })])
        // Still on the order through the link, where the admin's order page looks.
        const { data: orders } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
          entity: "order",
          fields: ["chargebacks.external_id"],
          filters: { id: orderId },
        })
        expect(orders[0].chargebacks).toEqual([expect.objectContaining({ external_id: body.external_id })])
        // The dispute delivered again is "already recorded": no second proof request goes out.
        expect((await webhook(body)).data).toMatchObject({ created: false })
        expect((await remoteProofs()).filter((p) => p.scanIds.includes(scanId))).toHaveLength(1)
      })

      it("removes a rolled-back chargeback whose proof request never left", async () => {
        const { orderId } = await paidOrder()
        const body = chargebackBody(orderId)
        await faults({ errorRate: 1 })
        await recordThenFailWorkflow(container).run({ input: { ...body, source: "api" }, throwOnError: false })
        await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
        expect((await admin.get(`/admin/servicescan/chargebacks?order_id=${orderId}`)).data.count).toBe(0)
        expect((await webhook(body)).data).toMatchObject({ created: true })
      })

      it("answers 401 to a bad signature, a stale or future timestamp, a missing header and a tampered body", async () => {
        const orderId = await orderWithoutScans()
        const body = chargebackBody(orderId)
        const now = Math.floor(Date.now() / 1000)

        const wrongSecret = await webhook(body, { secret: "whsec_someone_else_0123456789" })
        expect(wrongSecret.status).toBe(401)
        expect(wrongSecret.data.message).toMatch(/does not match/)

        const stale = await webhook(body, { timestamp: now - 301 })
        expect(stale.status).toBe(401)
        expect(stale.data.message).toMatch(/replay window/)
        // The exact edges (±300 s, ±301 s) are the signature's unit spec's, on a fixed clock. Here the
        // server's clock runs on while the calls above take their time, so a future stamp keeps a margin.
        expect((await webhook(body, { timestamp: Math.floor(Date.now() / 1000) + 360 })).status).toBe(401)

        const missing = await webhook(body, { header: null })
        expect(missing.status).toBe(401)
        expect(missing.data.message).toMatch(/Missing x-servicescan-signature/)
        expect((await webhook(body, { header: "sha256=abc" })).status).toBe(401)

        const signedFor = JSON.stringify(body)
        const tampered = await webhook(body, {
          raw: signedFor.replace('"10.50"', '"1050.00"'),
          header: signWebhookPayload(signedFor, WEBHOOK_SECRET, now),
        })
        expect(tampered.status).toBe(401)

        const { data } = await admin.get(`/admin/servicescan/chargebacks?order_id=${orderId}`)
        expect(data.count).toBe(0)
      })

      it("validates a signed body: 400 naming the field, 404 for an unknown order", async () => {
        const invalid = await webhook({ ...chargebackBody("order_x"), currency_code: "dollars" })
        expect(invalid.status).toBe(400)
        expect(invalid.data.message).toMatch(/currency_code/)

        const noAmount = await webhook({ ...chargebackBody("order_x"), amount: undefined })
        expect(noAmount.status).toBe(400)
        expect(noAmount.data.message).toMatch(/amount/)

        const unknownOrder = await webhook(chargebackBody("order_does_not_exist"))
        expect(unknownOrder.status).toBe(404)
        expect(unknownOrder.data.message).toMatch(/order_does_not_exist/)
      })
    })

    // ---- admin API ----------------------------------------------------------

    describe("admin API", () => {
      it("records without scans as no_evidence, then attaching scan ids starts a proof request", async () => {
        const orderId = await orderWithoutScans()
        const { status, data } = await admin.post("/admin/servicescan/chargebacks", chargebackBody(orderId))
        expect(status).toBe(201)
        expect(data.chargeback).toMatchObject({ status: "no_evidence", proof_requests: [], source: "admin" })

        const badIds = await admin.post(`/admin/servicescan/chargebacks/${data.chargeback.id}/scans`, { scan_ids: ["nope"] })
        expect(badIds.status).toBe(400)
        expect(badIds.data.message).toMatch(/scan_ids must be a UUIDv4/)

        const scan = await newScan()
        const attached = await admin.post(`/admin/servicescan/chargebacks/${data.chargeback.id}/scans`, {
          scan_ids: [scan.toUpperCase()],
        })
        expect(attached.status).toBe(200)
        expect(attached.data.chargeback).toMatchObject({ status: "evidence_pending", extra_scan_ids: [scan] })
        expect(attached.data.chargeback.proof_requests).toEqual([
          expect.objectContaining({ status: "pending", scan_ids: [scan] }),
        ])

        // Attaching the same scan again asks nothing new.
        const again = await admin.post(`/admin/servicescan/chargebacks/${data.chargeback.id}/scans`, { scan_ids: [scan] })
        expect(again.data.proof_request_id).toBeNull()
        expect(again.data.chargeback.proof_requests).toHaveLength(1)

        // Check now: the label is read at once, without waiting for the poll interval.
        await label(scan, "valid")
        const checked = await admin.post(`/admin/servicescan/chargebacks/${data.chargeback.id}/check`, {})
        expect(checked.status).toBe(200)
        expect(checked.data.chargeback.status).toBe("evidence_ready")
        expect(checked.data.check).toMatchObject({ completed: 1 })

        const outcome = await admin.post(`/admin/servicescan/chargebacks/${data.chargeback.id}/outcome`, { outcome: "won" })
        expect(outcome.status).toBe(200)
        expect(outcome.data.chargeback.status).toBe("won")
        const late = await admin.post(`/admin/servicescan/chargebacks/${data.chargeback.id}/scans`, { scan_ids: [await newScan()] })
        expect(late.status).toBe(400)
        expect(late.data.message).toMatch(/is won; no evidence can be added/)
      })

      it("is idempotent by external id and validates input without a 5xx", async () => {
        const orderId = await orderWithoutScans()
        const body = chargebackBody(orderId)
        expect((await admin.post("/admin/servicescan/chargebacks", body)).status).toBe(201)
        const repeat = await admin.post("/admin/servicescan/chargebacks", body)
        expect(repeat.status).toBe(200)
        expect(repeat.data.created).toBe(false)

        const cases: [Record<string, unknown>, RegExp][] = [
          [{ ...body, external_id: undefined }, /external_id/],
          [{ ...body, amount: "-3" }, /amount/],
          [{ ...body, amount: "ten" }, /amount/],
          [{ ...body, due_by: "next tuesday" }, /due_by/],
          [{ ...body, scan_ids: ["3f0c9a52-8d4e-1b7a-9c1d-2e5f6a7b8c9d"] }, /scan_ids must be a UUIDv4/],
          [{ ...body, surprise: true }, /surprise/],
        ]
        for (const [input, message] of cases) {
          const response = await admin.post("/admin/servicescan/chargebacks", input)
          expect(response.status).toBe(400)
          expect(response.data.message).toMatch(message)
        }
        const outcome = await admin.post(`/admin/servicescan/chargebacks/${repeat.data.chargeback.id}/outcome`, { outcome: "maybe" })
        expect(outcome.status).toBe(400)
        expect(outcome.data.message).toMatch(/outcome/)
        expect((await admin.get("/admin/servicescan/chargebacks/chbk_missing")).status).toBe(404)
        expect((await admin.post("/admin/servicescan/chargebacks/chbk_missing/check", {})).status).toBe(404)
      })

      it("lists with filters and search as { items, count, offset, limit }", async () => {
        const orderId = await orderWithoutScans()
        const soon = new Date(Date.now() + 24 * HOUR).toISOString()
        const later = new Date(Date.now() + 30 * 24 * HOUR).toISOString()
        const a = (await admin.post("/admin/servicescan/chargebacks", chargebackBody(orderId, { due_by: soon, reason_code: "13.1" }))).data.chargeback
        const b = (await admin.post("/admin/servicescan/chargebacks", chargebackBody(orderId, { due_by: later }))).data.chargeback
        await admin.post(`/admin/servicescan/chargebacks/${b.id}/outcome`, { outcome: "lost" })

        const all = await admin.get(`/admin/servicescan/chargebacks?order_id=${orderId}&limit=1`)
        expect(all.status).toBe(200)
        expect(all.data).toEqual({ items: [expect.any(Object)], count: 2, offset: 0, limit: 1 })

        const lost = await admin.get(`/admin/servicescan/chargebacks?order_id=${orderId}&status=lost`)
        expect(lost.data.items.map((c: Chargeback) => c.id)).toEqual([b.id])
        const several = await admin.get(`/admin/servicescan/chargebacks?order_id=${orderId}&status=lost,no_evidence`)
        expect(several.data.count).toBe(2)

        const due = await admin.get(
          `/admin/servicescan/chargebacks?order_id=${orderId}&due_before=${encodeURIComponent(new Date(Date.now() + 2 * 24 * HOUR).toISOString())}`
        )
        expect(due.data.items.map((c: Chargeback) => c.id)).toEqual([a.id])

        const search = await admin.get(`/admin/servicescan/chargebacks?q=${encodeURIComponent(a.external_id)}`)
        expect(search.data.items.map((c: Chargeback) => c.id)).toEqual([a.id])
        expect((await admin.get(`/admin/servicescan/chargebacks?q=13.1&order_id=${orderId}`)).data.count).toBe(1)

        // Evidence on request, on top of the defaults (what the admin UI's list asks for).
        const withEvidence = await admin.get(
          `/admin/servicescan/chargebacks?order_id=${orderId}&fields=${encodeURIComponent("+proof_requests.status,+proof_requests.scans.ground_truth")}`
        )
        expect(withEvidence.status).toBe(200)
        expect(withEvidence.data.items[0]).toMatchObject({ external_id: expect.any(String), proof_requests: [] })

        const badStatus = await admin.get("/admin/servicescan/chargebacks?status=pending")
        expect(badStatus.status).toBe(400)
        expect(badStatus.data.message).toMatch(/status/)
        const badDate = await admin.get("/admin/servicescan/chargebacks?due_before=soon")
        expect(badDate.status).toBe(400)
        expect(badDate.data.message).toMatch(/due_before/)

        // What the Disputes DataTable sends: a due_by range, a sort, the order's number as search.
        const range = await admin.get(
          `/admin/servicescan/chargebacks?order_id=${orderId}&due_after=${encodeURIComponent(new Date(Date.now() + 2 * 24 * HOUR).toISOString())}`
        )
        expect(range.data.items.map((c: Chargeback) => c.id)).toEqual([b.id])
        const sorted = await admin.get(`/admin/servicescan/chargebacks?order_id=${orderId}&order=due_by`)
        expect(sorted.data.items.map((c: Chargeback) => c.id)).toEqual([a.id, b.id])
        const query = container.resolve(ContainerRegistrationKeys.QUERY)
        const {
          data: [order],
        } = await query.graph({ entity: "order", fields: ["display_id", "email"], filters: { id: orderId } })
        const byNumber = await admin.get(`/admin/servicescan/chargebacks?q=${encodeURIComponent(`#${order.display_id}`)}`)
        expect(byNumber.data.items.map((c: Chargeback) => c.id).sort()).toEqual([a.id, b.id].sort())
        // Each item names its order as the admin does: its number and customer.
        expect(byNumber.data.items[0].order).toMatchObject({ id: orderId, display_id: order.display_id, email: order.email })
        expect(Object.keys(byNumber.data.items[0].order).sort()).toEqual(["customer_name", "display_id", "email", "id"])
        const badAfter = await admin.get("/admin/servicescan/chargebacks?due_after=tomorrow")
        expect(badAfter.status).toBe(400)
        expect(badAfter.data.message).toMatch(/due_after/)
        const badOrder = await admin.get("/admin/servicescan/chargebacks?order=metadata")
        expect(badOrder.status).toBe(400)
        expect(badOrder.data.message).toMatch(/order must be one of/)
      })

      it("reports health: keys as booleans, the service answering, last poll and pending count", async () => {
        const quiet = await admin.get("/admin/servicescan/health")
        expect(quiet.data.health.polling).toMatchObject({ last_poll_at: null, pending_count: 0 })

        await chargebackWithScans([await newScan()])
        await chargebackWithScans([await newScan()])
        await runJob(4 * HOUR)
        const { status, data } = await admin.get("/admin/servicescan/health")
        expect(status).toBe(200)
        expect(data.health).toMatchObject({
          ok: true,
          keys: { secret_key: true, webhook_secret: true },
          service: { reachable: true, latency_ms: expect.any(Number) },
          configuration_error: null,
          polling: {
            stopped: false,
            interval_ms: 3 * HOUR,
            last_poll_at: expect.any(String),
            pending_count: 2,
          },
        })
        const text = JSON.stringify(data)
        expect(text).not.toContain(SECRET_KEY)
        expect(text).not.toContain(WEBHOOK_SECRET)
        expect((await api.get("/admin/servicescan/health", { validateStatus: () => true })).status).toBe(401)
      })
    })

    // ---- resilience ---------------------------------------------------------

    describe("with a flaky service", () => {
      it("completes every proof request through errorRate 0.5, with no duplicate at the service", async () => {
        const scans: string[] = []
        const chargebackIds: string[] = []
        const orderId = await orderWithoutScans()
        await faults({ errorRate: 0.5 })
        for (let i = 0; i < 12; i++) {
          const scan = await newScan()
          scans.push(scan)
          const delivery = await webhook(chargebackBody(orderId, { scan_ids: [scan] }))
          // The webhook itself never fails because the service does.
          expect(delivery.status).toBe(200)
          chargebackIds.push(delivery.data.chargeback_id)
        }
        for (const scan of scans) {
          await label(scan, "valid")
        }

        let offset = 0
        for (let run = 0; run < 40; run++) {
          offset += 6 * HOUR
          await runJob(offset)
          const rows = await service().listChargebacks({ id: chargebackIds }, { select: ["id", "status"] })
          if (rows.every((row) => row.status === "evidence_ready")) {
            break
          }
        }
        await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
        const rows = await service().listChargebacks({ id: chargebackIds }, { select: ["id", "status"] })
        expect(rows.map((row) => row.status)).toEqual(chargebackIds.map(() => "evidence_ready"))
        await waitForArchives(chargebackIds)

        const remote = await remoteProofs()
        for (const scan of scans) {
          expect(remote.filter((p) => p.scanIds.includes(scan))).toHaveLength(1)
        }
      })
    })

    describe("when an answer is lost", () => {
      it("shows the proof request to the admin, who can resend at once; otherwise the job resends it after the wait", async () => {
        const scan = await newScan()
        const orderId = await orderWithoutScans()
        await faults({ dropResponse: { route: "disputes.proofRequest.create", count: 1 } })
        const delivery = await webhook(chargebackBody(orderId, { scan_ids: [scan] }))
        expect(delivery.status).toBe(200)
        const atService = async () => (await remoteProofs()).filter((p) => p.scanIds.includes(scan))
        expect(await atService()).toHaveLength(1)

        let chargeback = await getChargeback(delivery.data.chargeback_id)
        expect(chargeback.status).toBe("evidence_pending")
        expect(chargeback.proof_requests[0]).toMatchObject({ status: "submitting", remote_id: null, last_error: expect.stringMatching(/outcome unknown/) })
        expect((await admin.get("/admin/servicescan/health")).data.health.polling.needs_attention_count).toBe(1)

        // Before the wait (an hour by default) is over, neither the job nor a plain "check now" sends it again.
        await runJob(30 * 60 * 1000)
        await admin.post(`/admin/servicescan/chargebacks/${chargeback.id}/check`, {})
        expect(await atService()).toHaveLength(1)

        // The admin decides sooner: a second proof request at ServiceScan is harmless, no evidence is not.
        await label(scan, "valid")
        const resent = await admin.post(`/admin/servicescan/chargebacks/${chargeback.id}/check`, { resubmit: true })
        expect(resent.status).toBe(200)
        expect(await atService()).toHaveLength(2)
        chargeback = (await admin.post(`/admin/servicescan/chargebacks/${chargeback.id}/check`, {})).data.chargeback
        expect(chargeback.status).toBe("evidence_ready")
        await waitForArchives([chargeback.id])
      })

      it("the job resends a lost answer by itself after the wait, once", async () => {
        const scan = await newScan()
        const orderId = await orderWithoutScans()
        await faults({ dropResponse: { route: "disputes.proofRequest.create", count: 1 } })
        const delivery = await webhook(chargebackBody(orderId, { scan_ids: [scan] }))
        await faults(null)
        const atService = async () => (await remoteProofs()).filter((p) => p.scanIds.includes(scan))
        expect(await atService()).toHaveLength(1)

        await runJob(HOUR + 60_000)
        expect(await atService()).toHaveLength(2)
        const chargeback = await getChargeback(delivery.data.chargeback_id)
        expect(chargeback.proof_requests[0]).toMatchObject({ status: "pending", remote_id: expect.any(String) })
        // Pending now: a later run polls it, it never sends a third.
        await runJob(2 * HOUR)
        expect(await atService()).toHaveLength(2)
      })
    })

    describe("when ServiceScan refuses the key", () => {
      it("stops polling after the first refusal, surfaces a configuration error, and resumes once fixed", async () => {
        const scans = [await newScan(), await newScan(), await newScan(), await newScan(), await newScan(), await newScan(), await newScan(), await newScan(), await newScan(), await newScan()]
        const orderId = await orderWithoutScans()
        const ids: string[] = []
        for (const scan of scans) {
          ids.push((await webhook(chargebackBody(orderId, { scan_ids: [scan] }))).data.chargeback_id)
          await label(scan, "valid")
        }

        await faults({ keyLookup: "fail" })
        const before = (await stats())["disputes.proof.get"]
        const first = await runJob(100 * HOUR)
        const calls = (await stats())["disputes.proof.get"] - before
        // Only the calls already in flight (concurrency 8) when the first 403 came back; no retries.
        expect(calls).toBeGreaterThan(0)
        expect(calls).toBeLessThanOrEqual(8)
        expect(first.completed).toBe(0)

        const second = await runJob(200 * HOUR)
        expect(second.skipped).toBe("configuration_error")
        // While stopped, a run makes one side-effect-free probe, not a call per proof request.
        expect((await stats())["disputes.proof.get"] - before).toBe(calls + 1)

        const health = (await admin.get("/admin/servicescan/health")).data.health
        expect(health).toMatchObject({
          ok: false,
          polling: { stopped: true },
          configuration_error: { status: 403, message: expect.stringContaining("Invalid API key provided") },
        })
        const check = await admin.post(`/admin/servicescan/chargebacks/${ids[0]}/check`, {})
        expect(check.status).toBe(400)
        expect(check.data.message).toMatch(/not usable with the current configuration/)

        // Fixed at the service's end. No admin request is needed: the next run's
        // probe sees it (as a worker process, which admin requests never reach, must).
        await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
        const third = await runJob(300 * HOUR)
        expect(third).toMatchObject({ completed: 10, errors: 0 })
        expect(third.skipped).toBeUndefined()
        const rows = await service().listChargebacks({ id: ids }, { select: ["id", "status"] })
        expect(rows.every((row) => row.status === "evidence_ready")).toBe(true)
        expect((await admin.get("/admin/servicescan/health")).data.health.configuration_error).toBeNull()
        await waitForArchives(ids)
      })
    })
  },
})
