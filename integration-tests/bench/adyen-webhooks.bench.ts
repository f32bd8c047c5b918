import { spawn, ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import os from "node:os"
import { basename, dirname } from "node:path"
import { createInterface } from "node:readline"
import { Client } from "pg"
import { buildApp, createAppDir, createDatabase, startMedusa, type AppDatabase, type MedusaProcess } from "../system/lib/app"
import { ADYEN_MERCHANT } from "../system/lib/canaries"
import { logDir } from "../system/lib/capture"
import { findRedisServer, startRedis, type RedisServer } from "../system/lib/processes"
import { control, CountingProxy, startSuiteSandbox, type Sandbox, type SuiteAccount } from "../system/lib/sandbox"
import { percentile } from "./precision"

/**
 * `npm run bench:adyen-webhooks` (issue 29): BENCH_N (default 10,000) Adyen CHARGEBACK
 * notifications, one item a POST as Adyen sends them, delivered BENCH_CONCURRENCY (default 4)
 * at a time to `POST /hooks/servicescan/adyen`, on Medusa's production topology as a store
 * deploys it (integration-tests/system/lib):
 *
 * - the app is built (`medusa build`) and runs as two `medusa start` processes from
 *   `.medusa/server`, one PID each: a `server` that acknowledges (stores the events and announces
 *   them) and a `worker` that runs the subscribers and workflows, on a private redis-server (event
 *   bus, workflow engine, locking, caching) and PostgreSQL. The worker gets the heap of a 2 GB
 *   worker (BENCH_WORKER_NODE_FLAGS, set by scripts/bench.mjs from scripts/bench-worker.mjs);
 * - this process (jest) only seeds, drives and counts; the sandbox (ServiceScan and Adyen) runs in
 *   it, reached by each Medusa process through its own counting proxy, so every call is attributed;
 * - each notification disputes one payment of this store, seeded first in bulk SQL with its
 *   payment reference, as the order.placed subscriber records it;
 * - a child process plays Adyen: it signs each notification with the sandbox's own HMAC code and
 *   times it from the request's first byte to the answer's last (the acknowledgement latency).
 *
 * Figures: acknowledgement p50/p99; the time from the first notification sent until every
 * dispute is recorded as a chargeback with its proof request sent to ServiceScan; the calls the
 * sandbox received; the worker's peak RSS (the server's printed too); each process's CPU. Before
 * they print, the bench checks in the database (one case, one chargeback, one sent proof request
 * per dispute) and at the sandbox (one proof request per dispute's scan) that every dispute was
 * recorded exactly once. BENCH_PROFILE=<file.cpuprofile> profiles the server process (from its
 * start to its exit; the bench prints the run's window on the profile's clock), and
 * BENCH_PROFILE_WORKER the worker.
 */
const SUITE = "bench-adyen"
const N = Number(process.env.BENCH_N ?? 10_000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4)
/** How long the bench waits for the work after the last acknowledgement before it gives up. */
const WAIT_S = Number(process.env.BENCH_WAIT_S ?? 60)
const WORKER_FLAGS = (process.env.BENCH_WORKER_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean)
/** Node flags for the server process (none by default: this machine's heap sizing), e.g. the worker's heap for comparison. */
const SERVER_FLAGS = (process.env.BENCH_SERVER_NODE_FLAGS ?? "").split(/\s+/).filter(Boolean)
const BASIC = `Basic ${Buffer.from(`${ADYEN_MERCHANT.webhookUser}:${ADYEN_MERCHANT.webhookPassword}`).toString("base64")}`
/** The system app's Adyen provider (integration-tests/system/app/medusa-config.ts). */
const ADYEN_PROVIDER_ID = "pp_servicescan_adyen"

type Payment = { psp: string; reference: string }
type Delivery = { wallMs: number; latencies: number[]; firstSentAt: number }

/** The payment reference Adyen would have given payment `i` (16 characters, as Adyen's). */
const pspOf = (i: number) => `BP${String(i).padStart(14, "0")}`
/** The dispute's own pspReference. */
const disputePspOf = (i: number) => `BD${String(i).padStart(14, "0")}`

/** Node's flags that write a CPU profile of a process to `file` when it exits. */
const profileFlags = (file: string | undefined) => (file ? ["--cpu-prof", `--cpu-prof-dir=${dirname(file)}`, `--cpu-prof-name=${basename(file)}`] : [])

const CLOCK_TICKS = 100
/** A process's CPU (user + system, ms), RSS and peak RSS (MB), from /proc (Linux). */
function procStats(pid: number): { cpuMs: number; rssMb: number; peakMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // Fields after the command's closing parenthesis start at field 3 (state); utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN)
  return { cpuMs, rssMb: kb("VmRSS") / 1024, peakMb: kb("VmHWM") / 1024 }
}

/** CPU (ms) of the PostgreSQL backends serving this database now (the app's pools, this bench's client), by pid. */
async function backendCpu(pg: Client): Promise<Map<number, number>> {
  const { rows } = await pg.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
  const cpu = new Map<number, number>()
  for (const { pid } of rows) {
    try {
      cpu.set(pid, procStats(pid).cpuMs)
    } catch {
      // ended since, or on another machine (DATABASE_URL): not counted
    }
  }
  return cpu
}

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
      key: ADYEN_MERCHANT.hmacKey,
      merchantAccount: ADYEN_MERCHANT.merchantAccount,
      payments: payments.map((p, i) => ({ ...p, dispute: disputePspOf(i) })),
    }) + "\n"
  )
  return { done, child }
}

/**
 * One placed order per dispute, paid at Adyen through ServiceScan (bulk SQL, as bench:chargebacks
 * seeds them), and its payment reference, as the order.placed subscriber records it. Answers the
 * payments and the scan id of each.
 */
async function seed(pg: Client): Promise<{ payments: Payment[]; scanIds: Set<string> }> {
  const payments: Payment[] = []
  const scanIds = new Set<string>()
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
    const psps = col(({ i }) => pspOf(i))
    const refs = col(({ i }) => `bench_ref_${i}`)
    const scans = col(({ scan }) => scan)
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
      [paymentIds, collections, sessions, psps, refs, raw, ADYEN_PROVIDER_ID, scans]
    )
    await pg.query(
      `INSERT INTO order_payment_collection (id, order_id, payment_collection_id)
       SELECT 'ordpay_' || o.collection_id, o.order_id, o.collection_id FROM unnest($1::text[], $2::text[]) AS o(order_id, collection_id)`,
      [orderIds, collections]
    )
    // The module's payment_ref rows (src/modules/servicescan/models/payment-ref.ts), as createPaymentRefs writes them.
    await pg.query(
      `INSERT INTO servicescan_payment_ref (id, payment_id, order_id, processor_transaction_id, processor_order_id, scan_id)
       SELECT 'sspref_' || r.payment_id, r.payment_id, r.order_id, r.psp, r.ref, r.scan_id
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS r(payment_id, order_id, psp, ref, scan_id)`,
      [paymentIds, orderIds, psps, refs, scans]
    )
  }
  await pg.query("ANALYZE")
  return { payments, scanIds }
}

type Counts = { cases: number; distinct_cases: number; chargebacks: number; distinct_chargebacks: number; proofs_sent: number; distinct_proofs: number; events: number }

/** What the database holds of Adyen's disputes: rows, and distinct disputes among them. */
async function counts(pg: Client): Promise<Counts> {
  const { rows } = await pg.query<Counts>(
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

jest.setTimeout(3_600_000)

describe("bench:adyen-webhooks on the production topology", () => {
  let redis: RedisServer | undefined
  let sandbox: Sandbox | undefined
  let account: SuiteAccount
  let app: Awaited<ReturnType<typeof createAppDir>> | undefined
  let db: AppDatabase | undefined
  let pg: Client | undefined
  let server: MedusaProcess | undefined
  let worker: MedusaProcess | undefined
  const proxies: CountingProxy[] = []
  const children: ChildProcess[] = []

  afterAll(async () => {
    for (const child of children) child.kill("SIGTERM")
    await pg?.end()
    await Promise.all([server?.stop(), worker?.stop()])
    await Promise.all([...proxies.map((p) => p.close()), sandbox?.close(), redis?.stop()])
    await db?.drop()
    await app?.remove()
  })

  it("measures Adyen's pushed disputes, from the server's acknowledgement to the worker's proof requests", async () => {
    const redisBinary = findRedisServer()
    if (!redisBinary) throw new Error("redis-server not found (the production topology needs it); install it with: apt-get install redis-server")
    redis = await startRedis(redisBinary, logDir())
    ;({ sandbox, account } = await startSuiteSandbox())
    const buildStarted = Date.now()
    app = await createAppDir()
    db = await createDatabase(app.dir, SUITE.replace(/-/g, "_"))
    const serverDir = await buildApp(app.dir)
    const buildSeconds = (Date.now() - buildStarted) / 1000

    pg = new Client({ connectionString: db.url })
    await pg.connect()
    const seedStarted = Date.now()
    const { payments, scanIds } = await seed(pg)
    const seedSeconds = (Date.now() - seedStarted) / 1000

    const [serverProxy, workerProxy] = await Promise.all([
      new CountingProxy("server", new URL(sandbox.url)).start(),
      new CountingProxy("worker", new URL(sandbox.url)).start(),
    ])
    proxies.push(serverProxy, workerProxy)
    const env = {
      DATABASE_URL: db.url,
      SYSTEM_REDIS_URL: redis.url,
      SYSTEM_SHAREABLE_KEY: account.keys.shareable,
      SYSTEM_PAYMENT_TOKEN_KEY: account.keys.paymentToken,
      SYSTEM_SECRET_KEY: account.keys.secret,
    }
    ;[server, worker] = await Promise.all([
      startMedusa(serverDir, {
        suite: SUITE,
        name: "server",
        env: { ...env, MEDUSA_WORKER_MODE: "server", SERVICESCAN_SANDBOX_URL: serverProxy.url },
        nodeArgs: [...SERVER_FLAGS, ...profileFlags(process.env.BENCH_PROFILE)],
      }),
      startMedusa(serverDir, {
        suite: SUITE,
        name: "worker",
        env: { ...env, MEDUSA_WORKER_MODE: "worker", SERVICESCAN_SANDBOX_URL: workerProxy.url },
        nodeArgs: [...WORKER_FLAGS, ...profileFlags(process.env.BENCH_PROFILE_WORKER)],
      }),
    ])
    const measured = { server, worker }
    await control(sandbox, "/__sandbox/reset-stats", { method: "POST" })

    // RSS of both processes over the run, sampled every 100 ms; their own peak (VmHWM) and CPU, read after.
    const before = { server: procStats(server.pid), worker: procStats(worker.pid) }
    const peakSampled = { server: before.server.rssMb, worker: before.worker.rssMb }
    const sampler = setInterval(() => {
      for (const name of ["server", "worker"] as const) {
        try {
          peakSampled[name] = Math.max(peakSampled[name], procStats(measured[name].pid).rssMb)
        } catch {
          // the process is gone; its exit fails the run below
        }
      }
    }, 100)
    const backendsBefore = await backendCpu(pg)
    const redisBefore = procStats(redis.process.pid).cpuMs
    const benchBefore = process.cpuUsage()
    const windowStart = process.hrtime.bigint()

    const adyen = deliverNotifications(`${server.url}/hooks/servicescan/adyen`, payments)
    children.push(adyen.child)
    const delivery = await adyen.done
    const senderCpuMs = adyen.child.pid ? procStats(adyen.child.pid).cpuMs : NaN

    // Then until every dispute is a chargeback with its proof request sent.
    let now = await counts(pg)
    const giveUpAt = Date.now() + WAIT_S * 1000
    while (now.proofs_sent < N && Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      now = await counts(pg)
    }
    const allRecordedMs = Date.now() - delivery.firstSentAt
    const windowEnd = process.hrtime.bigint()
    clearInterval(sampler)
    const after = { server: procStats(server.pid), worker: procStats(worker.pid) }
    const benchCpu = process.cpuUsage(benchBefore)
    const redisCpuMs = procStats(redis.process.pid).cpuMs - redisBefore
    const backendsAfter = await backendCpu(pg)
    const postgresCpuMs = [...backendsAfter].reduce((sum, [pid, ms]) => sum + ms - (backendsBefore.get(pid) ?? 0), 0)

    // Settle: anything still on its way would show as a duplicate in the counts below.
    await new Promise((resolve) => setTimeout(resolve, 2000))
    const final = await counts(pg)
    const stats = await control<{ total: number; requests: Record<string, number> }>(sandbox, "/__sandbox/stats")
    const proofRequests = await control<{ items: { scanIds: string[] }[] }>(sandbox, `/__sandbox/proof-requests?accountId=${encodeURIComponent(account.accountId)}`)
    const perScan = new Map<string, number>()
    for (const item of proofRequests.items) {
      for (const id of item.scanIds) perScan.set(id.toLowerCase(), (perScan.get(id.toLowerCase()) ?? 0) + 1)
    }
    const scansAsked = [...scanIds].filter((id) => perScan.has(id)).length
    const scansAskedTwice = [...perScan.values()].filter((count) => count > 1).length
    const duplicates =
      final.cases - final.distinct_cases + (final.chargebacks - final.distinct_chargebacks) + (final.proofs_sent - final.distinct_proofs) + scansAskedTwice
    const callsBy = (proxy: CountingProxy) => {
      const routes = new Map<string, number>()
      for (const call of proxy.calls) routes.set(call.route, (routes.get(call.route) ?? 0) + 1)
      return [...routes].map(([route, count]) => `${route} ${count}`).join(", ") || "none"
    }

    const routes = Object.entries(stats.requests)
      .filter(([, count]) => count > 0)
      .map(([route, count]) => `${route} ${count}`)
      .join(", ")
    const sorted = [...delivery.latencies].sort((a, b) => a - b)
    const cpu = (name: "server" | "worker") => (after[name].cpuMs - before[name].cpuMs) / 1000
    const mb = (value: number) => Math.round(value)
    const lines = [
      `topology: medusa build (${buildSeconds.toFixed(0)} s with the database), then medusa start from .medusa/server as a server (pid ${server.pid}${SERVER_FLAGS.length ? `, ${SERVER_FLAGS.join(" ")}` : ", this machine's heap sizing"}) and a worker (pid ${worker.pid}${WORKER_FLAGS.length ? `, ${WORKER_FLAGS.join(" ")}` : ", this machine's heap sizing"}) on redis-server (event bus, workflow engine, locking, caching) and PostgreSQL`,
      `notifications: ${N} CHARGEBACK items, one a POST, ${CONCURRENCY} at a time to the server, HMAC-signed with Basic auth; ${N} orders paid at Adyen and their payment references seeded in ${seedSeconds.toFixed(1)} s`,
      `acknowledged all ${N} in ${(delivery.wallMs / 1000).toFixed(1)} s (${(N / (delivery.wallMs / 1000)).toFixed(0)}/s); latency p50 ${percentile(sorted, 50).toFixed(1)} ms, p90 ${percentile(sorted, 90).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`,
      `database: ${final.events} stored events, ${final.cases} cases (${final.distinct_cases} distinct), ${final.chargebacks} chargebacks (${final.distinct_chargebacks} distinct), ${final.proofs_sent} proof requests sent (${final.distinct_proofs} distinct chargebacks)`,
      `sandbox: ${proofRequests.items.length} proof requests, ${scansAsked} of the ${N} disputed payments' scans asked for, ${scansAskedTwice} asked for more than once; requests during the run: ${stats.total} (${routes || "none"}); by the server: ${callsBy(serverProxy)}; by the worker: ${callsBy(workerProxy)}`,
      `cpu during the run: server ${cpu("server").toFixed(1)} s (${((cpu("server") * 1000) / N).toFixed(1)} ms a notification), worker ${cpu("worker").toFixed(1)} s (${((cpu("worker") * 1000) / N).toFixed(1)} ms a dispute); node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(", ")}`,
      `cpu of the rest, a notification: PostgreSQL ${(postgresCpuMs / N).toFixed(1)} ms (${backendsAfter.size} backends), redis-server ${(redisCpuMs / N).toFixed(1)} ms, ` +
        `Adyen's sender ${(senderCpuMs / N).toFixed(1)} ms, this process (sandbox, proxies, counting) ${((benchCpu.user + benchCpu.system) / 1000 / N).toFixed(1)} ms; ` +
        `all together ${((after.server.cpuMs - before.server.cpuMs + after.worker.cpuMs - before.worker.cpuMs + postgresCpuMs + redisCpuMs + senderCpuMs + (benchCpu.user + benchCpu.system) / 1000) / N).toFixed(1)} ms over ${(allRecordedMs / 1000).toFixed(1)} s on ${os.cpus().length} cores`,
      `memory: worker RSS ${mb(before.worker.rssMb)} MB before the first notification, peak ${mb(peakSampled.worker)} MB sampled, ${mb(after.worker.peakMb)} MB VmHWM; server RSS ${mb(before.server.rssMb)} MB before, peak ${mb(peakSampled.server)} MB sampled, ${mb(after.server.peakMb)} MB VmHWM`,
    ]
    if (process.env.BENCH_PROFILE || process.env.BENCH_PROFILE_WORKER) {
      lines.push(`profile window (µs on the profiles' monotonic clock): ${windowStart / 1000n}-${windowEnd / 1000n}; written when the processes exit`)
    }
    // The work happened, or there is no figure: every dispute the database holds as recorded is one
    // the bench sent, the sandbox was asked for exactly those scans, and by the worker only.
    const serverProofs = serverProxy.count("disputes.proofRequest.create")
    const problems = [
      // A proof request is sent before its id is stored, so work still going on can only put the sandbox ahead.
      (final.proofs_sent >= N ? scansAsked !== N : scansAsked < final.proofs_sent) &&
        `${final.proofs_sent} proof requests sent in the database, but the sandbox was asked for ${scansAsked} of the scans`,
      final.events !== N && `${final.events} events stored for ${N} notifications`,
      serverProofs > 0 && `the server process sent ${serverProofs} proof requests: the subscriber ran outside the worker`,
    ].filter(Boolean)
    if (problems.length) {
      lines.push(`the work did not happen as counted: ${problems.join("; ")}; logs: ${server.logFile}, ${worker.logFile}`)
      writeFileSync(process.env.BENCH_RESULT_FILE ?? "/dev/stdout", JSON.stringify({ lines }))
      throw new Error(problems.join("; "))
    }
    const recorded =
      final.proofs_sent >= N
        ? `all recorded with their proof requests in ${(allRecordedMs / 1000).toFixed(1)} s`
        : `${final.proofs_sent} of ${N} recorded with their proof requests after ${(allRecordedMs / 1000).toFixed(1)} s (BENCH_WAIT_S=${WAIT_S} after the last acknowledgement)`
    lines.push(
      `adyen webhooks: ${N} notifications, ack p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms; ` +
        `${recorded}; ${stats.total} calls; ${duplicates} duplicates; peak RSS ${mb(after.worker.peakMb)} MB`
    )
    writeFileSync(process.env.BENCH_RESULT_FILE ?? "/dev/stdout", JSON.stringify({ lines }))
    expect(duplicates).toBe(0)
  })
})
