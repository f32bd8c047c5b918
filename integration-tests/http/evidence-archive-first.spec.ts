import { appTestRunner } from "../helpers/app-runner"
import { staticEvidenceFiles } from "../helpers/static-files"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { syncServiceScanProofRequests } from "../../src/jobs/sync-servicescan-proof-requests"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import { importServiceScanDisputeCases } from "../../src/jobs/_run-dispute-case-import"
import { embeddedImages, pdfText } from "../../src/lib/evidence-pack/__tests__/fixtures"
import { checkoutWithCard } from "../helpers/checkout"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"
import { waitFor } from "../helpers/wait"

/**
 * The evidence pack reads a scan's image from the store's own archive first:
 * with ServiceScan down (every request a 503) or unable to serve images, a
 * case whose scans were archived still gets its pack, with the image, and no
 * image request reaches the service. Counted at the sandbox.
 */
reserveSandboxUrl()
// Answers go out only when a test sends them (another spec of the same run may have set a policy).
process.env.SERVICESCAN_AUTO_RESPOND = "off"
jest.setTimeout(240_000)

const APPROVE = "4457119922390123"
const SECRET_KEY = "sk_test_servicescan_demo"
const HOUR = 60 * 60 * 1000

type Transaction = { type: string; cnpTxnId: string; duplicate?: boolean }
type SandboxCase = {
  activities: { activityType: string }[]
  documents: { documentId: string; contentType: string; size: number }[]
}

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

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const faults = (body: Record<string, unknown>) => sandboxFetch("/__sandbox/faults", { body })
    const imageRequests = async () =>
      (await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")).body.requests["disputes.image.get"]
    const evidenceOf = (scanId: string) =>
      service().listScanEvidences({ scan_id: scanId }, { select: ["id", "archived_at", "archive_error"], take: null })

    async function sandboxImage(scanId: string): Promise<Buffer> {
      const response = await fetch(`${sandbox.url}/disputes/image/${scanId}.jpg`, { headers: { "x-api-key": SECRET_KEY } })
      expect(response.status).toBe(200)
      return Buffer.from(await response.arrayBuffer())
    }

    async function chargebackIdOf(caseId: string): Promise<string> {
      const { data } = await container
        .resolve(ContainerRegistrationKeys.QUERY)
        .graph({ entity: "chargeback", fields: ["id", "status"], filters: { external_id: caseId } })
      expect(data[0]).toMatchObject({ status: "evidence_ready" })
      return data[0].id as string
    }

    /**
     * A paid order whose payment the processor raised a case on, imported, its scan judged valid;
     * `beforeProof` runs before the proof request's result is read (which is what archives the image).
     */
    async function provenCase(beforeProof: () => Promise<unknown> = async () => undefined) {
      const { formId: scanId, result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true })
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      const { body } = await sandboxFetch<{ items: Transaction[] }>("/__sandbox/processor/transactions?type=authorization")
      const authorization = body.items.filter((t) => !t.duplicate).at(-1) as Transaction
      // order.placed reaches the plugin's subscriber (which records the payment's references) asynchronously.
      await waitFor(() => service().listPaymentRefs({ order_id: result.order.id }), (refs) => refs.length > 0, 10_000)
      const raised = await sandboxFetch<{ caseId: string }>("/__sandbox/chargebacks", { body: { cnpTxnId: authorization.cnpTxnId } })
      expect(raised.status).toBe(201)
      const caseId = raised.body.caseId
      expect(await importServiceScanDisputeCases(container)).toMatchObject({ matched: 1 })
      await sandboxFetch(`/__sandbox/scans/${scanId}/label`, { body: { groundTruth: "valid" } })
      await beforeProof()
      await syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + 4 * HOUR) })
      // The completion event archives the image (a subscriber): wait until it has tried.
      const evidence = await waitFor(
        () => evidenceOf(scanId),
        (rows) => rows.length > 0 && rows.every((row) => row.archived_at || row.archive_error),
        15_000
      )
      return { scanId, caseId, chargebackId: await chargebackIdOf(caseId), evidence }
    }

    async function packOf(chargebackId: string) {
      const response = await api.get(`/admin/servicescan/chargebacks/${chargebackId}/evidence-pack`, {
        ...store.adminHeaders,
        responseType: "arraybuffer",
        validateStatus: () => true,
      })
      return { status: response.status, pdf: new Uint8Array(response.data as ArrayBuffer), raw: Buffer.from(response.data as ArrayBuffer) }
    }

    /** What an analyst sees: the scan listed and its image embedded, byte for byte as ServiceScan served it. */
    async function expectImageInPack(pdf: Uint8Array, scanId: string, image: Buffer): Promise<void> {
      expect(Buffer.from(pdf.subarray(0, 5)).toString("latin1")).toBe("%PDF-")
      const text = pdfText(pdf).all
      expect(text).toContain(`Scan ${scanId}`)
      expect(text).toContain("The image as ServiceScan kept it, unchanged")
      expect(text).not.toContain("Its image could not be included")
      expect(text).not.toContain("Its image was not available")
      const embedded = await embeddedImages(pdf)
      expect(embedded.filter((e) => Buffer.from(e.bytes).equals(image))).toHaveLength(1)
    }

    it("builds the pack from the archive while ServiceScan answers every request with a 503, asking it for no image", async () => {
      const { scanId, chargebackId, evidence } = await provenCase()
      expect(evidence.every((row) => row.archived_at)).toBe(true)
      const image = await sandboxImage(scanId)

      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })
      expect((await faults({ errorRate: 1 })).status).toBe(200)
      // The service is down: what the pack would otherwise have asked it for fails.
      const down = await fetch(`${sandbox.url}/disputes/image/${scanId}.jpg`, { headers: { "x-api-key": SECRET_KEY } })
      expect(down.status).toBe(503)
      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })

      const pack = await packOf(chargebackId)
      expect({ status: pack.status, body: pack.status === 200 ? "pdf" : pack.raw.toString("utf8") }).toEqual({ status: 200, body: "pdf" })
      expect(await imageRequests()).toBe(0)
      await expectImageInPack(pack.pdf, scanId, image)
    })

    it("represents the case with the archived image while ServiceScan cannot serve images", async () => {
      const { scanId, caseId, chargebackId } = await provenCase()
      const image = await sandboxImage(scanId)
      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })
      // Only the image path fails (the service cannot verify ownership); the processor is up.
      await faults({ ownershipCheck: "fail" })

      const answer = await api.post(
        `/admin/servicescan/chargebacks/${chargebackId}/respond`,
        { action: "represent" },
        { ...store.adminHeaders, validateStatus: () => true }
      )
      expect({ status: answer.status, message: answer.data?.message }).toEqual({ status: 200, message: undefined })
      expect(await imageRequests()).toBe(0)

      const { body: atProcessor } = await sandboxFetch<SandboxCase>(`/__sandbox/chargebacks/${caseId}`)
      expect(atProcessor.activities.filter((a) => a.activityType === "Merchant Represent")).toHaveLength(1)
      const documentId = `servicescan-evidence-${caseId}.pdf`
      expect(atProcessor.documents).toEqual([expect.objectContaining({ documentId, contentType: "application/pdf" })])
      const document = await fetch(`${sandbox.url}/__sandbox/chargebacks/${caseId}/documents/${encodeURIComponent(documentId)}`)
      expect(document.status).toBe(200)
      await expectImageInPack(new Uint8Array(await document.arrayBuffer()), scanId, image)
    })

    it("asks ServiceScan for the image only when the scan has no archive", async () => {
      // The image cannot be fetched when the proof completes, so nothing is archived.
      const { scanId, chargebackId, evidence } = await provenCase(() => faults({ ownershipCheck: "fail" }))
      expect(evidence.every((row) => !row.archived_at && row.archive_error)).toBe(true)
      await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
      const image = await sandboxImage(scanId)
      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })

      const pack = await packOf(chargebackId)
      expect(pack.status).toBe(200)
      expect(await imageRequests()).toBe(1)
      await expectImageInPack(pack.pdf, scanId, image)
    })
  },
})
