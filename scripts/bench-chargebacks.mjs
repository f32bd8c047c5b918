#!/usr/bin/env node
// `npm run bench:chargebacks`: how long ONE run of the case import job takes to import and match
// 10,000 chargeback cases published by the processor (Worldpay's Chargeback API, played by the
// sandbox), how many requests the sandbox received during it, and the process's peak memory.
// A benchmark: it prints figures and never fails on a slow machine (it fails only when the work
// was not done). Its last line has a fixed form, for scripts:
//
//   imported 10000 cases in 41.2 s, 10032 calls, peak RSS 212 MB
//
// What runs where:
// - PostgreSQL: DATABASE_URL / DB_HOST if set (a throw-away database is created on that server
//   and dropped afterwards), else an embedded server.
// - The sandbox runs in a child process (its work is not counted in our memory, and it gets the
//   other core, as a remote service would). Its processor authorizes BENCH_CASES payments through
//   its own cnpAPI code (in-process XML, no HTTP: 20,000 requests would only measure the
//   seeding); the cases are then raised over its control API, `POST /__sandbox/chargebacks/bulk`.
// - A short process (this script again, with BENCH_COMPILE) compiles the plugin's TypeScript to
//   JavaScript (swc), which every other process loads, as a store loads the published package.
// - A preparing process (this script again, with BENCH_PREPARE) migrates the database as
//   `medusa db:migrate` does, seeds one order per authorization (an order, its payment
//   collection, session and payment, in bulk SQL), and records their payment references through
//   the plugin's own workflow (as the order.placed subscriber does), then exits.
// - This process boots what the import needs, as a server or worker does: the servicescan,
//   Order, Payment, Locking and Event Bus modules and the links between them (Medusa's
//   MedusaApp, the loader the app uses), then calls the job's function exactly as the scheduler
//   would. Its peak RSS is the boot's and the run's.
//
// The run imports each case, matches it to its order, records a chargeback and a proof request per
// case and sends the proof requests to ServiceScan (the sandbox): the calls are the Chargeback
// API's retrievals (the cursor's days and the actionable list) plus one proof request PUT per case.
//
// - The measured process gets the heap Node gives a worker with BENCH_WORKER_MEMORY_MB of memory
//   (default 2048; 0 for this machine's own sizing): see scripts/bench-worker.mjs for why.
//
// Env: BENCH_CASES (default 10000; above about 32,000 the gateway gets a larger maxRetrievalBytes,
// see bootMedusa), BENCH_PAGE_SIZE (the module's pageSize, default 250),
// BENCH_WORKER_MEMORY_MB.
import { spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { jsonAnswers } from "./bench-child.mjs"
import { startBenchDatabase } from "./bench-database.mjs"
import { workerHeapOrExit } from "./bench-worker.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const require = createRequire(join(root, "package.json"))
const pg = require("pg")

const N = Number(process.env.BENCH_CASES ?? 10_000)
if (!Number.isSafeInteger(N) || N < 1) {
  console.error(`BENCH_CASES must be a positive whole number, got "${process.env.BENCH_CASES}"`)
  process.exit(2)
}
const SECRET_KEY = "sk_test_servicescan_demo"
const PROCESSOR = { merchantId: "1234567", user: "demo-user", password: "demo-password" }
const PROVIDER_ID = "pp_servicescan_servicescan"
/** Minor units of every seeded payment (20.00 USD). */
const AMOUNT_MINOR = 2000
/** The sandbox's control API raises at most this many cases per request. */
const BULK_MAX = 10_000

const log = (line) => console.log(line)
const seconds = (ms) => (ms / 1000).toFixed(1)

// ---- database -----------------------------------------------------------------

// ---- sandbox --------------------------------------------------------------------

/**
 * The sandbox in its own process. Its processor registers one card token and authorizes one
 * payment per order reference given on stdin (a JSON line), through `processor.handle`, the
 * code behind `POST /cnp/online`, with the XML the plugin's gateway sends.
 */
function startSandboxProcess() {
  const script = `
    const { startSandbox } = require("servicescan-sandbox")
    const P = ${JSON.stringify(PROCESSOR)}
    const envelope = (body) =>
      '<?xml version="1.0" encoding="UTF-8"?><cnpOnlineRequest version="12.30" xmlns="http://www.vantivcnp.com/schema" merchantId="' +
      P.merchantId + '"><authentication><user>' + P.user + '</user><password>' + P.password + '</password></authentication>' + body + '</cnpOnlineRequest>'
    const tag = (xml, name) => (new RegExp('<' + name + '>([^<]*)</' + name + '>').exec(xml) || [])[1]
    startSandbox({ port: 0, logger: false }).then((s) => {
      let input = ""
      process.stdin.setEncoding("utf8")
      // The benchmark's end, however it ends, closes stdin: the sandbox goes with it.
      process.stdin.on("end", () => process.exit(0))
      process.stdin.on("data", (chunk) => {
        input += chunk
        const newline = input.indexOf("\\n")
        if (newline < 0) return
        const orderRefs = JSON.parse(input.slice(0, newline))
        const registered = s.state.processor.handle(envelope(
          '<registerTokenRequest id="benchtoken" reportGroup="Bench"><orderId>benchtoken</orderId><accountNumber>4457119922390123</accountNumber></registerTokenRequest>'
        ))
        const token = tag(registered.xml, "cnpToken")
        if (!token) throw new Error("no token: " + registered.xml)
        const cnpTxnIds = orderRefs.map((ref) => {
          const answer = s.state.processor.handle(envelope(
            '<authorization id="' + ref + '" reportGroup="Bench"><orderId>' + ref + '</orderId><amount>${AMOUNT_MINOR}</amount>' +
            '<orderSource>ecommerce</orderSource><token><cnpToken>' + token + '</cnpToken><expDate>1230</expDate></token></authorization>'
          ))
          if (tag(answer.xml, "response") !== "000") throw new Error("authorization refused: " + answer.xml)
          return tag(answer.xml, "cnpTxnId")
        })
        process.stdout.write(JSON.stringify({ cnpTxnIds }) + "\\n")
      })
      process.stdout.write(JSON.stringify({ url: s.url }) + "\\n")
    })
  `
  const child = spawn(process.execPath, ["-e", script], { cwd: root, stdio: ["pipe", "pipe", "inherit"] })
  const next = jsonAnswers(child)
  const ready = next()
  return ready.then(({ url }) => ({
    url,
    async authorize(orderRefs) {
      const answer = next()
      child.stdin.write(`${JSON.stringify(orderRefs)}\n`)
      return (await answer).cnpTxnIds
    },
    stop: () => child.kill("SIGTERM"),
  }))
}

async function call(url, { method = "GET", body, retry = method === "GET" } = {}) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((error) => {
    // A kept-alive socket the sandbox closed while we booted: a repeatable call is sent once more.
    if (retry) return fetch(url, { method, headers: body === undefined ? {} : { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) })
    throw new Error(`${method} ${url}: ${error.cause?.message ?? error.message}`)
  })
  const text = await response.text()
  if (!response.ok) {
    throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 500)}`)
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
      if ((level === "error" || level === "warn" || level === "panic") && !/Local Event Bus installed|redisUrl not found/.test(text)) {
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
 * The plugin's sources are TypeScript. They are compiled to JavaScript once, by swc (as @swc/jest
 * does in the specs), in a short process of their own, into `node_modules/.cache/bench-chargebacks`:
 * the measured process then loads JavaScript, as a store's server does with the published
 * package, and carries neither swc (some 30 MB of native code) nor a compiler's garbage.
 */
const SRC = join(root, "node_modules", ".cache", "bench-chargebacks", "src")

function compileSources() {
  const swc = require("@swc/core")
  const { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } = require("node:fs")
  rmSync(SRC, { recursive: true, force: true })
  const walk = (dir, out) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const from = join(dir, entry.name)
      if (entry.isDirectory()) {
        // The admin is a browser bundle; tests are not loaded.
        if (entry.name !== "admin" && entry.name !== "__tests__") walk(from, join(out, entry.name))
      } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") && !entry.name.includes(".spec.")) {
        const { code } = swc.transformSync(readFileSync(from, "utf8"), {
          filename: from,
          jsc: {
            parser: { syntax: "typescript", decorators: true },
            transform: { legacyDecorator: true, decoratorMetadata: true },
            target: "es2022",
          },
          module: { type: "commonjs" },
        })
        mkdirSync(out, { recursive: true })
        writeFileSync(join(out, entry.name.replace(/\.ts$/, ".js")), code)
      }
    }
  }
  walk(join(root, "src"), SRC)
}

async function bootMedusa(databaseUrl, sandboxUrl, { migrate }) {
  const { MedusaApp, MedusaAppGetLinksExecutionPlanner, MedusaAppMigrateUp, MedusaModule } = require("@medusajs/framework/modules-sdk")
  const { ContainerRegistrationKeys, Modules, createMedusaContainer } = require("@medusajs/framework/utils")
  const { asValue } = require("@medusajs/framework/awilix")
  const { SERVICESCAN_MODULE } = require(join(SRC, "modules/servicescan"))
  // defineLink registers the plugin's link (order ↔ chargeback) for MedusaApp to load. Each
  // phase below starts from a clean registry (the migration run clears it when it ends), so the
  // definition is registered again before each.
  require(join(SRC, "links/order-chargeback"))
  const customLinks = [...MedusaModule.getCustomLinks()]
  const fresh = () => {
    MedusaModule.clearInstances()
    customLinks.forEach((link) => MedusaModule.setCustomLink(link))
    return createMedusaContainer()
  }

  // Every case of the run is on one day, and each is in the actionable list: both answers hold all N
  // (about 1.5 kB a case). Worldpay does not page them, so a store with more cases at once than the
  // gateway's default cap holds (64 MiB, some 45,000 cases) raises `maxRetrievalBytes`; the bench
  // does what that store would, and says so.
  const { DEFAULT_MAX_RETRIEVAL_BYTES, MAX_RETRIEVAL_BYTES_LIMIT } = require(join(SRC, "processors/worldpay/options"))
  // At most the option's own bound (1 GiB, about 500,000 cases at 2 kB).
  const maxRetrievalBytes = N * 2048 > DEFAULT_MAX_RETRIEVAL_BYTES ? Math.min(N * 2048, MAX_RETRIEVAL_BYTES_LIMIT) : undefined
  if (maxRetrievalBytes && !migrate) {
    log(`gateway: maxRetrievalBytes ${maxRetrievalBytes} (2 kB a case), above the default ${DEFAULT_MAX_RETRIEVAL_BYTES}, as a store with ${N} cases at once must set`)
  }
  const options = (container) => ({
    sharedContainer: container,
    sharedResourcesConfig: { database: { clientUrl: databaseUrl } },
    injectedDependencies: { [ContainerRegistrationKeys.LOGGER]: quietLogger },
    modulesConfig: {
      [SERVICESCAN_MODULE]: {
        resolve: join(SRC, "modules/servicescan"),
        // What the app's loader gives every module of medusa-config: query and links reach it.
        definition: { key: SERVICESCAN_MODULE, label: "ServiceScan", isQueryable: true },
        // The module's defaults (page size, concurrency, timeouts) unless tuned for an experiment.
        options: {
          baseUrl: sandboxUrl,
          secretKey: SECRET_KEY,
          disputeGateway: { type: "worldpay", url: sandboxUrl, ...PROCESSOR, ...(maxRetrievalBytes ? { maxRetrievalBytes } : {}) },
          ...(process.env.BENCH_PAGE_SIZE ? { pageSize: Number(process.env.BENCH_PAGE_SIZE) } : {}),
        },
      },
      [Modules.ORDER]: true,
      [Modules.PAYMENT]: true,
      [Modules.LOCKING]: true,
      [Modules.EVENT_BUS]: true,
    },
  })
  // As `medusa db:migrate` does before the app loads (the payment module's loader reads its tables):
  // the modules' migrations, then the link tables.
  if (migrate) {
    await MedusaAppMigrateUp(options(fresh()))
    const planner = await MedusaAppGetLinksExecutionPlanner(options(fresh()))
    await planner.executePlan(await planner.createPlan())
  }

  const container = fresh()
  container.register(ContainerRegistrationKeys.LOGGER, asValue(quietLogger))
  const app = await MedusaApp(options(container))
  await app.onApplicationStart()
  // What the app's loader does: each module under its registration name, query and link.
  for (const [key, service] of Object.entries(app.modules)) {
    if (!container.hasRegistration(key)) {
      container.register(key, asValue(service))
    }
  }
  container.register(ContainerRegistrationKeys.QUERY, asValue(app.query))
  container.register(ContainerRegistrationKeys.REMOTE_QUERY, asValue(app.query))
  container.register(ContainerRegistrationKeys.LINK, asValue(app.link))
  return { app, container, SERVICESCAN_MODULE }
}

/**
 * One placed order per authorization: the order, its payment collection, the payment session and
 * the payment, as a checkout with this provider leaves them (the payment's data holds the
 * processor's transaction id, the order reference and the scan id), and the order ↔ payment
 * collection link. Bulk SQL: the names are Medusa's tables; a drift fails here, loudly.
 */
async function seedOrders(databaseUrl, rows) {
  const client = new pg.Client({ connectionString: databaseUrl })
  // A failure drops the database under this connection; its error is the one already reported.
  client.on("error", () => undefined)
  await client.connect()
  const amount = AMOUNT_MINOR / 100
  const raw = JSON.stringify({ value: String(amount), precision: 20 })
  const BATCH = 2_000
  for (let start = 0; start < rows.length; start += BATCH) {
    const page = rows.slice(start, start + BATCH)
    const col = (key) => page.map((r) => r[key])
    await client.query(
      `INSERT INTO "order" (id, currency_code, email, status, version)
       SELECT id, 'usd', 'bench@example.com', 'pending', 1 FROM unnest($1::text[]) AS id`,
      [col("orderId")]
    )
    await client.query(
      `INSERT INTO payment_collection (id, currency_code, amount, raw_amount, authorized_amount, raw_authorized_amount, status)
       SELECT id, 'usd', $2, $3::jsonb, $2, $3::jsonb, 'authorized' FROM unnest($1::text[]) AS id`,
      [col("collectionId"), amount, raw]
    )
    await client.query(
      `INSERT INTO payment_session (id, currency_code, amount, raw_amount, provider_id, data, payment_collection_id, status, authorized_at)
       SELECT s.id, 'usd', $3, $4::jsonb, $5, '{}'::jsonb, s.collection_id, 'authorized', now()
         FROM unnest($1::text[], $2::text[]) AS s(id, collection_id)`,
      [col("sessionId"), col("collectionId"), amount, raw, PROVIDER_ID]
    )
    await client.query(
      `INSERT INTO payment (id, amount, raw_amount, currency_code, provider_id, data, payment_collection_id, payment_session_id)
       SELECT p.id, $7, $8::jsonb, 'usd', $9,
              jsonb_build_object('cnp_txn_id', p.txn, 'order_id', p.order_ref, 'scan_id', p.scan_id, 'status', 'authorized'),
              p.collection_id, p.session_id
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS p(id, collection_id, session_id, txn, order_ref, scan_id)`,
      [col("paymentId"), col("collectionId"), col("sessionId"), col("cnpTxnId"), col("orderRef"), col("scanId"), amount, raw, PROVIDER_ID]
    )
    await client.query(
      `INSERT INTO order_payment_collection (id, order_id, payment_collection_id)
       SELECT 'ordpay_' || o.collection_id, o.order_id, o.collection_id FROM unnest($1::text[], $2::text[]) AS o(order_id, collection_id)`,
      [col("orderId"), col("collectionId")]
    )
  }
  await client.query("ANALYZE")
  await client.end()
}

async function countResults(databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const { rows } = await client.query(
    `SELECT
       (SELECT count(*) FROM servicescan_dispute_case)::int AS cases,
       (SELECT count(*) FROM servicescan_dispute_case c
          JOIN servicescan_payment_ref r ON r.processor_transaction_id = c.processor_transaction_id AND r.order_id = c.order_id
         WHERE c.status = 'matched' AND c.chargeback_id IS NOT NULL)::int AS matched_right,
       (SELECT count(*) FROM servicescan_chargeback WHERE source = 'processor')::int AS chargebacks,
       (SELECT count(*) FROM servicescan_proof_request WHERE remote_id IS NOT NULL)::int AS proofs_sent`
  )
  await client.end()
  return rows[0]
}

/**
 * BENCH_TRACE=1: wall time spent in each method of the servicescan module, in query.graph and
 * in link.create during the run (they overlap where calls run concurrently).
 */
function traceCalls(container, moduleKey) {
  const totals = new Map()
  const wrap = (target, name, label) => {
    const original = target[name]
    target[name] = function (...args) {
      const started = process.hrtime.bigint()
      const result = original.apply(this, args)
      if (typeof result?.then !== "function") {
        return result
      }
      const count = () => {
        const entry = totals.get(label) ?? { ms: 0, calls: 0 }
        entry.ms += Number(process.hrtime.bigint() - started) / 1e6
        entry.calls++
        totals.set(label, entry)
      }
      return result.finally(count)
    }
  }
  const service = container.resolve(moduleKey)
  for (let proto = Object.getPrototypeOf(service); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name)
      if (name !== "constructor" && typeof descriptor?.value === "function" && !Object.prototype.hasOwnProperty.call(service, name)) {
        wrap(service, name, `servicescan.${name}`)
      }
    }
  }
  wrap(container.resolve("query"), "graph", "query.graph")
  wrap(container.resolve("link"), "create", "link.create")
  return {
    print() {
      for (const [label, { ms, calls }] of [...totals].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25)) {
        log(`  trace: ${label.padEnd(48)} ${(ms / 1000).toFixed(2).padStart(7)} s in ${calls} calls`)
      }
    },
  }
}

/** BENCH_PROFILE=<file.cpuprofile>: a CPU profile of the job run alone (open it in Chrome's DevTools). */
async function startProfile() {
  const { Session } = await import("node:inspector")
  const { writeFileSync } = await import("node:fs")
  const session = new Session()
  session.connect()
  const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))))
  await post("Profiler.enable")
  await post("Profiler.start")
  return {
    async stop(file) {
      const { profile } = await post("Profiler.stop")
      writeFileSync(file, JSON.stringify(profile))
      session.disconnect()
      log(`CPU profile of the run: ${file}`)
    },
  }
}

// ---- run ---------------------------------------------------------------------------

/**
 * The preparing process (`BENCH_PREPARE=<rows file>`): migrates the database as `medusa db:migrate`
 * does, seeds the orders, and records their payment references through the plugin's workflow,
 * then exits. Its memory and time are not the run's: the measured process only boots and runs,
 * as a Medusa server or worker does.
 */
async function prepare({ rowsFile, databaseUrl, sandboxUrl }) {
  const { readFileSync } = await import("node:fs")
  const rows = JSON.parse(readFileSync(rowsFile, "utf8"))
  const { app, container } = await bootMedusa(databaseUrl, sandboxUrl, { migrate: true })
  await seedOrders(databaseUrl, rows)
  const { recordPaymentRefsWorkflow } = require(join(SRC, "workflows/record-payment-refs"))
  let refs = 0
  for (let start = 0; start < rows.length; start += 1_000) {
    const { result } = await recordPaymentRefsWorkflow(container).run({ input: { order_ids: rows.slice(start, start + 1_000).map((r) => r.orderId) } })
    refs += result
  }
  await app.onApplicationShutdown()
  if (refs !== rows.length) throw new Error(`recorded ${refs} payment references for ${rows.length} orders`)
  return refs
}

/** This script again, in another process, with `env` saying what to do (compile, or prepare). */
function runChild(env, what) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
    cwd: root,
    env: { ...process.env, ...env },
    // Migration progress goes to stdout: dropped. Errors come on stderr.
    stdio: ["ignore", "ignore", "inherit"],
  })
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${what} failed (exit ${code})`))))
  })
}

if (process.env.BENCH_COMPILE) {
  compileSources()
  process.exit(0)
}

if (process.env.BENCH_PREPARE) {
  try {
    await prepare({ rowsFile: process.env.BENCH_PREPARE, databaseUrl: process.env.BENCH_DATABASE_URL, sandboxUrl: process.env.BENCH_SANDBOX_URL })
    process.exit(0)
  } catch (error) {
    console.error(`bench:chargebacks (preparing): ${error?.stack ?? error}`)
    process.exit(1)
  }
}

// The measured process is this one, started again with the heap a worker would have (scripts/bench-worker.mjs).
if (!process.env.BENCH_WORKER_HEAP) {
  const heap = workerHeapOrExit("bench:chargebacks")
  log(`measured process: ${heap.description}`)
  if (heap.flags.length) {
    const child = spawn(process.execPath, [...heap.flags, fileURLToPath(import.meta.url)], {
      cwd: root,
      env: { ...process.env, BENCH_WORKER_HEAP: "1" },
      stdio: "inherit",
    })
    process.exit(await new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1))))
  }
}

const cleanups = []
let exitCode = 0
try {
  const db = await startBenchDatabase(`servicescan_bench_cases_${process.pid}`, log)
  cleanups.push(() => db.drop())

  let t = Date.now()
  const sandbox = await startSandboxProcess()
  cleanups.push(() => sandbox.stop())
  log(`sandbox: started in its own process in ${seconds(Date.now() - t)} s`)

  t = Date.now()
  await runChild({ BENCH_COMPILE: "1" }, "compiling the plugin's sources")
  log(`plugin: sources compiled to JavaScript (swc, another process) in ${seconds(Date.now() - t)} s`)

  // Ids as Medusa makes them; the processor's order reference is derived from the session id as the provider does.
  const { generateEntityId } = require("@medusajs/framework/utils")
  const { processorIdFor } = require(join(SRC, "providers/servicescan/ids"))
  t = Date.now()
  const rows = Array.from({ length: N }, () => {
    const sessionId = generateEntityId(undefined, "payses")
    return {
      orderId: generateEntityId(undefined, "order"),
      collectionId: generateEntityId(undefined, "pay_col"),
      sessionId,
      paymentId: generateEntityId(undefined, "pay"),
      orderRef: processorIdFor(sessionId),
      scanId: randomUUID(),
    }
  })
  const cnpTxnIds = await sandbox.authorize(rows.map((r) => r.orderRef))
  rows.forEach((r, i) => (r.cnpTxnId = cnpTxnIds[i]))
  log(`sandbox: ${N} authorizations approved by its processor in ${seconds(Date.now() - t)} s`)

  t = Date.now()
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs")
  const { tmpdir } = await import("node:os")
  const dir = mkdtempSync(join(tmpdir(), "bench-chargebacks-"))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, "rows.json"), JSON.stringify(rows))
  await runChild({ BENCH_PREPARE: join(dir, "rows.json"), BENCH_DATABASE_URL: db.url, BENCH_SANDBOX_URL: sandbox.url }, "preparing the database")
  log(`database (another process): migrated, ${N} orders with an authorized ServiceScan payment seeded, their payment references recorded, in ${seconds(Date.now() - t)} s`)

  t = Date.now()
  let raised = 0
  for (let start = 0; start < rows.length; start += BULK_MAX) {
    const page = rows.slice(start, start + BULK_MAX)
    const answer = await call(`${sandbox.url}/__sandbox/chargebacks/bulk`, {
      method: "POST",
      body: { cases: page.map((r) => ({ cnpTxnId: r.cnpTxnId, reasonCode: "4837" })) },
    })
    raised += answer.count
  }
  log(`sandbox: ${raised} chargeback cases raised (POST /__sandbox/chargebacks/bulk) in ${seconds(Date.now() - t)} s`)
  rows.length = 0

  t = Date.now()
  const { app, container, SERVICESCAN_MODULE } = await bootMedusa(db.url, sandbox.url, { migrate: false })
  cleanups.unshift(() => app.onApplicationShutdown())
  log(`medusa: servicescan, order, payment, locking and event bus modules and their links booted in ${seconds(Date.now() - t)} s`)

  const { importServiceScanDisputeCases } = require(join(SRC, "jobs/_run-dispute-case-import"))
  await call(`${sandbox.url}/__sandbox/reset-stats`, { method: "POST", retry: true })
  const settings = container.resolve(SERVICESCAN_MODULE).getSettings()

  const trace = process.env.BENCH_TRACE ? traceCalls(container, SERVICESCAN_MODULE) : null
  // BENCH_TRACE also samples memory during the run: which part of it makes the peak.
  const peaks = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }
  const sampler = trace
    ? setInterval(() => {
        const usage = process.memoryUsage()
        for (const key of Object.keys(peaks)) peaks[key] = Math.max(peaks[key], Math.round(usage[key] / 1e6))
      }, 100)
    : null
  const rssBeforeRunMb = Math.round(process.resourceUsage().maxRSS / 1024)
  const profile = process.env.BENCH_PROFILE ? await startProfile() : null
  t = Date.now()
  const cpuBefore = process.cpuUsage()
  const report = await importServiceScanDisputeCases(container)
  const durationMs = Date.now() - t
  const cpu = process.cpuUsage(cpuBefore)
  await profile?.stop(process.env.BENCH_PROFILE)
  trace?.print()
  if (sampler) {
    clearInterval(sampler)
    log(`  trace: memory peaks during the run (MB): ${Object.entries(peaks).map(([k, v]) => `${k} ${v}`).join(", ")}`)
  }

  // Read before anything else runs: the peak of the boot and the run.
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024)
  const stats = await call(`${sandbox.url}/__sandbox/stats`)
  const results = await countResults(db.url)
  const liveMb = await liveHeapMb()
  const routes = Object.entries(stats.requests)
    .filter(([, count]) => count > 0)
    .map(([route, count]) => `${route} ${count}`)
    .join(", ")

  log(
    `job run: ${report.days.length} days read + the actionable list, pages of up to ${settings.page_size}; ${report.cases} distinct cases read (${report.new_cases} new), ` +
      `${report.matched} matched, ${report.unmatched} unmatched, ${report.chargebacks_recorded} chargebacks recorded, ${report.errors.length} errors`
  )
  log(
    `database after the run: ${results.cases} cases, ${results.matched_right} matched to the order their transaction paid, ` +
      `${results.chargebacks} processor chargebacks, ${results.proofs_sent} proof requests sent`
  )
  log(`sandbox requests during the run: ${stats.total} (${routes || "none"})`)
  const os = await import("node:os")
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ""].join(" ").trim()
  log(
    `node ${process.version}${flags ? ` (${flags})` : ""}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}; ` +
      `CPU of this process during the run: ${seconds((cpu.user + cpu.system) / 1000)} s (the rest is PostgreSQL, the sandbox and waiting)`
  )
  log(
    `memory: peak RSS covers this process's boot and run (migrations and seeding ran in another process, the sandbox in its own): ${rssBeforeRunMb} MB before the run; ` +
      `heap still live after the run and a full GC: ${liveMb} MB`
  )

  // The figures only count when the work happened: every case matched to its own order, a
  // chargeback and a sent proof request each, and the proof requests seen by the sandbox.
  const proofPuts = stats.requests["disputes.proofRequest.create"] ?? 0
  const problems = [
    report.skipped && `the run was skipped (${report.skipped})`,
    results.cases !== N && `${results.cases} cases stored, expected ${N}`,
    results.matched_right !== N && `${results.matched_right} cases matched to the right order, expected ${N}`,
    results.chargebacks !== N && `${results.chargebacks} chargebacks, expected ${N}`,
    results.proofs_sent !== N && `${results.proofs_sent} proof requests sent, expected ${N}`,
    proofPuts !== N && `the sandbox received ${proofPuts} proof requests, expected ${N}`,
    report.errors.length && `errors: ${report.errors.slice(0, 3).join("; ")}`,
  ].filter(Boolean)
  if (problems.length) {
    throw new Error(`the import did not do the work: ${problems.join("; ")}`)
  }
  log(`imported ${results.matched_right} cases in ${seconds(durationMs)} s, ${stats.total} calls, peak RSS ${peakRssMb} MB`)
} catch (error) {
  console.error(`bench:chargebacks failed: ${error?.stack ?? error}`)
  exitCode = 1
} finally {
  for (const cleanup of cleanups) {
    await Promise.resolve()
      .then(cleanup)
      .catch(() => undefined)
  }
}
process.exit(exitCode)
