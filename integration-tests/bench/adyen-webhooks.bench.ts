import { spawn, ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import os from "node:os"
import { createInterface } from "node:readline"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { reserveSandboxUrl, sandboxFetch } from "../helpers/sandbox"
import { percentile } from "./precision"
import { startProfilerFromEnv } from "./profiler"
import { startSandboxProcess } from "./sandbox-process"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"

/**
 * `npm run bench:adyen-webhooks` (issue 29): BENCH_N (default 10,000) Adyen CHARGEBACK
 * notifications, one item a POST as Adyen sends them, delivered BENCH_CONCURRENCY (default 4)
 * at a time to `POST /hooks/servicescan/adyen` of the running app, each HMAC-signed with the
 * test app's key and carrying the webhook's Basic credentials.
 *
 * - The app is booted here (medusaIntegrationTestRunner), with the heap Node gives a worker
 *   with BENCH_WORKER_MEMORY_MB of memory (scripts/bench.mjs passes the flags; default 2048):
 *   the route, its middlewares, the subscriber and the workflows are the shipped ones.
 * - Each notification disputes one payment of this store: its payment reference (the Adyen
 *   pspReference, the merchant reference and the payment's scan id) is seeded first, as the
 *   order.placed subscriber records it.
 * - The notifications are signed and sent by a child process (Adyen), which times each one from
 *   the request's first byte to the answer's last: the acknowledgement latency.
 * - The sandbox (ServiceScan and Adyen's APIs) runs in its own process and counts the calls.
 *
 * Figures: acknowledgement p50/p99; the time from the first notification sent until every
 * dispute is recorded as a chargeback with its proof request sent to ServiceScan; the calls the
 * sandbox received; the process's peak RSS. Before they print, the bench checks in the database
 * (one case, one chargeback, one sent proof request per dispute) and at the sandbox (one proof
 * request per dispute's scan) that every dispute was recorded exactly once.
 */
const SANDBOX_PORT = Number(new URL(reserveSandboxUrl()).port)
const N = Number(process.env.BENCH_N ?? 10_000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4)
/** How long the bench waits for the work after the last acknowledgement before it gives up. */
const WAIT_S = Number(process.env.BENCH_WAIT_S ?? 60)
/** The test app's Adyen webhook settings (medusa-config.ts, adyenDemo). */
const HMAC_KEY = process.env.SERVICESCAN_ADYEN_HMAC_KEY ?? "5934AD24EED2B42F39D1F8BBAA602FF05E7D291AC95BC71EA5538AC41B6F0F56"
const BASIC = `Basic ${Buffer.from(`adyen-webhook:${process.env.SERVICESCAN_ADYEN_WEBHOOK_PASSWORD ?? "demo-webhook-password"}`).toString("base64")}`
const MERCHANT_ACCOUNT = "ServiceScanDemoECOM"
/** The test app's Adyen provider (medusa-config.ts). */
const ADYEN_PROVIDER_ID = "pp_servicescan_adyen"

type Payment = { psp: string; reference: string }
type Delivery = { wallMs: number; latencies: number[]; firstSentAt: number }

/** The payment reference Adyen would have given payment `i` (16 characters, as Adyen's). */
const pspOf = (i: number) => `BP${String(i).padStart(14, "0")}`
/** The dispute's own pspReference. */
const disputePspOf = (i: number) => `BD${String(i).padStart(14, "0")}`

/**
 * Adyen: a child that signs one CHARGEBACK notification per payment (the sandbox's own HMAC
 * code, not the plugin's) and POSTs them `CONCURRENCY` at a time over kept-alive connections.
 * It answers the wall time, each acknowledgement's latency, and when the first was sent (epoch ms).
 */
function deliverNotifications(url: string, payments: Payment[]): { done: Promise<Delivery>; child: ChildProcess } {
  const script = `
    const http = require("node:http")
    const readline = require("node:readline")
    const { adyenHmacSignature } = require("servicescan-sandbox")
    const agent = new http.Agent({ keepAlive: true, maxSockets: ${CONCURRENCY} })
    const DAY = 24 * 60 * 60 * 1000
    const post = (url, body) => new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint()
      const req = http.request(url, {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), authorization: ${JSON.stringify(BASIC)} },
      }, (res) => {
        let text = ""
        res.setEncoding("utf8")
        res.on("data", (chunk) => (text += chunk))
        res.on("end", () => {
          const ms = Number(process.hrtime.bigint() - t0) / 1e6
          if (res.statusCode !== 200 || text !== "[accepted]") return reject(new Error("answered " + res.statusCode + ": " + text.slice(0, 200)))
          resolve(ms)
        })
        res.on("error", reject)
      })
      req.on("error", reject)
      req.end(body)
    })
    readline.createInterface({ input: process.stdin }).once("line", async (line) => {
      const { url, payments, key, merchantAccount } = JSON.parse(line)
      const notification = ({ psp, dispute, reference }) => {
        const item = {
          pspReference: dispute,
          originalReference: psp,
          merchantAccountCode: merchantAccount,
          merchantReference: reference,
          amount: { currency: "USD", value: 2000 },
          eventCode: "CHARGEBACK",
          eventDate: new Date().toISOString(),
          success: "true",
          reason: "Other Fraud-Card Absent Environment",
          paymentMethod: "visa",
        }
        const additionalData = {
          chargebackReasonCode: "10.4",
          chargebackSchemeCode: "visa",
          defendable: "true",
          disputeStatus: "Unresponded",
          defensePeriodEndsAt: new Date(Date.now() + 14 * DAY).toISOString(),
          hmacSignature: adyenHmacSignature(item, key),
        }
        return JSON.stringify({ live: "false", notificationItems: [{ NotificationRequestItem: { ...item, additionalData } }] })
      }
      try {
        const latencies = new Array(payments.length)
        let next = 0
        const firstSentAt = Date.now()
        const t0 = process.hrtime.bigint()
        await Promise.all(Array.from({ length: ${CONCURRENCY} }, async () => {
          while (next < payments.length) {
            const i = next++
            latencies[i] = await post(url, notification(payments[i]))
          }
        }))
        const wallMs = Number(process.hrtime.bigint() - t0) / 1e6
        process.stdout.write(JSON.stringify({ wallMs, latencies, firstSentAt }) + "\\n")
      } catch (error) {
        process.stdout.write(JSON.stringify({ error: String(error && error.message || error) }) + "\\n")
      }
    })
  `
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] })
  const done = new Promise<Delivery>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", (line) => {
      const answer = JSON.parse(line)
      if (answer.error) reject(new Error(`a notification was not acknowledged: ${answer.error}`))
      else resolve(answer)
    })
    child.once("exit", (code) => reject(new Error(`the notifying process exited with ${code}`)))
  })
  child.stdin!.write(
    JSON.stringify({
      url,
      key: HMAC_KEY,
      merchantAccount: MERCHANT_ACCOUNT,
      payments: payments.map((p, i) => ({ ...p, dispute: disputePspOf(i) })),
    }) + "\n"
  )
  return { done, child }
}

type Counts = { cases: number; distinct_cases: number; chargebacks: number; distinct_chargebacks: number; proofs_sent: number; distinct_proofs: number; events: number }

jest.setTimeout(3_600_000)

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer, dbConnection }) => {
    const children: ChildProcess[] = []

    afterAll(() => {
      for (const child of children) child.kill("SIGTERM")
    })

    /** What the database holds of Adyen's disputes: rows, and distinct disputes among them. */
    async function counts(): Promise<Counts> {
      const { rows } = await dbConnection.raw(
        `SELECT
           (SELECT count(*) FROM servicescan_dispute_case WHERE gateway = 'adyen' AND deleted_at IS NULL)::int AS cases,
           (SELECT count(DISTINCT case_id) FROM servicescan_dispute_case WHERE gateway = 'adyen' AND deleted_at IS NULL)::int AS distinct_cases,
           (SELECT count(*) FROM servicescan_chargeback WHERE deleted_at IS NULL)::int AS chargebacks,
           (SELECT count(DISTINCT external_id) FROM servicescan_chargeback WHERE deleted_at IS NULL)::int AS distinct_chargebacks,
           (SELECT count(*) FROM servicescan_proof_request WHERE remote_id IS NOT NULL AND deleted_at IS NULL)::int AS proofs_sent,
           (SELECT count(DISTINCT chargeback_id) FROM servicescan_proof_request WHERE remote_id IS NOT NULL AND deleted_at IS NULL)::int AS distinct_proofs,
           (SELECT count(*) FROM servicescan_processor_event WHERE gateway = 'adyen')::int AS events`
      )
      return rows[0]
    }

    it("measures Adyen's pushed disputes, from the webhook to the proof requests", async () => {
      const sandbox = await startSandboxProcess(SANDBOX_PORT)
      children.push(sandbox.child)
      const container = getContainer()
      const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)

      // One placed order per dispute, paid at Adyen through ServiceScan (bulk SQL, as bench:chargebacks
      // seeds them), and its payment reference, as the order.placed subscriber records it.
      const payments: Payment[] = []
      const scanIds = new Set<string>()
      const seedStarted = Date.now()
      const pg = await dbConnection.client.acquireConnection()
      try {
        for (let start = 0; start < N; start += 1000) {
          const rows = Array.from({ length: Math.min(1000, N - start) }, (_, k) => {
            const i = start + k
            const scan = randomUUID()
            scanIds.add(scan)
            payments.push({ psp: pspOf(i), reference: `bench_ref_${i}` })
            return { i, scan }
          })
          const col = (make: (row: { i: number; scan: string }) => string) => rows.map(make)
          const orderIds = col(({ i }) => `order_bench_${i}`)
          const collections = col(({ i }) => `paycol_bench_${i}`)
          const sessions = col(({ i }) => `payses_bench_${i}`)
          const paymentIds = col(({ i }) => `pay_bench_${i}`)
          const raw = JSON.stringify({ value: "20", precision: 20 })
          await pg.query(
            `INSERT INTO "order" (id, currency_code, email, status, version) SELECT id, 'usd', 'bench@example.com', 'pending', 1 FROM unnest($1::text[]) AS id`,
            [orderIds]
          )
          await pg.query(
            `INSERT INTO payment_collection (id, currency_code, amount, raw_amount, authorized_amount, raw_authorized_amount, status)
             SELECT id, 'usd', 20, $2::jsonb, 20, $2::jsonb, 'authorized' FROM unnest($1::text[]) AS id`,
            [collections, raw]
          )
          await pg.query(
            `INSERT INTO payment_session (id, currency_code, amount, raw_amount, provider_id, data, payment_collection_id, status, authorized_at)
             SELECT s.id, 'usd', 20, $3::jsonb, $4, '{}'::jsonb, s.collection_id, 'authorized', now() FROM unnest($1::text[], $2::text[]) AS s(id, collection_id)`,
            [sessions, collections, raw, ADYEN_PROVIDER_ID]
          )
          await pg.query(
            `INSERT INTO payment (id, amount, raw_amount, currency_code, provider_id, data, payment_collection_id, payment_session_id)
             SELECT p.id, 20, $6::jsonb, 'usd', $7, jsonb_build_object('psp_reference', p.psp, 'reference', p.ref, 'scan_id', p.scan_id, 'status', 'authorized'),
                    p.collection_id, p.session_id
               FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $8::text[]) AS p(id, collection_id, session_id, psp, ref, scan_id)`,
            [paymentIds, collections, sessions, col(({ i }) => pspOf(i)), col(({ i }) => `bench_ref_${i}`), raw, ADYEN_PROVIDER_ID, col(({ scan }) => scan)]
          )
          await pg.query(
            `INSERT INTO order_payment_collection (id, order_id, payment_collection_id)
             SELECT 'ordpay_' || o.collection_id, o.order_id, o.collection_id FROM unnest($1::text[], $2::text[]) AS o(order_id, collection_id)`,
            [orderIds, collections]
          )
          await service.createPaymentRefs(
            rows.map(({ i, scan }) => ({
              payment_id: `pay_bench_${i}`,
              order_id: `order_bench_${i}`,
              processor_transaction_id: pspOf(i),
              processor_order_id: `bench_ref_${i}`,
              scan_id: scan,
            }))
          )
        }
        await pg.query("ANALYZE")
      } finally {
        await dbConnection.client.releaseConnection(pg)
      }
      const seedSeconds = (Date.now() - seedStarted) / 1000
      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })

      // Peak RSS over the run, sampled every 100 ms, and the process's maxRSS, read after.
      const rssBefore = process.memoryUsage.rss()
      let peakRss = rssBefore
      const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 100)
      const profiler = await startProfilerFromEnv()
      const cpuBefore = process.cpuUsage()

      const url = `${String(api.defaults.baseURL).replace(/\/$/, "")}/hooks/servicescan/adyen`
      const adyen = deliverNotifications(url, payments)
      children.push(adyen.child)
      const delivery = await adyen.done

      // Then until every dispute is a chargeback with its proof request sent.
      let now = await counts()
      const giveUpAt = Date.now() + WAIT_S * 1000
      while (now.proofs_sent < N && Date.now() < giveUpAt) {
        await new Promise((resolve) => setTimeout(resolve, 250))
        now = await counts()
      }
      const allRecordedMs = Date.now() - delivery.firstSentAt
      clearInterval(sampler)
      const cpu = process.cpuUsage(cpuBefore)
      await profiler.stop()
      const maxRssMb = Math.round(process.resourceUsage().maxRSS / 1024)

      // Settle: anything still on its way would show as a duplicate in the counts below.
      await new Promise((resolve) => setTimeout(resolve, 2000))
      const final = await counts()
      const { body: stats } = await sandboxFetch<{ total: number; requests: Record<string, number> }>("/__sandbox/stats")
      const { body: proofRequests } = await sandboxFetch<{ items: { scanIds: string[] }[] }>("/__sandbox/proof-requests")
      const perScan = new Map<string, number>()
      for (const item of proofRequests.items) {
        for (const id of item.scanIds) perScan.set(id.toLowerCase(), (perScan.get(id.toLowerCase()) ?? 0) + 1)
      }
      const scansAsked = [...scanIds].filter((id) => perScan.has(id)).length
      const scansAskedTwice = [...perScan.values()].filter((count) => count > 1).length
      const duplicates =
        final.cases - final.distinct_cases + (final.chargebacks - final.distinct_chargebacks) + (final.proofs_sent - final.distinct_proofs) + scansAskedTwice

      const routes = Object.entries(stats.requests)
        .filter(([, count]) => count > 0)
        .map(([route, count]) => `${route} ${count}`)
        .join(", ")
      const sorted = [...delivery.latencies].sort((a, b) => a - b)
      const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ").trim()
      const lines = [
        `notifications: ${N} CHARGEBACK items, one a POST, ${CONCURRENCY} at a time, HMAC-signed with Basic auth; ${N} orders paid at Adyen and their payment references seeded in ${seedSeconds.toFixed(1)} s`,
        `acknowledged all ${N} in ${(delivery.wallMs / 1000).toFixed(1)} s (${(N / (delivery.wallMs / 1000)).toFixed(0)}/s); latency p50 ${percentile(sorted, 50).toFixed(1)} ms, p90 ${percentile(sorted, 90).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`,
        `database: ${final.events} stored events, ${final.cases} cases (${final.distinct_cases} distinct), ${final.chargebacks} chargebacks (${final.distinct_chargebacks} distinct), ${final.proofs_sent} proof requests sent (${final.distinct_proofs} distinct chargebacks)`,
        `sandbox: ${proofRequests.items.length} proof requests, ${scansAsked} of the ${N} disputed payments' scans asked for, ${scansAskedTwice} asked for more than once; requests during the run: ${stats.total} (${routes || "none"})`,
        `node ${process.version}${flags ? ` (${flags})` : ""}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}; CPU of this process (the app) during the run: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`,
        `memory: this process is the app and the jest runner that boots it; RSS ${Math.round(rssBefore / 1e6)} MB before the first notification, peak during the run ${Math.round(peakRss / 1e6)} MB (sampled every 100 ms), maxRSS ${maxRssMb} MB`,
      ]
      // The work happened, or there is no figure: every dispute the database holds as recorded is one
      // the bench sent, and the sandbox was asked for exactly those scans. Disputes still waiting when
      // the bench gives up are counted as such (the time figure is then a miss, not a number).
      const problems = [
        // A proof request is sent before its id is stored, so work still going on can only put the sandbox ahead.
        (final.proofs_sent >= N ? scansAsked !== N : scansAsked < final.proofs_sent) &&
          `${final.proofs_sent} proof requests sent in the database, but the sandbox was asked for ${scansAsked} of the scans`,
        final.events !== N && `${final.events} events stored for ${N} notifications`,
      ].filter(Boolean)
      if (problems.length) {
        lines.push(`the work did not happen as counted: ${problems.join("; ")}`)
        writeFileSync(process.env.BENCH_RESULT_FILE ?? "/dev/stdout", JSON.stringify({ lines }))
        throw new Error(problems.join("; "))
      }
      const recorded =
        final.proofs_sent >= N
          ? `all recorded with their proof requests in ${(allRecordedMs / 1000).toFixed(1)} s`
          : `${final.proofs_sent} of ${N} recorded with their proof requests after ${(allRecordedMs / 1000).toFixed(1)} s (BENCH_WAIT_S=${WAIT_S} after the last acknowledgement)`
      lines.push(
        `adyen webhooks: ${N} notifications, ack p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms; ` +
          `${recorded}; ${stats.total} calls; ${duplicates} duplicates; peak RSS ${maxRssMb} MB`
      )
      writeFileSync(process.env.BENCH_RESULT_FILE ?? "/dev/stdout", JSON.stringify({ lines }))
      expect(duplicates).toBe(0)
    })
  },
})
