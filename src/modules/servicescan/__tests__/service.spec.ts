import { Client } from "pg"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { moduleIntegrationTestRunner } from "@medusajs/test-utils"
import { join } from "node:path"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../../../../integration-tests/helpers/sandbox"
import { waitFor } from "../../../../integration-tests/helpers/wait"
import { SERVICESCAN_MODULE } from ".."
import ServiceScanModuleService from "../service"
import { claimStatement } from "../repositories/proof-request"
import { signWebhookPayload } from "../lifecycle/webhook-signature"

/**
 * The module's service against real PostgreSQL (the committed migrations, not
 * a schema derived from the models) and the real sandbox over HTTP.
 */
const sandboxUrl = reserveSandboxUrl()
const HOUR = 60 * 60 * 1000

/** Collects log lines instead of printing them, so a spec can check what is (not) logged. */
const logLines: string[] = []
const logger = Object.fromEntries(
  ["error", "warn", "info", "debug", "log", "http", "verbose", "silly", "panic", "activity", "progress", "success", "failure", "shouldLog", "setLogLevel", "unsetLogLevel"].map(
    (level) => [level, (message?: unknown) => void logLines.push(`${level}: ${String(message)}`)]
  )
)

jest.setTimeout(60_000)

type ProofList = { items: { id: string; scanIds: string[]; status: string }[]; count: number }

async function newScan(sandbox: TestSandbox): Promise<string> {
  const { body } = await sandboxFetch<{ scanId: string }>("/__sandbox/scans", { body: { accountId: sandbox.demo.accountId } })
  return body.scanId
}
const label = (scanId: string, groundTruth: string) =>
  sandboxFetch(`/__sandbox/scans/${scanId}/label`, { body: { groundTruth } })
const faults = (body: Record<string, unknown> | null) =>
  body ? sandboxFetch("/__sandbox/faults", { body }) : sandboxFetch("/__sandbox/faults", { method: "DELETE" })
const remoteProofs = async () => (await sandboxFetch<ProofList>("/__sandbox/proof-requests")).body
const stats = async () => (await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")).body.requests

moduleIntegrationTestRunner<ServiceScanModuleService>({
  moduleName: SERVICESCAN_MODULE,
  resolve: join(__dirname, ".."),
  pathToMigrations: join(__dirname, "..", "migrations"),
  injectedDependencies: { logger },
  moduleOptions: {
    baseUrl: sandboxUrl,
    secretKey: "sk_test_servicescan_demo",
    webhookSecret: "whsec_test_0123456789abcdef",
    pollIntervalMs: 3 * HOUR,
    retryBaseDelayMs: 60_000,
    timeoutMs: 2_000,
    maxRetries: 0,
    concurrency: 4,
  },
  testSuite: ({ service, dbConfig, MikroOrmWrapper }) => {
    let sandbox: TestSandbox

    beforeAll(async () => {
      sandbox = await startTestSandbox()
    })
    afterEach(async () => {
      await faults(null)
    })
    afterAll(async () => {
      await sandbox?.close()
    })

    async function chargebackWithProof(scanIds: string[], externalId = `dp_${Math.random().toString(36).slice(2)}`) {
      const chargeback = await service.createChargebacks({
        external_id: externalId,
        order_id: "order_test",
        amount: 10.5,
        currency_code: "usd",
      })
      const proof = await service.createProofRequestWithScans({ chargeback_id: chargeback.id, scan_ids: scanIds })
      return { chargeback, proof }
    }

    /** `count` proof requests of one fresh scan each, sent to ServiceScan: the rows a poll reads. */
    async function sentProofRows(count: number): Promise<{ id: string; remote_id: string | null }[]> {
      const rows = []
      for (let i = 0; i < count; i++) {
        const { proof } = await chargebackWithProof([await newScan(sandbox)])
        const [submitted] = await service.submitProofRequests([proof.id])
        rows.push({ id: proof.id, remote_id: submitted.remote_id })
      }
      return rows
    }

    describe("chargebacks", () => {
      it("stores amounts exactly and refuses a second chargeback with the same external id", async () => {
        const created = await service.createChargebacks({
          external_id: "dp_1",
          order_id: "order_1",
          amount: "12.345" as unknown as number,
          currency_code: "kwd",
        })
        expect(created).toMatchObject({ status: "open", source: "api", extra_scan_ids: [] })
        const [read] = await service.listChargebacks({ id: created.id }, { select: ["id", "amount", "raw_amount"] })
        expect((read.raw_amount as { value: string }).value).toBe("12.345")
        await expect(
          service.createChargebacks({ external_id: "dp_1", order_id: "order_2", amount: 1, currency_code: "usd" })
        ).rejects.toThrow(/already exists|unique/i)
      })
    })

    describe("createProofRequestWithScans", () => {
      it("keeps UUIDv4 scan ids only, lower-cased and once, with one evidence row each, due now", async () => {
        const a = "3F0C9A52-8D4E-4B7A-9C1D-2E5F6A7B8C9D"
        const { proof } = await chargebackWithProof([a, a.toLowerCase(), "not-a-uuid", "3f0c9a52-8d4e-1b7a-9c1d-2e5f6a7b8c9d"])
        expect(proof.scan_ids).toEqual([a.toLowerCase()])
        const [row] = await service.listProofRequests({ id: proof.id }, { relations: ["scans"] })
        expect(row).toMatchObject({ status: "to_submit", remote_id: null, attempts: 0 })
        expect(row.next_poll_at!.getTime()).toBeLessThanOrEqual(Date.now())
        expect(row.scans.map((s) => s.scan_id)).toEqual([a.toLowerCase()])
      })
    })

    describe("submitProofRequests", () => {
      it("sends once and stores the remote id; a second call sends nothing", async () => {
        const scan = await newScan(sandbox)
        const { proof } = await chargebackWithProof([scan])
        const before = (await remoteProofs()).count
        const now = new Date()
        const [result] = await service.submitProofRequests([proof.id], { now })
        expect(result).toMatchObject({ id: proof.id, status: "pending", remote_id: expect.any(String), error: null })
        const [row] = await service.listProofRequests({ id: proof.id })
        expect(row).toMatchObject({ status: "pending", remote_id: result.remote_id, attempts: 0 })
        // First status check a poll interval later (±10%).
        const wait = row.next_poll_at!.getTime() - now.getTime()
        expect(wait).toBeGreaterThanOrEqual(0.9 * 3 * HOUR)
        expect(wait).toBeLessThanOrEqual(1.1 * 3 * HOUR)

        expect(await service.submitProofRequests([proof.id])).toEqual([])
        const remote = await remoteProofs()
        expect(remote.count).toBe(before + 1)
        expect(remote.items.find((p) => p.id === result.remote_id)?.scanIds).toEqual([scan])
      })

      it("lets only one of two concurrent senders send", async () => {
        const { proof } = await chargebackWithProof([await newScan(sandbox)])
        const before = (await remoteProofs()).count
        const results = await Promise.all([
          service.submitProofRequests([proof.id]),
          service.submitProofRequests([proof.id]),
        ])
        expect(results.flat()).toHaveLength(1)
        expect((await remoteProofs()).count).toBe(before + 1)
      })

      it("puts a proof request the service refused with a 503 back in the queue, with backoff", async () => {
        const { proof } = await chargebackWithProof([await newScan(sandbox)])
        const before = (await remoteProofs()).count
        await faults({ errorRate: 1 })
        const now = new Date()
        const [result] = await service.submitProofRequests([proof.id], { now })
        expect(result).toMatchObject({ status: "to_submit", error: expect.stringContaining("503") })
        const [row] = await service.listProofRequests({ id: proof.id })
        expect(row).toMatchObject({ status: "to_submit", attempts: 1, remote_id: null })
        // retryBaseDelayMs 60 s, equal jitter: between 30 and 60 s.
        const wait = row.next_poll_at!.getTime() - now.getTime()
        expect(wait).toBeGreaterThanOrEqual(30_000)
        expect(wait).toBeLessThanOrEqual(60_000)
        expect((await remoteProofs()).count).toBe(before)

        await faults(null)
        expect(await service.submitProofRequests([proof.id])).toMatchObject([{ status: "pending" }])
        expect((await remoteProofs()).count).toBe(before + 1)
      })

      it("re-sends a submission whose answer was lost only after its wait (an hour by default), or when an admin asks", async () => {
        const { proof } = await chargebackWithProof([await newScan(sandbox)])
        await faults({ resetRate: 1 })
        const now = new Date()
        const [result] = await service.submitProofRequests([proof.id], { now })
        expect(result.status).toBe("submitting")
        expect(result.error).toMatch(/outcome unknown/)
        const [row] = await service.listProofRequests({ id: proof.id })
        expect(row).toMatchObject({ status: "submitting", in_flight_until: null, next_poll_at: new Date(now.getTime() + HOUR) })

        await faults(null)
        expect(await service.submitProofRequests([proof.id])).toEqual([])
        // The poll job does not claim it before its wait is over, and does after.
        expect(await service.claimProofRequests({ now: new Date(now.getTime() + HOUR - 1_000), limit: 10, leaseMs: 1_000, ids: undefined })).not.toContainEqual(
          expect.objectContaining({ id: proof.id })
        )
        const resent = await service.submitProofRequests([proof.id], { resubmit: true })
        expect(resent).toMatchObject([{ status: "pending", remote_id: expect.any(String) }])
      })

      it("the poll job re-sends a lost answer by itself once its wait is over", async () => {
        const scan = await newScan(sandbox)
        const { proof } = await chargebackWithProof([scan])
        const atService = () => remoteProofs().then((r) => r.items.filter((p) => p.scanIds.includes(scan)))
        await faults({ dropResponse: { route: "disputes.proofRequest.create", count: 1 } })
        const now = new Date()
        await service.submitProofRequests([proof.id], { now })
        await faults(null)
        expect(await atService()).toHaveLength(1)

        const later = new Date(now.getTime() + HOUR + 1_000)
        const claimed = await service.claimProofRequests({ now: later, limit: 1_000, leaseMs: 60_000 })
        expect(claimed).toContainEqual(expect.objectContaining({ id: proof.id, status: "submitting" }))
        expect(await service.submitProofRequests([proof.id], { now: later, due: true })).toMatchObject([{ status: "pending" }])
        // A duplicate at ServiceScan costs little; a lost proof request would lose the dispute.
        expect(await atService()).toHaveLength(2)
        const [row] = await service.listProofRequests({ id: proof.id })
        expect(row).toMatchObject({ status: "pending", submissions: 2 })
      })

      it("does not resubmit a submission still in flight, but does once its sender must have died", async () => {
        const scan = await newScan(sandbox)
        const { proof } = await chargebackWithProof([scan])
        const atService = () => remoteProofs().then((r) => r.items.filter((p) => p.scanIds.includes(scan)))
        // The service takes 1 s to answer the first sender (half the module's timeout here); an admin's
        // resubmit lands once the first has claimed the row (whenever that is on a busy machine),
        // while its PUT is out.
        await faults({ latencyMs: 1_000 })
        const first = service.submitProofRequests([proof.id])
        const claimed = await waitFor(() => service.listProofRequests({ id: proof.id }), ([row]) => row?.status === "submitting", 10_000)
        expect(claimed[0]).toMatchObject({ status: "submitting" })
        expect(await service.submitProofRequests([proof.id], { resubmit: true })).toEqual([])
        expect(await first).toMatchObject([{ status: "pending" }])
        expect(await atService()).toHaveLength(1)

        // A sender that died mid-PUT leaves `submitting` in flight: re-sendable once a whole page of
        // PUTs would be over (250 rows, 4 at a time, 2 s each) plus a minute.
        await faults(null)
        const dead = await chargebackWithProof([await newScan(sandbox)])
        const pageOver = Math.ceil(250 / 4) * 2_000 + 60_000
        await service.updateProofRequests({
          id: dead.proof.id,
          status: "submitting",
          submissions: 1,
          in_flight_until: new Date(Date.now() + pageOver),
          last_error: null,
        })
        expect(await service.submitProofRequests([dead.proof.id], { resubmit: true, now: new Date(Date.now() + pageOver - 5_000) })).toEqual([])
        const later = new Date(Date.now() + pageOver + 1_000)
        expect(await service.submitProofRequests([dead.proof.id], { resubmit: true, now: later })).toMatchObject([
          { status: "pending" },
        ])
      })

      it("does not send again when the service created the proof request but the answer was lost", async () => {
        const scan = await newScan(sandbox)
        const { proof } = await chargebackWithProof([scan])
        await faults({ dropResponse: { route: "disputes.proofRequest.create", count: 1 } })
        const [result] = await service.submitProofRequests([proof.id])
        expect(result.status).toBe("submitting")
        const atService = () => remoteProofs().then((r) => r.items.filter((p) => p.scanIds.includes(scan)))
        expect(await atService()).toHaveLength(1)

        // Neither a second call nor the poll job's claim picks it up again before its wait is over.
        expect(await service.submitProofRequests([proof.id])).toEqual([])
        expect(await service.claimProofRequests({ now: new Date(Date.now() + HOUR - 60_000), limit: 10, leaseMs: 1_000 })).not.toContainEqual(
          expect.objectContaining({ id: proof.id })
        )
        expect(await atService()).toHaveLength(1)
        expect((await service.getQueueStats()).counts.submitting).toBe(1)
      })

      it("fails, without a call, a proof request whose scan ids the service would refuse", async () => {
        const chargeback = await service.createChargebacks({ external_id: "dp_bad_ids", order_id: "o", amount: 1, currency_code: "usd" })
        const proof = await service.createProofRequests({ chargeback_id: chargeback.id, scan_ids: ["not-a-uuid"], next_poll_at: new Date() })
        const before = (await stats())["disputes.proofRequest.create"]
        expect(await service.submitProofRequests([proof.id])).toMatchObject([{ status: "failed", error: expect.stringMatching(/UUIDv4/) }])
        expect((await stats())["disputes.proofRequest.create"]).toBe(before)
      })

      it("stops at an authentication failure: one call, the rest stay queued, polling is blocked", async () => {
        const ids = []
        for (let i = 0; i < 5; i++) {
          ids.push((await chargebackWithProof([await newScan(sandbox)])).proof.id)
        }
        const before = await stats()
        await faults({ keyLookup: "fail" })
        const results = await service.submitProofRequests(ids)
        const after = await stats()
        // Concurrency 4: at most the calls already in flight when the first answer came back.
        expect(after["disputes.proofRequest.create"] - before["disputes.proofRequest.create"]).toBeLessThanOrEqual(4)
        expect(results.every((r) => r.status === "to_submit")).toBe(true)
        expect(await service.getConfigurationError()).toMatchObject({ status: 403, message: expect.stringContaining("Invalid API key provided") })
        expect(logLines.some((line) => line.startsWith("error:") && line.includes("refused the secret key"))).toBe(true)
        expect(logLines.join("\n")).not.toContain("sk_test_servicescan_demo")

        // While blocked, nothing goes out at all.
        const blocked = await service.submitProofRequests(ids)
        expect(blocked.every((r) => r.status === "to_submit" && /Not sent/.test(r.error ?? ""))).toBe(true)
        expect((await stats())["disputes.proofRequest.create"]).toBe(after["disputes.proofRequest.create"])

        await faults(null)
        await expect(service.probe()).resolves.toMatchObject({ reachable: true })
        expect(await service.getConfigurationError()).toBeNull()
        const rows = await service.listProofRequests({ id: ids })
        expect(rows.every((r) => r.status === "to_submit")).toBe(true)
      })

      it("keeps another process's refused key on record: this process still calls, its probe cannot lift it, the job's can", async () => {
        // What a worker wrote when the service refused its (different) key, in the shared table.
        const db = new Client({ connectionString: dbConfig.clientUrl })
        await db.connect()
        try {
          await db.query(`SET search_path TO "${dbConfig.schema}"`)
          await db.query(
            `INSERT INTO "servicescan_service_state" ("id", "configuration_error_message", "configuration_error_status", "configuration_error_at", "configuration_error_key", "created_at", "updated_at")
             VALUES ('disputes_api', 'ServiceScan refused the secret key: 403', 403, now(), '0123456789abcdef', now(), now())
             ON CONFLICT ("id") DO UPDATE SET "configuration_error_message" = excluded."configuration_error_message",
               "configuration_error_status" = 403, "configuration_error_key" = excluded."configuration_error_key"`
          )
        } finally {
          await db.end()
        }
        expect(await service.getConfigurationError()).toMatchObject({ status: 403, this_process: false })
        expect(await service.getConfigurationErrorHere()).toBeNull()

        // This process's key works: its calls go out.
        const { proof } = await chargebackWithProof([await newScan(sandbox)])
        const [sent] = await service.submitProofRequests([proof.id])
        expect(sent.status).toBe("pending")

        // An admin's probe proves this key, not the other one: the record stays for the health page.
        await expect(service.probe()).resolves.toMatchObject({ reachable: true })
        expect(await service.getConfigurationError()).toMatchObject({ this_process: false })

        // The poll job's working probe means polling works: it lifts what another key left behind.
        await service.probe({ liftAny: true })
        expect(await service.getConfigurationError()).toBeNull()
      })
    })

    describe("claimProofRequests", () => {
      it("claims due requests once, hiding them behind a lease", async () => {
        const a = await chargebackWithProof([await newScan(sandbox)])
        const b = await chargebackWithProof([await newScan(sandbox)])
        const now = new Date(Date.now() + 1_000)
        const [first, second] = await Promise.all([
          service.claimProofRequests({ now, limit: 10, leaseMs: 60_000 }),
          service.claimProofRequests({ now, limit: 10, leaseMs: 60_000 }),
        ])
        const claimed = [...first, ...second].map((c) => c.id).sort()
        expect(claimed).toEqual([a.proof.id, b.proof.id].sort())
        expect(await service.claimProofRequests({ now, limit: 10, leaseMs: 60_000 })).toEqual([])
        // After the lease, they are due again.
        const later = new Date(now.getTime() + 61_000)
        expect(await service.claimProofRequests({ now: later, limit: 1, leaseMs: 60_000 })).toHaveLength(1)
      })

      it("takes each page's order from the due index, so no claim sorts the backlog", async () => {
        // Rows created together share next_poll_at to the microsecond. When the claim's
        // ORDER BY did not match the index, PostgreSQL read and sorted every due row on every
        // page: at 100,000, the claims took 43.9 s, summed over two workers, of a 65.6 s run (bench/README.md).
        const manager = MikroOrmWrapper.forkManager() as SqlEntityManager
        const now = new Date()
        const { sql, bindings } = claimStatement({ now, leaseUntil: new Date(now.getTime() + 60_000), limit: 250 })
        const plan = await manager.transactional(async (em) => {
          // With sorting priced out, a Sort node remains only where no index gives the order.
          await em.execute("SET LOCAL enable_sort = off")
          const rows: { "QUERY PLAN": string }[] = await em.execute(`EXPLAIN ${sql}`, bindings)
          return rows.map((row) => row["QUERY PLAN"]).join("\n")
        })
        expect(plan).toContain("IDX_servicescan_proof_request_due_order")
        expect(plan).not.toMatch(/Sort/)
      })

      it("claims given ids whatever their schedule, and ignores finished ones", async () => {
        const { proof } = await chargebackWithProof([await newScan(sandbox)])
        await service.updateProofRequests({ id: proof.id, next_poll_at: new Date(Date.now() + HOUR) })
        expect(await service.claimProofRequests({ now: new Date(), limit: 10, leaseMs: 1_000 })).toEqual([])
        expect(await service.claimProofRequests({ now: new Date(), limit: 10, leaseMs: 1_000, ids: [proof.id] })).toMatchObject([
          { id: proof.id, status: "to_submit", remote_id: null },
        ])
        await service.updateProofRequests({ id: proof.id, status: "complete" })
        expect(await service.claimProofRequests({ now: new Date(), limit: 10, leaseMs: 1_000, ids: [proof.id] })).toEqual([])
      })
    })

    describe("fetchProofResults and applyProofResults", () => {
      it("keeps polling a pending request, then stores ground truths when complete", async () => {
        const [valid, fraud] = [await newScan(sandbox), await newScan(sandbox)]
        const { chargeback, proof } = await chargebackWithProof([valid, fraud])
        const [{ remote_id }] = await service.submitProofRequests([proof.id])

        const pending = await service.fetchProofResults([{ id: proof.id, remote_id }])
        expect(pending).toEqual([{ id: proof.id, kind: "pending" }])
        const now = new Date()
        await service.applyProofResults(pending, { now })
        let [row] = await service.listProofRequests({ id: proof.id })
        expect(row.status).toBe("pending")
        expect(row.last_polled_at?.getTime()).toBe(now.getTime())

        await label(valid, "valid")
        await label(fraud, "fraud")
        const complete = await service.fetchProofResults([{ id: proof.id, remote_id }])
        const { completed, snapshot } = await service.applyProofResults(complete)
        expect(completed).toEqual([{ id: proof.id, chargeback_id: chargeback.id, remote_id }])
        ;[row] = await service.listProofRequests({ id: proof.id }, { relations: ["scans"] })
        expect(row).toMatchObject({ status: "complete", next_poll_at: null, last_error: null })
        const byScan = Object.fromEntries(row.scans.map((s) => [s.scan_id, s]))
        expect(byScan[valid]).toMatchObject({ ground_truth: "valid", image_url: expect.stringContaining(`${valid}.jpg`) })
        expect(byScan[fraud]).toMatchObject({ ground_truth: "invalid", reported_ground_truth: "invalid", image_url: null })

        // The compensation puts everything back.
        await service.restoreProofResults(snapshot)
        ;[row] = await service.listProofRequests({ id: proof.id }, { relations: ["scans"] })
        expect(row.status).toBe("pending")
        expect(row.scans.every((s) => s.ground_truth === null)).toBe(true)
      })

      it("backs off after errors and fails a request the service does not know", async () => {
        const { proof } = await chargebackWithProof([await newScan(sandbox)])
        await service.updateProofRequests({ id: proof.id, status: "pending", remote_id: "11111111-1111-4111-8111-111111111111" })
        const unknown = await service.fetchProofResults([{ id: proof.id, remote_id: "11111111-1111-4111-8111-111111111111" }])
        expect(unknown).toMatchObject([{ kind: "failed", error: expect.stringContaining("Proof request not found") }])

        await faults({ errorRate: 1 })
        const flaky = await service.fetchProofResults([{ id: proof.id, remote_id: "11111111-1111-4111-8111-111111111111" }])
        expect(flaky).toMatchObject([{ kind: "error", error: expect.stringContaining("503") }])
        const now = new Date()
        await service.applyProofResults(flaky, { now })
        await service.applyProofResults(flaky, { now })
        const [row] = await service.listProofRequests({ id: proof.id })
        expect(row).toMatchObject({ status: "pending", attempts: 2 })
        // Second failure: 2 × 60 s with equal jitter.
        const wait = row.next_poll_at!.getTime() - now.getTime()
        expect(wait).toBeGreaterThanOrEqual(60_000)
        expect(wait).toBeLessThanOrEqual(120_000)

        await service.applyProofResults(unknown)
        const [failed] = await service.listProofRequests({ id: proof.id })
        expect(failed).toMatchObject({ status: "failed", next_poll_at: null })
      })

      it("stops at the first authentication failure and skips the rest", async () => {
        const rows = await sentProofRows(6)
        const before = await stats()
        await faults({ keyLookup: "fail" })
        const outcomes = await service.fetchProofResults(rows)
        const calls = (await stats())["disputes.proof.get"] - before["disputes.proof.get"]
        expect(calls).toBeLessThanOrEqual(4)
        expect(outcomes.every((o) => o.kind === "skipped")).toBe(true)
        expect(await service.getConfigurationError()).not.toBeNull()
        // Blocked: no call at all on the next run.
        await service.fetchProofResults(rows)
        expect((await stats())["disputes.proof.get"] - before["disputes.proof.get"]).toBe(calls)
      })

      it("stops the other page's waiting calls too: two pages at once (the poll job's) make no call after the first refusal", async () => {
        await faults(null)
        await service.probe()
        const rows = await sentProofRows(12)
        const before = await stats()
        // Latency keeps four calls on the wire while eight wait their turn of the shared limit.
        await faults({ keyLookup: "fail", latencyMs: 200 })
        const outcomes = (await Promise.all([service.fetchProofResults(rows.slice(0, 6)), service.fetchProofResults(rows.slice(6))])).flat()
        const calls = (await stats())["disputes.proof.get"] - before["disputes.proof.get"]
        await faults(null)
        // Concurrency 4: the calls on the wire when the first 403 came back, none after it.
        expect(calls).toBeGreaterThan(0)
        expect(calls).toBeLessThanOrEqual(4)
        expect(outcomes.every((o) => o.kind === "skipped")).toBe(true)
        // Lifted by a probe: the next page calls again.
        await expect(service.probe()).resolves.toMatchObject({ reachable: true })
        const again = await service.fetchProofResults(rows.slice(0, 1))
        expect(again[0].kind).not.toBe("skipped")
      })
    })

    describe("refreshChargebackStatuses", () => {
      it("derives the status from the proof requests and leaves final statuses alone", async () => {
        const scan = await newScan(sandbox)
        const { chargeback, proof } = await chargebackWithProof([scan])
        expect(await service.refreshChargebackStatuses([chargeback.id])).toMatchObject([
          { id: chargeback.id, from: "open", to: "evidence_pending" },
        ])
        const [{ remote_id }] = await service.submitProofRequests([proof.id])
        await label(scan, "valid")
        await service.applyProofResults(await service.fetchProofResults([{ id: proof.id, remote_id }]))
        expect(await service.refreshChargebackStatuses([chargeback.id])).toMatchObject([
          { from: "evidence_pending", to: "evidence_ready", order_id: "order_test" },
        ])
        await service.updateChargebacks({ id: chargeback.id, status: "won" })
        expect(await service.refreshChargebackStatuses([chargeback.id])).toEqual([])

        // A compensation never clobbers what an admin decided in between.
        await service.restoreChargebackStatuses([
          { id: chargeback.id, order_id: "order_test", external_id: chargeback.external_id, from: "evidence_pending", to: "evidence_ready" },
        ])
        expect((await service.retrieveChargeback(chargeback.id)).status).toBe("won")

        const empty = await service.createChargebacks({ external_id: "dp_empty", order_id: "o", amount: 1, currency_code: "usd" })
        expect(await service.refreshChargebackStatuses([empty.id])).toMatchObject([{ to: "no_evidence" }])
      })

      it("reports only changes it made: an admin's outcome set meanwhile wins, and no event claims otherwise", async () => {
        const { chargeback } = await chargebackWithProof([await newScan(sandbox)])
        // An admin's transaction holds the row while the refresh reads it, then sets the outcome.
        const admin = new Client({ connectionString: dbConfig.clientUrl })
        await admin.connect()
        try {
          await admin.query(`SET search_path TO "${dbConfig.schema}"`)
          await admin.query("BEGIN")
          await admin.query(`SELECT 1 FROM "servicescan_chargeback" WHERE "id" = $1 FOR UPDATE`, [chargeback.id])
          const refresh = service.refreshChargebackStatuses([chargeback.id])
          // Until the refresh has read the row and its UPDATE waits on our lock: only then is the race real.
          for (let waited = 0; ; waited += 20) {
            const { rows } = await admin.query(
              // (Its reported query text may lag behind; that it waits on a lock in this database is what counts.)
              `SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> pg_backend_pid()`
            )
            if (rows[0].n > 0) break
            if (waited > 10_000) throw new Error("the refresh never reached its UPDATE")
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
          await admin.query(`UPDATE "servicescan_chargeback" SET "status" = 'won' WHERE "id" = $1`, [chargeback.id])
          await admin.query("COMMIT")
          expect(await refresh).toEqual([])
        } finally {
          await admin.end()
        }
        expect((await service.retrieveChargeback(chargeback.id)).status).toBe("won")
      })
    })

    describe("probe, settings and queue stats", () => {
      it("reports keys as booleans and the queue by status", async () => {
        const settings = service.getSettings()
        expect(settings.keys).toEqual({ secret_key: true, webhook_secret: true, evidence_key: false })
        expect(JSON.stringify(settings)).not.toContain("sk_test_servicescan_demo")
        expect(JSON.stringify(settings)).not.toContain("whsec_test")

        await chargebackWithProof([await newScan(sandbox)])
        const stats = await service.getQueueStats()
        expect(stats.counts).toMatchObject({ to_submit: 1, pending: 0 })
        await expect(service.probe()).resolves.toMatchObject({ reachable: true, latency_ms: expect.any(Number) })
      })
    })

    describe("claimCheckoutAttempt", () => {
      const attempt = (session: string, form: string | null, card: string | null = null) => ({
        payment_session_id: session,
        cart_id: `cart_${session}`,
        form_id: form,
        payment_method_id: card,
        request_id: `req_${session}`,
      })

      it("records a first attempt, moves it on a repeat, and answers the record as it was", async () => {
        const form = "0F8FAD5B-D9CB-469F-A165-70867728950E"
        const first = await service.claimCheckoutAttempt({ ...attempt("payses_a", form), now: new Date("2026-01-01T10:00:00Z") })
        expect(first).toEqual({ other_sessions: [], recorded: true, previous: null })
        const [row] = await service.listCheckoutAttempts({ payment_session_id: "payses_a" })
        expect(row).toMatchObject({ form_id: form.toLowerCase(), cart_id: "cart_payses_a", request_id: "req_payses_a", reconciled_at: null })
        expect(row.id).toMatch(/^scatt_/)
        await service.updateCheckoutAttempts({ id: row.id, reconciled_at: new Date("2026-01-01T11:00:00Z") })

        const again = await service.claimCheckoutAttempt({ ...attempt("payses_a", form), now: new Date("2026-01-02T10:00:00Z") })
        expect(again).toEqual({
          other_sessions: [],
          recorded: true,
          previous: { id: row.id, attempted_at: new Date("2026-01-01T10:00:00Z"), reconciled_at: new Date("2026-01-01T11:00:00Z") },
        })
        const rows = await service.listCheckoutAttempts({ payment_session_id: "payses_a" })
        expect(rows).toHaveLength(1)
        expect(rows[0]).toMatchObject({ id: row.id, attempted_at: new Date("2026-01-02T10:00:00Z"), reconciled_at: null })
      })

      it("records nothing while another session carried the same form id, unless forced", async () => {
        const form = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
        await service.claimCheckoutAttempt(attempt("payses_b1", form))
        const refused = await service.claimCheckoutAttempt(attempt("payses_b2", form.toUpperCase()))
        expect(refused).toEqual({ other_sessions: ["payses_b1"], recorded: false, previous: null })
        expect(await service.listCheckoutAttempts({ payment_session_id: "payses_b2" })).toHaveLength(0)

        const forced = await service.claimCheckoutAttempt({ ...attempt("payses_b2", form), force: true })
        expect(forced).toMatchObject({ other_sessions: ["payses_b1"], recorded: true, previous: null })
        expect(await service.listCheckoutAttempts({ form_id: form })).toHaveLength(2)
      })

      it("always records a saved card's session (no form id), however many sessions the card paid in", async () => {
        for (const session of ["payses_c1", "payses_c2"]) {
          expect(await service.claimCheckoutAttempt(attempt(session, null, "sscard_1"))).toEqual({ other_sessions: [], recorded: true, previous: null })
        }
        const rows = await service.listCheckoutAttempts({ payment_method_id: "sscard_1" })
        expect(rows.map((r) => [r.payment_session_id, r.form_id])).toEqual(
          expect.arrayContaining([
            ["payses_c1", null],
            ["payses_c2", null],
          ])
        )
      })
    })

    describe("recordPaymentRefs", () => {
      const ref = (payment: string, txn: string, extra: { scan_id?: string | null; token_fingerprint?: string | null } = {}) => ({
        payment_id: payment,
        order_id: `order_${payment}`,
        processor_transaction_id: txn,
        processor_order_id: `req_${payment}`,
        scan_id: extra.scan_id ?? null,
        token_fingerprint: extra.token_fingerprint,
      })

      it("adds what is new, leaves what is recorded, and answers only the payments it added", async () => {
        const scan = "3f2504e0-4f89-41d3-9a0c-0305e82c3301"
        expect(await service.recordPaymentRefs([ref("pay_r1", "txn_r1", { scan_id: scan, token_fingerprint: "fp_1" })])).toEqual(["pay_r1"])

        // pay_r1 again, with other values: the first record stands. pay_r2 twice in one call: one row.
        const added = await service.recordPaymentRefs([ref("pay_r1", "txn_other"), ref("pay_r2", "txn_r2"), ref("pay_r2", "txn_r2")])
        expect(added).toEqual(["pay_r2"])
        expect(await service.recordPaymentRefs([])).toEqual([])

        const rows = await service.listPaymentRefs({ payment_id: ["pay_r1", "pay_r2"] }, { order: { payment_id: "ASC" } })
        expect(rows).toHaveLength(2)
        expect(rows[0]).toMatchObject({
          payment_id: "pay_r1",
          order_id: "order_pay_r1",
          processor_transaction_id: "txn_r1",
          processor_order_id: "req_pay_r1",
          scan_id: scan,
          token_fingerprint: "fp_1",
        })
        expect(rows[0].id).toMatch(/^sspref_[0-9A-Z]{26}$/)
        expect(rows[1]).toMatchObject({ payment_id: "pay_r2", processor_transaction_id: "txn_r2", scan_id: null, token_fingerprint: null })
        expect(rows[0].created_at).toBeInstanceOf(Date)

        // What the import matches cases with reads them back.
        const found = await service.findPaymentRefs([
          { case_id: "case_r1", processor_transaction_id: "txn_r1", processor_order_id: null },
          { case_id: "case_r2", processor_transaction_id: "txn_unknown", processor_order_id: "req_pay_r2" },
        ])
        expect(Object.fromEntries(found)).toEqual({
          case_r1: { order_id: "order_pay_r1", payment_id: "pay_r1", scan_id: scan },
          case_r2: { order_id: "order_pay_r2", payment_id: "pay_r2", scan_id: null },
        })
      })

      it("records a payment again once its earlier record is deleted", async () => {
        await service.recordPaymentRefs([ref("pay_r3", "txn_r3")])
        const [row] = await service.listPaymentRefs({ payment_id: "pay_r3" })
        await service.softDeletePaymentRefs([row.id])
        expect(await service.recordPaymentRefs([ref("pay_r3", "txn_r3b")])).toEqual(["pay_r3"])
        const live = await service.listPaymentRefs({ payment_id: "pay_r3" })
        expect(live.map((r) => r.processor_transaction_id)).toEqual(["txn_r3b"])
      })
    })

    describe("verifyWebhookSignature", () => {
      it("accepts a fresh signature of the exact body only", async () => {
        const body = JSON.stringify({ external_id: "dp_1" })
        const now = Math.floor(Date.now() / 1000)
        const header = signWebhookPayload(body, "whsec_test_0123456789abcdef", now)
        expect(service.verifyWebhookSignature(body, header)).toEqual({ ok: true, timestamp: now })
        expect(service.verifyWebhookSignature(body + " ", header)).toEqual({ ok: false, reason: "mismatch" })
        expect(service.verifyWebhookSignature(body, header, now + 301)).toEqual({ ok: false, reason: "stale" })
      })
    })
  },
})
