#!/usr/bin/env node
// `npm run bench:disputes`: how long ONE run of the proof request poll job takes
// to sync BENCH_PROOFS (default 10,000) pending proof requests, how many HTTP
// calls it makes, and the process's peak memory. A benchmark: it prints figures
// and never fails on a slow machine. Its result line has a fixed form, for
// scripts:
//
//   synced 10000 proof requests in 41.2 s, 10000 calls, peak RSS 212 MB
//
// and, when BENCH_PROOFS is not 10,000, a last line comparing it with a run at
// 10,000 in a fresh process (see bench/README.md for why two processes):
//
//   scaling: RSS at 100000 is 1.04× RSS at 10000
//
// What runs where:
// - Each size is measured in its own fresh Node process (this script re-run
//   with BENCH_DISPUTES_RUN=<n>), so that each peak RSS is that size's alone.
// - PostgreSQL: DATABASE_URL / DB_HOST if set (a throw-away database is created
//   on that server and dropped afterwards), else an embedded server.
// - The sandbox (the service) runs in a child process, so that its work is not
//   counted in our memory and it gets the other core, as a remote service would.
//   It also writes the seed rows into the database: the measured process never
//   holds the list of N ids, which would grow with N and is not the job's.
// - The measured process boots only what the job needs: the servicescan module,
//   the Locking and Event Bus modules (Medusa's MedusaApp, the same loader the
//   app uses), then calls the job function exactly as the scheduler would.
//   Subscribers are not loaded: image archiving, which a subscriber does after
//   the run, is not part of the figures.
// - Each measured process gets the heap Node gives a worker with
//   BENCH_WORKER_MEMORY_MB of memory (default 2048; 0 for this machine's own
//   sizing): see scripts/bench-worker.mjs for why.
//
// Env: BENCH_PROOFS (default 10000; BENCH_N is the older name),
// BENCH_PAGE_SIZE and BENCH_JOB_CONCURRENCY (module options, for experiments),
// BENCH_LIVE_HEAP=1 (a diagnosis: the live heap during the run; no figure),
// BENCH_WORKER_MEMORY_MB.
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { jsonAnswers, onLines } from "./bench-child.mjs"
import { startBenchDatabase } from "./bench-database.mjs"
import { workerHeapOrExit } from "./bench-worker.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const require = createRequire(join(root, "package.json"))
const pg = require("pg")

const REFERENCE = 10_000
const N = Number(process.env.BENCH_DISPUTES_RUN ?? process.env.BENCH_PROOFS ?? process.env.BENCH_N ?? REFERENCE)
if (!Number.isInteger(N) || N < 1) {
  console.error(`BENCH_PROOFS must be a positive integer, not ${process.env.BENCH_PROOFS ?? process.env.BENCH_N}`)
  process.exit(2)
}
const SECRET_KEY = "sk_test_servicescan_demo"

const log = (line) => console.log(line)
const seconds = (ms) => (ms / 1000).toFixed(1)

// ---- database -----------------------------------------------------------------

// ---- sandbox --------------------------------------------------------------------

/** The service in its own process (scripts/bench-disputes-sandbox.cjs); it also seeds the database on request. */
function startSandboxProcess(count) {
  const child = spawn(process.execPath, [join(root, "scripts/bench-disputes-sandbox.cjs"), String(count)], {
    cwd: root,
    stdio: ["pipe", "pipe", "inherit"],
  })
  const next = jsonAnswers(child)
  return next().then(({ url, count: seeded }) => ({
    url,
    seeded,
    async seedDatabase(databaseUrl) {
      const answer = next()
      child.stdin.write(`seed ${databaseUrl}\n`)
      const { error, seeded: rows } = await answer
      if (error) throw new Error(`seeding failed: ${error}`)
      return rows
    },
    stop: () => child.kill("SIGTERM"),
  }))
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
          ...(process.env.BENCH_JOB_CONCURRENCY ? { concurrency: Number(process.env.BENCH_JOB_CONCURRENCY) } : {}),
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

// ---- parent: one fresh process per size ------------------------------------------------

/** Runs one size in a fresh process; answers its output lines (echoed as they come, prefixed when asked). */
function runSize(count, heapFlags, prefix = "") {
  const child = spawn(process.execPath, [...heapFlags, fileURLToPath(import.meta.url)], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, BENCH_DISPUTES_RUN: String(count) },
  })
  const lines = []
  onLines(child.stdout, (line) => {
    lines.push(line)
    log(`${prefix}${line}`)
  })
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve(lines) : reject(new Error(`the run at ${count} exited with ${code}`))))
  )
}

const RESULT_LINE = /^synced (\d+) proof requests in ([\d.]+) s, (\d+) calls, peak RSS (\d+) MB$/
const peakOf = (lines, count) => {
  const match = lines.map((line) => RESULT_LINE.exec(line)).find(Boolean)
  if (!match || Number(match[1]) !== count) throw new Error(`the run at ${count} printed no result line for ${count}`)
  return Number(match[4])
}

if (!process.env.BENCH_DISPUTES_RUN) {
  const heap = workerHeapOrExit("bench:disputes")
  try {
    log(`measured processes: ${heap.description}`)
    let referencePeak
    if (N !== REFERENCE) {
      referencePeak = peakOf(await runSize(REFERENCE, heap.flags, `[reference run at ${REFERENCE}] `), REFERENCE)
    }
    const peak = peakOf(await runSize(N, heap.flags), N)
    if (referencePeak === undefined) {
      log(`scaling: not measured at the reference size itself (BENCH_PROOFS=100000 compares a run at 100000 with one at ${REFERENCE})`)
    } else {
      log(`scaling: RSS at ${N} is ${(peak / referencePeak).toFixed(2)}× RSS at ${REFERENCE}`)
    }
    process.exit(0)
  } catch (error) {
    console.error(`bench:disputes failed: ${error?.message ?? error}`)
    process.exit(1)
  }
}

// ---- child: one size ------------------------------------------------------------------

const cleanups = []
let exitCode = 0
try {
  const db = await startBenchDatabase(`servicescan_bench_${process.pid}`, log)
  cleanups.push(() => db.drop())
  let t = Date.now()
  const sandbox = await startSandboxProcess(N)
  cleanups.push(() => sandbox.stop())
  if (sandbox.seeded !== N) throw new Error(`the sandbox seeded ${sandbox.seeded} proof requests, not ${N}`)
  log(`sandbox: started in its own process with ${N} completed proof requests in ${seconds(Date.now() - t)} s`)

  t = Date.now()
  const { app, container, SERVICESCAN_MODULE } = await bootMedusa(db.url, sandbox.url)
  cleanups.unshift(() => app.onApplicationShutdown())
  log(`medusa: servicescan, locking and event bus modules booted and migrated in ${seconds(Date.now() - t)} s`)

  t = Date.now()
  await sandbox.seedDatabase(db.url)
  log(`database: ${N} pending proof requests seeded in ${seconds(Date.now() - t)} s`)

  const { syncServiceScanProofRequests } = require(join(root, "src/jobs/sync-servicescan-proof-requests"))
  await call(`${sandbox.url}/__sandbox/reset-stats`, { method: "POST" })
  const settings = container.resolve(SERVICESCAN_MODULE).getSettings()

  const rssBeforeMb = Math.round(process.memoryUsage.rss() / 1e6)
  // Where the run's memory goes, a quarter of the way through, halfway, and so on:
  // the heap in use (live and not yet collected) and RSS, sampled every 250 ms.
  const samples = []
  const sampler = setInterval(() => {
    const { heapUsed, rss } = process.memoryUsage()
    samples.push({ at: Date.now(), heapUsed, rss })
  }, 250)
  // BENCH_LIVE_HEAP=1, a diagnosis that changes what it measures (so no figure is
  // printed for time or RSS): a full GC every 2 s, and the heap still live after
  // each, to tell memory the run keeps from garbage V8 has not collected yet.
  const liveSamples = []
  let gc
  if (process.env.BENCH_LIVE_HEAP) {
    const v8 = await import("node:v8")
    const vm = await import("node:vm")
    v8.setFlagsFromString("--expose-gc")
    gc = vm.runInNewContext("gc")
  }
  const liveSampler =
    gc &&
    setInterval(() => {
      gc()
      liveSamples.push(Math.round(process.memoryUsage().heapUsed / 1e6))
    }, 2000)
  t = Date.now()
  const report = await syncServiceScanProofRequests(container)
  const durationMs = Date.now() - t
  clearInterval(sampler)
  if (liveSampler) clearInterval(liveSampler)

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
  // The work really happened, or there is no figure: every proof request read
  // once at the service and completed in our tables.
  const polled = stats.requests["disputes.proof.get"] ?? 0
  if (report.completed !== N || results.complete !== N || polled !== N || results.labelled !== N) {
    throw new Error(
      `the run did not sync all ${N}: ${report.completed} completed by the job, ${results.complete} complete in the database, ` +
        `${results.labelled} scans labelled, ${polled} status reads at the sandbox`
    )
  }
  const os = await import("node:os")
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ").trim()
  log(`node ${process.version}${flags ? ` (${flags})` : ""}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}`)
  log(`memory: peak RSS covers this process's boot, seeding and run (the sandbox runs in its own process); RSS ${rssBeforeMb} MB just before the run; heap still live after the run and a full GC: ${liveMb} MB`)
  const quarters = [0.25, 0.5, 0.75, 1].map((q) => {
    const window = samples.filter((x) => x.at <= t + q * durationMs && x.at > t + (q - 0.25) * durationMs)
    const peak = (key) => Math.round(Math.max(0, ...window.map((x) => x[key])) / 1e6)
    return `${peak("heapUsed")}/${peak("rss")}`
  })
  log(`memory during the run, peak JS heap used/RSS (MB) by quarter of the run: ${quarters.join(", ")}`)
  if (process.env.BENCH_LIVE_HEAP) {
    log(`live heap after a full GC every 2 s during the run (MB): ${liveSamples.join(", ")}`)
    log("BENCH_LIVE_HEAP forced collections during the run: no figure printed")
    throw new Error("a diagnosis run (BENCH_LIVE_HEAP), not a measurement")
  }
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
