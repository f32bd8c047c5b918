#!/usr/bin/env node
// `npm run bench:disputes`: how long ONE run of the proof request poll job takes
// to sync 10,000 pending proof requests, how many HTTP calls it makes, and the
// process's peak memory. A benchmark: it prints figures and never fails on a
// slow machine. Its last line has a fixed form, for scripts:
//
//   synced 10000 proof requests in 41.2 s, 10000 calls, peak RSS 212 MB
//
// What runs where:
// - PostgreSQL: DATABASE_URL / DB_HOST if set (a throw-away database is created
//   on that server and dropped afterwards), else an embedded server.
// - The sandbox (the service) runs in a child process, so that its work is not
//   counted in our memory and it gets the other core, as a remote service would.
// - This process boots only what the job needs: the servicescan module, the
//   Locking and Event Bus modules (Medusa's MedusaApp, the same loader the app
//   uses), then calls the job function exactly as the scheduler would.
//   Subscribers are not loaded: image archiving, which a subscriber does after
//   the run, is not part of the figures.
//
// Env: BENCH_N (default 10000).
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { startEmbeddedPostgres } from "./embedded-postgres.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const require = createRequire(join(root, "package.json"))
const pg = require("pg")

const N = Number(process.env.BENCH_N ?? 10_000)
const SECRET_KEY = "sk_test_servicescan_demo"
/** Every tenth scan is labelled fraud, so the run writes both verdicts. */
const FRAUD_EVERY = 10

const log = (line) => console.log(line)
const seconds = (ms) => (ms / 1000).toFixed(1)

// ---- database -----------------------------------------------------------------

async function startDatabase() {
  let embedded
  let admin
  if (process.env.DATABASE_URL) {
    admin = new URL(process.env.DATABASE_URL)
  } else if (process.env.DB_HOST) {
    admin = new URL(
      `postgres://${encodeURIComponent(process.env.DB_USERNAME ?? "postgres")}:${encodeURIComponent(process.env.DB_PASSWORD ?? "")}@${process.env.DB_HOST}:${process.env.DB_PORT ?? 5432}/postgres`
    )
  } else {
    log("no DATABASE_URL/DB_HOST: starting an embedded PostgreSQL")
    embedded = await startEmbeddedPostgres()
    admin = new URL(`postgres://${embedded.user}:${embedded.password}@${embedded.host}:${embedded.port}/postgres`)
  }
  const name = `servicescan_bench_${process.pid}`
  const client = new pg.Client({ connectionString: admin.toString() })
  await client.connect()
  await client.query(`CREATE DATABASE "${name}"`)
  await client.end()
  const url = new URL(admin)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: admin.toString() })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined)
      await c.end()
      await embedded?.stop()
    },
  }
}

// ---- sandbox --------------------------------------------------------------------

/**
 * The sandbox in its own process, seeded with N completed proof requests (one
 * labelled scan each) through its in-memory state, which it exposes for tests:
 * 20,000+ control API calls would only measure the seeding. The proof requests
 * have exactly the shape the service's own PUT gives them.
 */
function startSandboxProcess(count) {
  const script = `
    const { randomUUID } = require("node:crypto")
    const { startSandbox } = require("servicescan-sandbox")
    startSandbox({ port: 0, logger: false }).then((s) => {
      const accountId = s.demo.accountId
      const now = new Date().toISOString()
      const seeded = []
      for (let i = 0; i < ${count}; i++) {
        const scanId = randomUUID()
        const groundTruth = i % ${FRAUD_EVERY} === 0 ? "invalid" : "valid"
        s.state.scans.set(scanId, { id: scanId, accountId, groundTruth, imageDeleted: false, cardNumber: null, source: "control", createdAt: now })
        const id = randomUUID()
        s.state.proofRequests.set(id, { id, accountId, scanIds: [scanId], status: "complete", results: [{ scanId, groundTruth }], createdAt: now, completedAt: now })
        seeded.push([scanId, id])
      }
      process.stdout.write(JSON.stringify({ url: s.url, seeded }) + "\\n")
    })
  `
  const child = spawn(process.execPath, ["-e", script], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
  return new Promise((resolve, reject) => {
    let buffer = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk) => {
      buffer += chunk
      const newline = buffer.indexOf("\n")
      if (newline >= 0) {
        const { url, seeded } = JSON.parse(buffer.slice(0, newline))
        buffer = ""
        resolve({
          url,
          seeded: seeded.map(([scanId, remoteId]) => ({ scanId, remoteId })),
          stop: () => child.kill("SIGTERM"),
        })
      }
    })
    child.on("exit", (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
}

async function call(url, { method = "GET", body, key } = {}) {
  const response = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(key ? { "x-api-key": key } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) {
    throw new Error(`${method} ${url} answered ${response.status}: ${text}`)
  }
  return text ? JSON.parse(text) : undefined
}

// ---- Medusa side ----------------------------------------------------------------

/** Warnings and errors only: the job's progress lines would drown the figures. */
const quietLogger = new Proxy(
  {},
  {
    get: (_target, level) => (message) => {
      const text = message instanceof Error ? message.message : String(message)
      // The local event bus is the right choice for a single-process benchmark.
      if ((level === "error" || level === "warn" || level === "panic") && !text.startsWith("Local Event Bus installed")) {
        console.error(`[${String(level)}] ${text}`)
      }
    },
  }
)

/** Heap still in use after a full collection: what the run keeps, as opposed to what V8 has not collected yet. */
async function liveHeapMb() {
  const v8 = await import("node:v8")
  const vm = await import("node:vm")
  v8.setFlagsFromString("--expose-gc")
  vm.runInNewContext("gc")()
  return Math.round(process.memoryUsage().heapUsed / 1e6)
}

/**
 * The plugin's sources are TypeScript. A bare swc require hook compiles them on
 * load (as @swc/jest does in the specs); ts-node would also load the TypeScript
 * compiler, some 80 MB that have nothing to do with the job being measured.
 */
function registerTypeScript() {
  const swc = require("@swc/core")
  const Module = require("node:module")
  const { readFileSync } = require("node:fs")
  Module._extensions[".ts"] = function compileTypeScript(module, filename) {
    const { code } = swc.transformSync(readFileSync(filename, "utf8"), {
      filename,
      jsc: {
        parser: { syntax: "typescript", decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: "es2022",
      },
      module: { type: "commonjs" },
    })
    module._compile(code, filename)
  }
}

async function bootMedusa(databaseUrl, sandboxUrl) {
  registerTypeScript()
  const { MedusaApp } = require("@medusajs/framework/modules-sdk")
  const { ContainerRegistrationKeys, Modules } = require("@medusajs/framework/utils")
  const { createMedusaContainer } = require("@medusajs/framework/utils")
  const { SERVICESCAN_MODULE } = require(join(root, "src/modules/servicescan"))

  const container = createMedusaContainer()
  const { asValue } = require("@medusajs/framework/awilix")
  container.register(ContainerRegistrationKeys.LOGGER, asValue(quietLogger))
  const options = {
    sharedContainer: container,
    sharedResourcesConfig: { database: { clientUrl: databaseUrl } },
    injectedDependencies: { [ContainerRegistrationKeys.LOGGER]: quietLogger },
    modulesConfig: {
      [SERVICESCAN_MODULE]: {
        resolve: join(root, "src/modules/servicescan"),
        // The module's defaults (page size, concurrency, timeouts) unless tuned for an experiment.
        options: {
          baseUrl: sandboxUrl,
          secretKey: SECRET_KEY,
          ...(process.env.BENCH_PAGE_SIZE ? { pageSize: Number(process.env.BENCH_PAGE_SIZE) } : {}),
          ...(process.env.BENCH_CONCURRENCY ? { concurrency: Number(process.env.BENCH_CONCURRENCY) } : {}),
        },
      },
      [Modules.LOCKING]: true,
      [Modules.EVENT_BUS]: true,
    },
  }
  const app = await MedusaApp(options)
  await app.runMigrations()
  await app.onApplicationStart()
  // What the app's loader does: each module under its registration name.
  for (const [key, service] of Object.entries(app.modules)) {
    if (!container.hasRegistration(key)) {
      container.register(key, asValue(service))
    }
  }
  return { app, container, SERVICESCAN_MODULE }
}

/** N chargebacks, each with one pending proof request (already at the service) and its scan, due now. */
async function seedDatabase(databaseUrl, seeded) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const now = new Date(Date.now() - 60_000)
  const BATCH = 2_000
  for (let start = 0; start < seeded.length; start += BATCH) {
    const rows = seeded.slice(start, start + BATCH)
    const chargebacks = rows.map(() => `chbk_bench_${randomUUID()}`)
    const proofs = rows.map(() => `sspr_bench_${randomUUID()}`)
    await client.query(
      `INSERT INTO servicescan_chargeback (id, external_id, order_id, amount, raw_amount, currency_code, status, source)
       SELECT id, 'dp_' || id, 'order_bench', 10.5, '{"value":"10.5","precision":20}'::jsonb, 'usd', 'evidence_pending', 'webhook'
         FROM unnest($1::text[]) AS id`,
      [chargebacks]
    )
    await client.query(
      `INSERT INTO servicescan_proof_request (id, chargeback_id, remote_id, status, scan_ids, next_poll_at, submitted_at)
       SELECT p.id, p.chargeback_id, p.remote_id, 'pending', ARRAY[p.scan_id], $5, $5
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS p(id, chargeback_id, remote_id, scan_id)`,
      [proofs, chargebacks, rows.map((r) => r.remoteId), rows.map((r) => r.scanId), now]
    )
    await client.query(
      `INSERT INTO servicescan_scan_evidence (id, proof_request_id, scan_id)
       SELECT 'ssev_bench_' || md5(p.id), p.id, p.scan_id FROM unnest($1::text[], $2::text[]) AS p(id, scan_id)`,
      [proofs, rows.map((r) => r.scanId)]
    )
  }
  await client.query("ANALYZE")
  await client.end()
}

async function countResults(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const { rows } = await client.query(
    `SELECT (SELECT count(*) FROM servicescan_proof_request WHERE status = 'complete')::int AS complete,
            (SELECT count(*) FROM servicescan_chargeback WHERE status = 'evidence_ready')::int AS ready,
            (SELECT count(*) FROM servicescan_scan_evidence WHERE ground_truth IS NOT NULL)::int AS labelled`
  )
  await client.end()
  return rows[0]
}

// ---- run ---------------------------------------------------------------------------

const cleanups = []
let exitCode = 0
try {
  const db = await startDatabase()
  cleanups.push(() => db.drop())
  let t = Date.now()
  const sandbox = await startSandboxProcess(N)
  cleanups.push(() => sandbox.stop())
  const seeded = sandbox.seeded
  log(`sandbox: started in its own process with ${N} completed proof requests in ${seconds(Date.now() - t)} s`)

  t = Date.now()
  const { app, container, SERVICESCAN_MODULE } = await bootMedusa(db.url, sandbox.url)
  cleanups.unshift(() => app.onApplicationShutdown())
  log(`medusa: servicescan, locking and event bus modules booted and migrated in ${seconds(Date.now() - t)} s`)

  t = Date.now()
  await seedDatabase(db.url, seeded)
  log(`database: ${N} pending proof requests seeded in ${seconds(Date.now() - t)} s`)

  const { syncServiceScanProofRequests } = require(join(root, "src/jobs/sync-servicescan-proof-requests"))
  await call(`${sandbox.url}/__sandbox/reset-stats`, { method: "POST" })
  const settings = container.resolve(SERVICESCAN_MODULE).getSettings()

  t = Date.now()
  const report = await syncServiceScanProofRequests(container)
  const durationMs = Date.now() - t

  const stats = await call(`${sandbox.url}/__sandbox/stats`)
  const results = await countResults(db.url)
  // Read before anything else runs: the peak of boot, seeding and the run.
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024)
  const liveMb = await liveHeapMb()
  const routes = Object.entries(stats.requests)
    .filter(([, count]) => count > 0)
    .map(([route, count]) => `${route} ${count}`)
    .join(", ")

  log(`job run: ${report.pages} pages of up to ${settings.page_size}, concurrency ${settings.concurrency}; ${report.completed} completed, ${report.still_pending} still pending, ${report.errors} errors`)
  log(`database after the run: ${results.complete} proof requests complete, ${results.labelled} scans with a ground truth, ${results.ready} chargebacks evidence_ready`)
  log(`service calls during the run: ${stats.total} (${routes || "none"})`)
  const os = await import("node:os")
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ").trim()
  log(`node ${process.version}${flags ? ` (${flags})` : ""}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`)
  log(`memory: peak RSS covers this process's boot, seeding and run (the sandbox runs in its own process); heap still live after the run and a full GC: ${liveMb} MB`)
  log(`synced ${report.completed} proof requests in ${seconds(durationMs)} s, ${stats.total} calls, peak RSS ${peakRssMb} MB`)
} catch (error) {
  console.error(`bench:disputes failed: ${error?.stack ?? error}`)
  exitCode = 1
} finally {
  for (const cleanup of cleanups) {
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined)
  }
}
process.exit(exitCode)
