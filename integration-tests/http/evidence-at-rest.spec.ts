import { spawn } from "node:child_process"
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { access, readFile } from "node:fs/promises"
import { join } from "node:path"
import { appTestRunner } from "../helpers/app-runner"
import type { IFileModuleService, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import axios, { AxiosInstance, AxiosResponse } from "axios"
import sealEvidenceAtRest from "../../src/migration-scripts/servicescan-seal-evidence-at-rest"
import { syncServiceScanProofRequests } from "../../src/jobs/sync-servicescan-proof-requests"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import { importServiceScanDisputeCases } from "../../src/jobs/_run-dispute-case-import"
import { pdfText } from "../../src/lib/evidence-pack/__tests__/fixtures"
import { signUpCustomer, SignedInCustomer } from "../helpers/customer"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, submitTestForm, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore, SERVICESCAN_PROVIDER_ID } from "../helpers/store"
import { waitFor } from "../helpers/wait"
import { MedusaProcess, startMedusa } from "../system/lib/app"
import { logDir } from "../system/lib/capture"
import { ManagedProcess, MEDUSA_CLI, ROOT } from "../system/lib/processes"
import { staticEvidenceFiles } from "../helpers/static-files"

/**
 * Card data at rest, through the real app (real PostgreSQL, the local File
 * Module provider, the sandbox over HTTP): what an attacker who can read the
 * File Module's storage (the local provider serves "private" files from
 * `static/`) or the database, but not both and not the configuration, gets.
 */
reserveSandboxUrl()
jest.setTimeout(600_000)

const CARD = "5555555555554444"
const HOUR = 60 * 60 * 1000
const JPEG_START = Buffer.from([0xff, 0xd8, 0xff])

type Transaction = { type: string; id: string; cnpTxnId: string; duplicate?: boolean }

/** The test app's keys (medusa-config.ts), as a string each: one-key rings whose id is "default". */
const EVIDENCE_KEY = "test-evidence-key-encrypting-key-0123456789"
const SAVED_CARDS_SECRET = "test-saved-cards-secret-0123456789abcdef"
/** The keys a rotation adds, newest first. */
const NEW_EVIDENCE_KEY = "rotated-evidence-key-2026-0123456789abcdef"
const NEW_SAVED_CARDS_SECRET = "rotated-saved-cards-secret-2026-0123456789"

/**
 * What an attacker does with a sealed file and a database row: reads every
 * string of the row as a key (base64url, base64, hex) and tries it on the
 * file with each binding the code could use (it is open source), and without
 * one. True when anything opens it, or when the file is not sealed at all.
 */
function attackerOpens(file: Buffer, row: Record<string, unknown>, bindings: string[]): boolean {
  if (file.subarray(0, 4).toString("latin1") !== "SSE1" || file.length < 4 + 12 + 16) {
    return true
  }
  const iv = file.subarray(4, 16)
  const tag = file.subarray(16, 32)
  const body = file.subarray(32)
  const candidates = Object.values(row)
    .filter((value): value is string => typeof value === "string")
    .flatMap((value) => [value, ...value.split(".")])
    .flatMap((value) => (["base64url", "base64", "hex"] as const).map((encoding) => Buffer.from(value, encoding)))
    .filter((key) => key.length === 32)
  for (const key of candidates) {
    for (const binding of [null, ...bindings]) {
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, iv)
        if (binding !== null) {
          decipher.setAAD(Buffer.from(binding, "utf8"))
        }
        decipher.setAuthTag(tag)
        Buffer.concat([decipher.update(body), decipher.final()])
        return true
      } catch {
        // not this key
      }
    }
  }
  return false
}

appTestRunner({
  testSuite: ({ api, getContainer, dbUtils, utils, dbConfig }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let alice: SignedInCustomer
    // Removed at the end unless a shard beside this one may still use them (helpers/static-files.ts).
    const evidenceFiles = staticEvidenceFiles()

    const staticDir = join(process.cwd(), "static")
    /** A file as the local File Module provider keeps it: what anyone who reads its folder gets. */
    const stored = (fileId: string) => readFile(join(staticDir, fileId))

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)
      alice = await signUpCustomer(api, store, `alice-at-rest-${Date.now()}@example.com`)
      await evidenceFiles.remember()
    })

    afterAll(async () => {
      await sandbox?.close()
      await evidenceFiles.forget()
    })

    // The cases build on each other, in order: each one's end state is the next one's start.
    afterEach(async () => {
      await utils.waitWorkflowExecutions()
      await dbUtils.snapshot()
    })

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const admin = () => ({ ...store.adminHeaders, validateStatus: () => true })
    const as = (who: SignedInCustomer) => ({ ...who.headers, validateStatus: () => true })

    /** A cart of the customer's with a ServiceScan session, through `app`'s store API. */
    async function cartFor(app: AxiosInstance, who: SignedInCustomer) {
      const cart = await app.post("/store/carts", { region_id: store.regionId, items: [{ variant_id: store.variantId, quantity: 1 }], email: who.email }, as(who))
      expect(cart.status).toBe(200)
      const collection = await app.post("/store/payment-collections", { cart_id: cart.data.cart.id }, as(who))
      const collectionId: string = collection.data.payment_collection.id
      await app.post(`/store/payment-collections/${collectionId}/payment-sessions`, { provider_id: SERVICESCAN_PROVIDER_ID }, as(who))
      return { cartId: cart.data.cart.id as string, collectionId }
    }

    /** A cart of the customer's, paid with a scanned card through the hosted form; the card saved when asked. */
    async function paidOrder(who: SignedInCustomer, saveCard: boolean, app: AxiosInstance = api): Promise<{ orderId: string; scanId: string; cnpTxnId: string }> {
      const { cartId, collectionId } = await cartFor(app, who)
      const form = await submitTestForm({ number: CARD }, { scanned: true })
      const session = await app.post(
        `/store/payment-collections/${collectionId}/payment-sessions`,
        { provider_id: SERVICESCAN_PROVIDER_ID, data: { form_id: form.formId, response_code: form.responseCode, ...(saveCard ? { save_card: true } : {}) } },
        as(who)
      )
      expect(session.status).toBe(200)
      const completed = await app.post(`/store/carts/${cartId}/complete`, {}, as(who))
      expect(completed.data.type).toBe("order")
      const { body } = await sandboxFetch<{ items: Transaction[] }>("/__sandbox/processor/transactions?type=authorization")
      const authorization = body.items.filter((t) => !t.duplicate).at(-1) as Transaction
      // order.placed reaches the plugin's subscribers asynchronously (payment refs, saved card).
      await waitFor(() => service().listPaymentRefs({ order_id: completed.data.order.id }), (refs) => refs.length > 0, 15_000)
      return { orderId: completed.data.order.id, scanId: form.formId, cnpTxnId: authorization.cnpTxnId }
    }

    /** A processor case on the order, imported, its scan judged valid and archived: evidence ready. */
    async function evidenceReady(order: { scanId: string; cnpTxnId: string }) {
      const { status, body } = await sandboxFetch<{ caseId: string }>("/__sandbox/chargebacks", { body: { cnpTxnId: order.cnpTxnId, reasonCode: "4837" } })
      expect(status).toBe(201)
      await importServiceScanDisputeCases(container)
      await sandboxFetch(`/__sandbox/scans/${order.scanId}/label`, { body: { groundTruth: "valid" } })
      await syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + 4 * HOUR) })
      const [chargeback] = await service().listChargebacks({ external_id: body.caseId })
      expect(chargeback.status).toBe("evidence_ready")
      const evidence = await waitFor(() => evidenceRow(order.scanId), (row) => Boolean(row?.archived_at), 15_000)
      expect(evidence?.archived_file_id).toEqual(expect.any(String))
      return { caseId: body.caseId, chargebackId: chargeback.id }
    }

    async function evidenceRow(scanId: string) {
      const [row] = await service().listScanEvidences({ scan_id: scanId }, { take: 1 })
      return row as (typeof row & Record<string, unknown>) | undefined
    }

    async function caseRow(caseId: string) {
      const [row] = await service().listDisputeCases({ case_id: caseId }, { take: 1 })
      return row as typeof row & Record<string, unknown>
    }

    const downloadPack = async (chargebackId: string, app: AxiosInstance = api): Promise<AxiosResponse<ArrayBuffer>> =>
      app.get(`/admin/servicescan/chargebacks/${chargebackId}/evidence-pack`, { ...admin(), responseType: "arraybuffer" })
    const downloadImage = async (scanId: string, app: AxiosInstance = api): Promise<AxiosResponse<ArrayBuffer>> =>
      app.get(`/admin/servicescan/scans/${scanId}/image`, { ...admin(), responseType: "arraybuffer" })
    const sandboxImage = async (scanId: string) =>
      Buffer.from(await (await fetch(`${reserveSandboxUrl()}/disputes/image/${scanId}.jpg`, { headers: { "x-api-key": "sk_test_servicescan_demo" } })).arrayBuffer())

    /** The case of the first test, and what the admin routes served for it, handed on. */
    let first: { orderId: string; scanId: string; caseId: string; chargebackId: string; pdf: Buffer; jpeg: Buffer }

    it("the stored evidence pack and archived image are noise in the File Module's storage, the rows hold no usable key, and the admin routes still serve both", async () => {
      const order = await paidOrder(alice, true)
      const ready = await evidenceReady(order)
      first = { ...order, ...ready, pdf: Buffer.alloc(0), jpeg: Buffer.alloc(0) }

      const pack = await downloadPack(ready.chargebackId)
      expect(pack.status).toBe(200)
      const pdf = Buffer.from(pack.data)
      first.pdf = pdf
      expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-")
      expect(pdfText(new Uint8Array(pdf)).all).toContain(alice.email)

      // What the File Module's storage holds.
      const row = await caseRow(ready.caseId)
      expect(row.pack_file_id).toEqual(expect.any(String))
      // Not a name anyone can derive from the case.
      expect(row.pack_file_id).not.toContain(ready.caseId)
      const packAtRest = await stored(row.pack_file_id as string)
      expect(packAtRest.includes("%PDF")).toBe(false)
      expect(packAtRest.includes(Buffer.from(alice.email, "utf8"))).toBe(false)
      expect(packAtRest.includes(Buffer.from(alice.email, "utf16le"))).toBe(false)
      expect(attackerOpens(packAtRest, row, [`servicescan-evidence-pack:${row.id}`, `servicescan-evidence:${row.id}`, `servicescan-evidence:${ready.caseId}`])).toBe(false)

      const evidence = (await evidenceRow(order.scanId))!
      const imageAtRest = await stored(evidence.archived_file_id as string)
      const jpeg = await sandboxImage(order.scanId)
      first.jpeg = jpeg
      expect(imageAtRest.subarray(0, 3).equals(JPEG_START)).toBe(false)
      expect(imageAtRest.includes(jpeg.subarray(jpeg.length >> 1, (jpeg.length >> 1) + 64))).toBe(false)
      expect(attackerOpens(imageAtRest, evidence, [`servicescan-evidence:${order.scanId}`])).toBe(false)

      // Behind an admin session, both are served whole.
      const image = await downloadImage(order.scanId)
      expect(image.status).toBe(200)
      expect(image.headers["x-servicescan-image-source"]).toBe("archive")
      expect(Buffer.from(image.data).equals(jpeg)).toBe(true)
      const again = await downloadPack(ready.chargebackId)
      expect(Buffer.from(again.data).equals(pdf)).toBe(true)
    })

    it("the migration seals what an earlier version left readable: a pack stored in clear, an image key stored in clear", async () => {
      const files = container.resolve<IFileModuleService>(Modules.FILE)
      const caseRowBefore = await caseRow(first.caseId)
      const evidenceBefore = (await evidenceRow(first.scanId))!
      // What 0.1 stored: the PDF itself under a name derived from the case, and an image whose key sits in clear.
      const clearPack = await files.createFiles({
        filename: `servicescan-evidence-${first.caseId}.pdf`,
        mimeType: "application/pdf",
        content: first.pdf.toString("base64"),
        access: "private",
      })
      const imageKey = randomBytes(32)
      const iv = randomBytes(12)
      const cipher = createCipheriv("aes-256-gcm", imageKey, iv)
      cipher.setAAD(Buffer.from(`servicescan-evidence:${first.scanId}`, "utf8"))
      const body = Buffer.concat([cipher.update(first.jpeg), cipher.final()])
      const oldImage = await files.createFiles({
        filename: `servicescan-evidence-${randomBytes(24).toString("hex")}.bin`,
        mimeType: "application/octet-stream",
        content: Buffer.concat([Buffer.from("SSE1"), iv, cipher.getAuthTag(), body]).toString("base64"),
        access: "private",
      })
      await service().updateDisputeCases({ id: caseRowBefore.id, pack_file_id: clearPack.id, pack_key: null })
      await service().updateScanEvidences([{ id: evidenceBefore.id, archived_file_id: oldImage.id, archive_key: imageKey.toString("base64url") }])
      await files.deleteFiles([caseRowBefore.pack_file_id as string, evidenceBefore.archived_file_id as string])

      // Readable at rest, as the review found it; still served, as before.
      const legacyRow = await caseRow(first.caseId)
      const legacyEvidence = (await evidenceRow(first.scanId))!
      expect(attackerOpens(await stored(clearPack.id), legacyRow, [])).toBe(true)
      expect(attackerOpens(await stored(oldImage.id), legacyEvidence, [`servicescan-evidence:${first.scanId}`])).toBe(true)
      expect(Buffer.from((await downloadPack(first.chargebackId)).data).equals(first.pdf)).toBe(true)
      expect(Buffer.from((await downloadImage(first.scanId)).data).equals(first.jpeg)).toBe(true)

      // `medusa db:migrate` runs the plugin's migration scripts with the app's container.
      await sealEvidenceAtRest({ container })

      const row = await caseRow(first.caseId)
      const evidence = (await evidenceRow(first.scanId))!
      expect(row.pack_key).toMatch(/^k1\.default\./)
      expect(row.pack_file_id).not.toBe(clearPack.id)
      expect(row.pack_file_id).not.toContain(first.caseId)
      await expect(access(join(staticDir, clearPack.id))).rejects.toThrow()
      expect(attackerOpens(await stored(row.pack_file_id as string), row, [`servicescan-evidence-pack:${row.id}`])).toBe(false)
      // The image's file is unchanged; only its key is wrapped now.
      expect(evidence.archived_file_id).toBe(oldImage.id)
      expect(evidence.archive_key).toMatch(/^k1\.default\./)
      expect(attackerOpens(await stored(oldImage.id), evidence, [`servicescan-evidence:${first.scanId}`])).toBe(false)

      expect(Buffer.from((await downloadPack(first.chargebackId)).data).equals(first.pdf)).toBe(true)
      const image = await downloadImage(first.scanId)
      expect(image.headers["x-servicescan-image-source"]).toBe("archive")
      expect(Buffer.from(image.data).equals(first.jpeg)).toBe(true)

      // Run again (an interrupted migration is run again): nothing left to do.
      await sealEvidenceAtRest({ container })
      expect(await caseRow(first.caseId)).toMatchObject({ pack_file_id: row.pack_file_id, pack_key: row.pack_key })
      expect((await evidenceRow(first.scanId))!.archive_key).toBe(evidence.archive_key)
    })

    describe("rotating both keys", () => {
      const rotatedEnv = {
        SERVICESCAN_EVIDENCE_KEY: JSON.stringify([{ id: "2026", secret: NEW_EVIDENCE_KEY }, { id: "default", secret: EVIDENCE_KEY }]),
        SERVICESCAN_SAVED_CARDS_SECRET: JSON.stringify([{ id: "2026", secret: NEW_SAVED_CARDS_SECRET }, { id: "default", secret: SAVED_CARDS_SECRET }]),
        SERVICESCAN_SAVED_CARDS_FINGERPRINT_SECRET: SAVED_CARDS_SECRET,
      }
      const newKeysOnlyEnv = {
        SERVICESCAN_EVIDENCE_KEY: JSON.stringify([{ id: "2026", secret: NEW_EVIDENCE_KEY }]),
        SERVICESCAN_SAVED_CARDS_SECRET: JSON.stringify([{ id: "2026", secret: NEW_SAVED_CARDS_SECRET }]),
        SERVICESCAN_SAVED_CARDS_FINGERPRINT_SECRET: SAVED_CARDS_SECRET,
      }
      const processes: ManagedProcess[] = []

      afterEach(async () => {
        for (const proc of processes.splice(0)) {
          await proc.stop()
        }
      })

      /** The same store (this database, this `static/`) as a real `medusa start` with other keys: a restart after a configuration change. */
      async function restartWith(name: string, env: Record<string, string>): Promise<{ proc: MedusaProcess; app: AxiosInstance }> {
        const proc = await startMedusa(ROOT, { suite: "evidence-at-rest", name, env: { ...env, DATABASE_URL: dbConfig.clientUrl } })
        processes.push(proc)
        return { proc, app: axios.create({ baseURL: proc.url }) }
      }

      /** `npx medusa exec <the re-seal script>`, as a store owner runs it. */
      async function reseal(env: Record<string, string>): Promise<string[]> {
        const child = spawn(process.execPath, [MEDUSA_CLI, "exec", "./src/scripts/servicescan-reseal.ts"], {
          cwd: ROOT,
          env: { ...childEnv(), ...env, DATABASE_URL: dbConfig.clientUrl },
          stdio: ["ignore", "pipe", "pipe"],
        })
        const proc = new ManagedProcess("reseal", child, join(logDir(), "evidence-at-rest-reseal.log"))
        processes.push(proc)
        const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
        await proc.stop()
        const output = proc.lines.map((line) => line.text)
        expect({ code, output }).toMatchObject({ code: 0 })
        return output
      }

      /** The JSON report a re-seal logged after `prefix` (the logger may print plain lines or JSON ones). */
      function reportOf(output: string[], prefix: string): Record<string, unknown> {
        for (const line of output) {
          let text = line
          try {
            text = (JSON.parse(line) as { message?: string }).message ?? line
          } catch {
            // a plain line
          }
          const at = text.indexOf(prefix)
          if (at !== -1) {
            return JSON.parse(text.slice(at + prefix.length)) as Record<string, unknown>
          }
        }
        throw new Error(`no "${prefix}" in the re-seal's output:\n${output.join("\n")}`)
      }

      const stats = async () => (await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")).body.requests

      /** Alice pays with her saved card through `app`: one processor call, counted at the sandbox. */
      async function payWithSavedCard(app: AxiosInstance, cardId: string) {
        const { cartId, collectionId } = await cartFor(app, alice)
        const session = await app.post(
          `/store/payment-collections/${collectionId}/payment-sessions`,
          { provider_id: SERVICESCAN_PROVIDER_ID, data: { payment_method_id: cardId } },
          as(alice)
        )
        expect(session.status).toBe(200)
        const before = (await stats())["cnp.online"] ?? 0
        const completed = await app.post(`/store/carts/${cartId}/complete`, {}, as(alice))
        expect(completed.data.type).toBe("order")
        expect((await stats())["cnp.online"]).toBe(before + 1)
      }

      const savedCards = async (app: AxiosInstance): Promise<{ id: string; last4: string | null }[]> => {
        const listed = await app.get("/store/servicescan/payment-methods", as(alice))
        expect(listed.status).toBe(200)
        return listed.data.payment_methods
      }

      async function aliceCards(): Promise<{ id: string; sealed_token: string; fingerprint: string }[]> {
        const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
          entity: "customer",
          fields: ["id", "account_holders.provider_id", "account_holders.data"],
          filters: { id: alice.id },
        })
        const holder = (data[0].account_holders as { provider_id: string; data: { cards: { id: string; sealed_token: string; fingerprint: string }[] } }[]).find(
          (h) => h.provider_id === SERVICESCAN_PROVIDER_ID
        )
        return holder?.data.cards ?? []
      }

      it("keeps every old pack, image and saved card usable; the re-seal command moves them to the new keys; the old keys can then go", async () => {
        // Before the rotation: alice's card (saved in the first case) and a second case whose pack is not made yet.
        const [card] = await aliceCards()
        expect(card.sealed_token).toMatch(/^k1\.default\./)
        const guest = await signUpCustomer(api, store, `bob-at-rest-${Date.now()}@example.com`)
        const secondOrder = await paidOrder(guest, false)
        const second = { ...secondOrder, ...(await evidenceReady(secondOrder)) }
        const secondJpeg = await sandboxImage(second.scanId)
        expect((await evidenceRow(second.scanId))!.archive_key).toMatch(/^k1\.default\./)
        expect((await caseRow(second.caseId)).pack_file_id).toBeNull()

        // Restarted with a new key first and the old one kept.
        const rotated = await restartWith("rotated", rotatedEnv)
        expect(Buffer.from((await downloadPack(first.chargebackId, rotated.app)).data).equals(first.pdf)).toBe(true)
        for (const [scanId, jpeg] of [[first.scanId, first.jpeg], [second.scanId, secondJpeg]] as const) {
          const image = await downloadImage(scanId, rotated.app)
          expect(image.headers["x-servicescan-image-source"]).toBe("archive")
          expect(Buffer.from(image.data).equals(jpeg)).toBe(true)
        }
        expect((await savedCards(rotated.app)).map((c) => c.id)).toEqual([card.id])
        await payWithSavedCard(rotated.app, card.id)
        // New data is sealed with the newest key.
        const secondPdf = Buffer.from((await downloadPack(second.chargebackId, rotated.app)).data)
        expect(secondPdf.subarray(0, 5).toString("latin1")).toBe("%PDF-")
        expect((await caseRow(second.caseId)).pack_key).toMatch(/^k1\.2026\./)
        expect((await caseRow(first.caseId)).pack_key).toMatch(/^k1\.default\./)

        // The re-seal command, with the same configuration.
        const output = await reseal(rotatedEnv)
        expect(reportOf(output, "servicescan-reseal: evidence ")).toMatchObject({
          evidence_key_id: "2026",
          images: { rewrapped: 2, failed: 0 },
          packs: { rewrapped: 1, unchanged: 1, failed: 0 },
          keys_by_kek: { "2026": 4 },
        })
        expect(reportOf(output, "servicescan-reseal: saved cards ")).toEqual({ account_holders: 1, resealed: 1, cards_by_key: { "2026": 1 }, failed: 0 })
        for (const text of [...output, ...rotated.proc.lines.map((line) => line.text)]) {
          for (const secret of [EVIDENCE_KEY, NEW_EVIDENCE_KEY, SAVED_CARDS_SECRET, NEW_SAVED_CARDS_SECRET]) {
            expect(text).not.toContain(secret)
          }
        }
        for (const scanId of [first.scanId, second.scanId]) {
          expect((await evidenceRow(scanId))!.archive_key).toMatch(/^k1\.2026\./)
        }
        expect((await caseRow(first.caseId)).pack_key).toMatch(/^k1\.2026\./)
        const [resealed] = await aliceCards()
        expect(resealed).toMatchObject({ id: card.id, fingerprint: card.fingerprint, sealed_token: expect.stringMatching(/^k1\.2026\./) })
        await rotated.proc.stop()

        // Restarted with the old keys removed: everything still opens, and the card still pays.
        const after = await restartWith("new-keys-only", newKeysOnlyEnv)
        expect(Buffer.from((await downloadPack(first.chargebackId, after.app)).data).equals(first.pdf)).toBe(true)
        expect(Buffer.from((await downloadPack(second.chargebackId, after.app)).data).equals(secondPdf)).toBe(true)
        for (const [scanId, jpeg] of [[first.scanId, first.jpeg], [second.scanId, secondJpeg]] as const) {
          const image = await downloadImage(scanId, after.app)
          expect(image.headers["x-servicescan-image-source"]).toBe("archive")
          expect(Buffer.from(image.data).equals(jpeg)).toBe(true)
        }
        expect((await savedCards(after.app)).map((c) => c.id)).toEqual([card.id])
        await payWithSavedCard(after.app, card.id)
      })
    })
  },
})

/** What a Medusa process started by this spec inherits: the test's environment, minus jest's own. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("JEST_") && key !== "NODE_OPTIONS" && key !== "LOG_FILE") {
      env[key] = value
    }
  }
  return { ...env, NODE_ENV: "production", MEDUSA_DISABLE_TELEMETRY: "true", FORCE_COLOR: "0" }
}
