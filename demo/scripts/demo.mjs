#!/usr/bin/env node
// `npm run demo`: a whole store to try medusa-plugin-servicescan on one machine.
//
//   1. builds the plugin as it is published (`medusa plugin:build`, at the repository root);
//   2. builds the demo store (`medusa build` in demo/: backend and admin dashboard with the
//      plugin's pages); both builds are skipped when their inputs have not changed;
//   3. starts PostgreSQL (embedded, unless DATABASE_URL is set), the ServiceScan sandbox
//      (in-process, with a proof delay so disputes complete by themselves) and bundles the
//      storefront page;
//   4. migrates and seeds the database (cached as a template database, so later starts only
//      copy it: every start is a fresh store, as the in-memory sandbox is fresh too);
//   5. starts Medusa (`medusa start`, one process) with the admin at /app;
//   6. serves the storefront page.
// Ctrl-C (SIGINT) or SIGTERM stops Medusa, the storefront, the sandbox and PostgreSQL.
//
// `npm run demo -- --smoke` does the same on free ports with a throw-away database, then pays
// for an order through the store API, records a chargeback and waits for its evidence, and (in
// Chromium, see scripts/chromium.cjs) pays in the real page and screenshots it and the admin order page. Exit 0/1.
import { fork, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { mkdtemp } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { parseArgs } from "node:util"
import { DEMO_WEBHOOK_SECRET } from "./lib/chargeback.mjs"
import { bundleStorefront, ensureWidgetBuilt, startStorefront } from "./lib/storefront.mjs"
import {
  bold,
  cyan,
  DEMO_DIR,
  dim,
  fingerprint,
  formatDuration,
  freePort,
  green,
  hashInputs,
  MEDUSA_CLI,
  parseLogLine,
  portIsFree,
  red,
  ROOT_DIR,
  run,
  Step,
  tail,
  waitForHttp,
  yellow,
} from "./lib/util.mjs"

const require = createRequire(import.meta.url)

const HELP = `Usage: npm run demo [-- options]

Starts a whole store on this machine: the ServiceScan sandbox, PostgreSQL, a Medusa server with
medusa-plugin-servicescan (payments, disputes, admin pages) and a storefront page.

Options:
  --smoke      start everything on free ports with a throw-away database, run a checkout (API and,
               in Chromium, in the browser), a chargeback, then stop; exit 0 or 1
  --rebuild    rebuild the plugin and the demo store even if nothing changed
  --reset      delete the demo's database folder (demo/.data/postgres) first
  --verbose    print every Medusa log line (otherwise: demo/.data/logs/medusa.log)
  -h, --help   this help

Environment:
  DEMO_MEDUSA_PORT (9000), DEMO_STOREFRONT_PORT (8000), DEMO_SANDBOX_PORT (4010)
  DEMO_PROOF_DELAY_MS (15000)  how long the sandbox takes to answer a proof request
  DEMO_ADMIN_EMAIL (admin@servicescan.test), DEMO_ADMIN_PASSWORD (servicescan-demo)
  DATABASE_URL                 use this PostgreSQL database instead of the embedded one
`

let args
try {
  args = parseArgs({
    options: {
      smoke: { type: "boolean", default: false },
      rebuild: { type: "boolean", default: false },
      reset: { type: "boolean", default: false },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  }).values
} catch (error) {
  console.error(`${error.message}\n\n${HELP}`)
  process.exit(2)
}
if (args.help) {
  console.log(HELP)
  process.exit(0)
}

const SMOKE = args.smoke
const ADMIN_EMAIL = process.env.DEMO_ADMIN_EMAIL || "admin@servicescan.test"
const ADMIN_PASSWORD = process.env.DEMO_ADMIN_PASSWORD || "servicescan-demo"
const PROOF_DELAY_MS = Number(process.env.DEMO_PROOF_DELAY_MS || (SMOKE ? 2000 : 15000))
const EXTERNAL_DB = process.env.DATABASE_URL || ""
const DATA_DIR = join(DEMO_DIR, ".data")
const LOG_DIR = join(DATA_DIR, SMOKE ? "smoke-logs" : "logs")
const CACHE_DIR = join(DEMO_DIR, ".cache")
const PG_DIR = join(DATA_DIR, "postgres")
const BUILD_DIR = join(DEMO_DIR, ".medusa", "server")
const TOTAL_STEPS = 6
const started = Date.now()
const rel = (p) => relative(process.cwd(), p) || "."

const logFile = (name) => join(LOG_DIR, `${name}.log`)
/** Called once the ports are ours: a demo refused for a busy port must not empty the running one's logs. */
function startLogs() {
  mkdirSync(LOG_DIR, { recursive: true })
  mkdirSync(CACHE_DIR, { recursive: true })
  for (const name of ["plugin-build", "demo-build", "postgres", "database", "medusa", "sandbox", "storefront"]) {
    writeFileSync(logFile(name), `# ${new Date().toISOString()}\n`)
  }
}

// ---------------------------------------------------------------------------------------------
// Shutdown: Medusa first (it holds database connections), then the storefront, the sandbox and
// PostgreSQL. Ctrl-C reaches Medusa directly too (same process group); PostgreSQL runs in its own
// group so that it outlives Medusa's shutdown.
// ---------------------------------------------------------------------------------------------
const running = { medusa: null, pg: null, sandbox: null, storefront: null, browser: null }
let shuttingDown = null

function stopMedusa() {
  const child = running.medusa
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(term)
      clearTimeout(kill)
      resolve()
    }
    child.once("exit", done)
    // A terminal Ctrl-C has already reached Medusa; give it a moment before asking again.
    const term = setTimeout(() => child.kill("SIGTERM"), 1500)
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000)
  })
}

function stopPostgres() {
  const child = running.pg
  if (!child || child.exitCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 15_000)
    child.once("exit", () => {
      clearTimeout(kill)
      resolve()
    })
    if (child.connected) child.send({ type: "stop" })
    else child.kill("SIGTERM")
  })
}

function shutdown(code, reason) {
  shuttingDown ??= (async () => {
    if (reason) process.stdout.write(`\n  ${dim(reason)}\n`)
    const steps = [
      ["browser", () => running.browser?.close()],
      ["Medusa", stopMedusa],
      ["storefront", () => running.storefront?.close()],
      ["sandbox", () => running.sandbox?.close()],
      ["PostgreSQL", stopPostgres],
    ]
    const stopped = []
    for (const [name, stop] of steps) {
      const wasRunning =
        name === "Medusa" ? running.medusa && running.medusa.exitCode === null
        : name === "PostgreSQL" ? running.pg && running.pg.exitCode === null
        : running[name.toLowerCase()]
      try {
        await stop()
      } catch {
        // keep stopping the rest
      }
      if (wasRunning) stopped.push(name)
    }
    if (stopped.length) process.stdout.write(`  ${dim(`Stopped ${stopped.join(", ")}.`)}\n`)
    process.exit(code)
  })()
  return shuttingDown
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => shutdown(signal === "SIGINT" ? 130 : 143, `${signal}: stopping the demo…`))
}
process.on("uncaughtException", (error) => fail(error))
process.on("unhandledRejection", (error) => fail(error))

function fail(error, log) {
  if (shuttingDown) return shuttingDown
  const message = error instanceof Error ? error.message : String(error)
  process.stdout.write(`\n  ${red(bold(running.shown ? "The demo stopped:" : "The demo could not start:"))} ${message}\n`)
  if (log) {
    const lines = tail(log, 30)
    if (lines) process.stdout.write(`\n${dim(lines.replace(/^/gm, "    "))}\n\n  ${dim(`Full log: ${rel(log)}`)}\n`)
  }
  // A stack only for the unexpected (a bug in this script), not for "port in use" and the like.
  if (error instanceof Error && !error.expected && !log && error.stack) {
    process.stdout.write(dim(`${error.stack.split("\n").slice(1, 4).join("\n")}\n`))
  }
  process.stdout.write(`  ${dim("Troubleshooting: demo/README.md")}\n`)
  return shutdown(1)
}

/** An error the user can act on: its message says what to do; no stack trace. */
const problem = (message, log) => Object.assign(new Error(message), { expected: true, log })

// ---------------------------------------------------------------------------------------------
// Ports
// ---------------------------------------------------------------------------------------------
async function choosePort(envName, fallback, what) {
  const fromEnv = process.env[envName]
  if (fromEnv) {
    if (!/^\d+$/.test(fromEnv) || Number(fromEnv) > 65535) throw problem(`${envName} must be a port number, got "${fromEnv}"`)
  }
  if (SMOKE && !fromEnv) return freePort()
  const port = Number(fromEnv || fallback)
  if (!(await portIsFree(port))) {
    throw problem(
      `port ${port} (${what}) is already in use. Is a demo already running? Stop it, or pick another port: ${envName}=<port> npm run demo`
    )
  }
  return port
}

// ---------------------------------------------------------------------------------------------
// Builds
// ---------------------------------------------------------------------------------------------
function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return null
  }
}

/**
 * The demo resolves the plugin by its package name, as a store that installed it does. In this
 * repository the plugin is the workspace root, which npm does not link into node_modules, so the
 * demo links it (demo/node_modules/medusa-plugin-servicescan -> ../..) and adds that folder to
 * NODE_PATH for Medusa's processes: tools that resolve from the hoisted node_modules (the admin
 * bundler's Tailwind scan of plugin admin code) find it there too.
 */
function linkPlugin() {
  const dir = join(DEMO_DIR, "node_modules")
  const link = join(dir, "medusa-plugin-servicescan")
  mkdirSync(dir, { recursive: true })
  let ok = false
  try {
    ok = require.resolve("medusa-plugin-servicescan/package.json", { paths: [DEMO_DIR] }) === join(ROOT_DIR, "package.json")
  } catch {
    ok = false
  }
  if (!ok) {
    rmSync(link, { recursive: true, force: true })
    const { symlinkSync } = require("node:fs")
    symlinkSync("../..", link, "dir")
  }
}

const medusaEnv = (extra = {}) => ({
  ...process.env,
  NODE_PATH: [join(DEMO_DIR, "node_modules"), process.env.NODE_PATH].filter(Boolean).join(":"),
  MEDUSA_DISABLE_TELEMETRY: "true",
  // Colours in log files are noise; the demo prints its own summary.
  FORCE_COLOR: "0",
  ...extra,
})

/** A build step: skipped when the stamp in demo/.cache matches the inputs and the outputs are untouched. */
async function buildStep({ index, label, stampName, inputsHash, outputs, command, cwd, log, firstRunNote }) {
  const stampFile = join(CACHE_DIR, `${stampName}.json`)
  const stamp = readJson(stampFile)
  const upToDate =
    !args.rebuild &&
    stamp?.hash === inputsHash &&
    outputs.every((p) => existsSync(p)) &&
    stamp?.fingerprint === fingerprint(outputs) &&
    !existsSync(join(ROOT_DIR, ".medusa", "server", "medusa-plugin-options.json"))
  if (!upToDate && firstRunNote && !stamp) process.stdout.write(`        ${dim(firstRunNote)}\n`)
  const step = new Step(index, TOTAL_STEPS, label)
  if (upToDate) {
    step.finish("up to date", dim)
    return 0
  }
  const code = await run(process.execPath, [MEDUSA_CLI, ...command], {
    cwd,
    env: medusaEnv(),
    logFile: log,
    onLine: (line) => {
      const { level, text } = parseLogLine(line)
      if (level === "info" || level === "warn") step.note(text)
    },
  })
  if (code !== 0) {
    step.fail("failed")
    throw problem(`${label} failed (medusa ${command.join(" ")} exited with ${code})`, log)
  }
  writeFileSync(stampFile, JSON.stringify({ hash: inputsHash, fingerprint: fingerprint(outputs), at: new Date().toISOString() }))
  return step.done()
}

/** One cluster, one server: a second demo would only fail later, on PostgreSQL's lock file. */
function checkClusterFree() {
  if (SMOKE || EXTERNAL_DB) return
  const pidFile = join(PG_DIR, "postmaster.pid")
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").split("\n")[0]) : 0
  let alive = false
  try {
    alive = pid > 0 && process.kill(pid, 0)
  } catch (error) {
    alive = error.code === "EPERM" // it exists, but belongs to another user
  }
  if (alive) {
    throw problem(
      `another demo's PostgreSQL (PID ${pid}) is using ${rel(PG_DIR)}. Stop that demo first; ` +
        "npm run demo -- --smoke can run next to it (it uses a throw-away database and free ports)"
    )
  }
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------
async function startPostgres() {
  let dataDir = PG_DIR
  let persistent = true
  if (SMOKE) {
    dataDir = join(await mkdtemp(join(tmpdir(), "servicescan-demo-pg-")), "data")
    persistent = false
  } else if (args.reset) {
    rmSync(PG_DIR, { recursive: true, force: true })
  }
  const child = fork(join(DEMO_DIR, "scripts", "lib", "postgres-process.mjs"), [dataDir, persistent ? "1" : "0", logFile("postgres")], {
    detached: true,
    stdio: ["ignore", "ignore", "ignore", "ipc"],
  })
  running.pg = child
  const info = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(problem("PostgreSQL did not start within 90 s", logFile("postgres"))), 90_000)
    child.on("message", (message) => {
      if (message?.type === "ready") {
        clearTimeout(timer)
        resolve(message)
      } else if (message?.type === "error") {
        clearTimeout(timer)
        reject(problem(`PostgreSQL did not start: ${message.message}`, logFile("postgres")))
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(problem(`PostgreSQL's process exited (${code}) before it was ready`, logFile("postgres")))
    })
  })
  // The child reports where the data really is (a private clone folder sends it to a temp folder).
  return { dataDir, persistent, ...info }
}

function pgUrl(pg, database) {
  return `postgres://${pg.user}:${pg.password}@localhost:${pg.port}/${database}`
}

async function pgQuery(pg, sql, params = []) {
  const { Client } = require("pg")
  const client = new Client({ host: "localhost", port: pg.port, user: pg.user, password: pg.password, database: "postgres" })
  await client.connect()
  try {
    return await client.query(sql, params)
  } finally {
    await client.end()
  }
}

// ---------------------------------------------------------------------------------------------
// Database: migrations + seed, cached as a template database
// ---------------------------------------------------------------------------------------------
const TEMPLATE_DB = "servicescan_demo_template"
const RUN_DB = "servicescan_demo"

async function migrateAndSeed(databaseUrl, step, log) {
  step.note("medusa db:migrate")
  let code = await run(process.execPath, [MEDUSA_CLI, "db:migrate", "--execute-safe-links"], {
    cwd: BUILD_DIR,
    env: medusaEnv({ DATABASE_URL: databaseUrl, NODE_ENV: "production" }),
    logFile: log,
    onLine: (line) => {
      const { level, text } = parseLogLine(line)
      if (level === "info") step.note(`db:migrate · ${text}`)
    },
  })
  if (code !== 0) throw problem(`medusa db:migrate exited with ${code}`, log)
  step.note("seeding the store")
  const seedOutput = join(CACHE_DIR, `seed-${randomBytes(4).toString("hex")}.json`)
  code = await run(process.execPath, [MEDUSA_CLI, "exec", "./src/scripts/seed.js"], {
    cwd: BUILD_DIR,
    env: medusaEnv({
      DATABASE_URL: databaseUrl,
      NODE_ENV: "production",
      DEMO_SEED_OUTPUT: seedOutput,
      DEMO_ADMIN_EMAIL: ADMIN_EMAIL,
      DEMO_ADMIN_PASSWORD: ADMIN_PASSWORD,
    }),
    logFile: log,
  })
  const seed = readJson(seedOutput)
  rmSync(seedOutput, { force: true })
  if (code !== 0 || !seed) throw problem(`seeding the store failed (medusa exec exited with ${code})`, log)
  return seed
}

async function prepareDatabase(pg, buildsHash) {
  const step = new Step(4, TOTAL_STEPS, EXTERNAL_DB ? "Migrating and seeding DATABASE_URL" : "Preparing the store's database")
  const log = logFile("database")
  if (EXTERNAL_DB) {
    const seed = await migrateAndSeed(EXTERNAL_DB, step, log)
    step.done()
    return { databaseUrl: EXTERNAL_DB, seed }
  }
  // The template is valid for one combination of builds, seed script and admin credentials.
  const key = hashInputs([join(DEMO_DIR, "src", "scripts", "seed.ts")], `${buildsHash}:${ADMIN_EMAIL}:${ADMIN_PASSWORD}:v1`)
  const { rows } = await pgQuery(
    pg,
    "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
    [TEMPLATE_DB]
  )
  let cached = null
  try {
    cached = rows[0]?.comment ? JSON.parse(rows[0].comment) : null
  } catch {
    cached = null
  }
  let seed
  let note = ""
  if (cached?.key === key && cached.seed) {
    seed = cached.seed
    note = "(cached migrations and seed; a fresh copy)"
  } else {
    if (rows.length) await pgQuery(pg, `DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`)
    await pgQuery(pg, `CREATE DATABASE ${TEMPLATE_DB}`)
    seed = await migrateAndSeed(pgUrl(pg, TEMPLATE_DB), step, log)
    const comment = JSON.stringify({ key, seed, at: new Date().toISOString() }).replace(/'/g, "''")
    await pgQuery(pg, `COMMENT ON DATABASE ${TEMPLATE_DB} IS '${comment}'`)
    note = "(migrations + seed, cached for next time)"
  }
  // Every start is a fresh store: the sandbox keeps its state in memory, so orders from an
  // earlier run could no longer be captured or disputed against it.
  step.note("copying the template")
  await pgQuery(pg, `DROP DATABASE IF EXISTS ${RUN_DB} WITH (FORCE)`)
  await pgQuery(pg, `CREATE DATABASE ${RUN_DB} TEMPLATE ${TEMPLATE_DB} STRATEGY FILE_COPY`)
  step.done(note)
  return { databaseUrl: pgUrl(pg, RUN_DB), seed }
}

// ---------------------------------------------------------------------------------------------
// Medusa
// ---------------------------------------------------------------------------------------------
/** Start-up chatter that says nothing about the demo (it runs without Redis on purpose). */
const NOISE = /Local Event Bus installed|redisUrl not found|MemoryStore is not|designed for a production environment|will not scale past a single process/

function startMedusa({ port, databaseUrl, urls, step }) {
  const log = createWriteStream(logFile("medusa"), { flags: "a" })
  const child = spawn(process.execPath, [MEDUSA_CLI, "start", "--port", String(port)], {
    cwd: BUILD_DIR,
    env: medusaEnv({
      NODE_ENV: "production",
      DATABASE_URL: databaseUrl,
      DEMO_MEDUSA_URL: urls.medusa,
      DEMO_STOREFRONT_URL: urls.storefront,
      SERVICESCAN_SANDBOX_URL: urls.sandbox,
      SERVICESCAN_WEBHOOK_SECRET: DEMO_WEBHOOK_SECRET,
      DEMO_POLL_INTERVAL_MS: SMOKE ? "2000" : "5000",
      DEMO_POLL_EVERY_MS: "2000",
      // The plugin's case import job every 5 s instead of every 30 min: a case raised at the
      // sandbox's Worldpay (npm run demo:chargeback) arrives while you watch.
      SERVICESCAN_CASE_IMPORT_SCHEDULE: process.env.SERVICESCAN_CASE_IMPORT_SCHEDULE || "0/5 * * * * *",
    }),
    stdio: ["ignore", "pipe", "pipe"],
  })
  running.medusa = child
  let bannerShown = false
  const echo = (line) => {
    if (!line.trim()) return
    const { level, text } = parseLogLine(line)
    if (!bannerShown) {
      if (level === "info") step.note(text)
      return
    }
    // After start-up: everything with --verbose; otherwise warnings, errors and the plugin's own lines.
    const show =
      args.verbose ||
      (!NOISE.test(text) &&
        (level === "warn" || level === "error" || (level !== "http" && /servicescan/i.test(text)) || (level === null && /error/i.test(text))))
    if (show) {
      const tag = level && level !== "info" && level !== "http" ? `${level === "error" ? red(level) : yellow(level)}: ` : ""
      process.stdout.write(`  ${dim("medusa │")} ${tag}${text.replace(/\n/g, `\n  ${dim("medusa │")} `)}\n`)
    }
  }
  const feeder = () => {
    let partial = ""
    return (chunk) => {
      log.write(chunk)
      const lines = (partial + chunk.toString()).split("\n")
      partial = lines.pop() ?? ""
      for (const line of lines) echo(line)
    }
  }
  child.stdout.on("data", feeder())
  child.stderr.on("data", feeder())
  child.on("exit", (code, signal) => {
    log.end()
    if (!shuttingDown) fail(new Error(`Medusa stopped unexpectedly (${signal ?? `exit code ${code}`})`), logFile("medusa"))
  })
  return { showLogs: () => (bannerShown = true) }
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------
async function main() {
  process.stdout.write(`\n  ${bold("ServiceScan demo")} ${dim("· medusa-plugin-servicescan in a whole store")}\n\n`)

  const ports = {
    medusa: await choosePort("DEMO_MEDUSA_PORT", 9000, "Medusa"),
    storefront: await choosePort("DEMO_STOREFRONT_PORT", 8000, "storefront"),
    sandbox: await choosePort("DEMO_SANDBOX_PORT", 4010, "sandbox"),
  }
  checkClusterFree()
  startLogs()
  const urls = {
    medusa: `http://localhost:${ports.medusa}`,
    storefront: `http://localhost:${ports.storefront}`,
    sandbox: `http://127.0.0.1:${ports.sandbox}`,
  }

  linkPlugin()

  // 1. The plugin, as published.
  const pluginHash = hashInputs([join(ROOT_DIR, "src"), join(ROOT_DIR, "package.json"), join(ROOT_DIR, "tsconfig.json")])
  const pluginOut = join(ROOT_DIR, ".medusa", "server", "src")
  try {
    await buildStep({
      index: 1,
      label: "Building the plugin (medusa plugin:build)",
      stampName: "plugin-build",
      inputsHash: pluginHash,
      outputs: [join(pluginOut, "admin", "index.mjs"), join(pluginOut, "providers", "servicescan", "index.js"), join(pluginOut, "modules", "servicescan", "index.js")],
      command: ["plugin:build"],
      cwd: ROOT_DIR,
      log: logFile("plugin-build"),
      firstRunNote: "first run: TypeScript and the plugin's admin pages, under a minute",
    })

    // 2. The store that uses it.
    // The store's build embeds the plugin's admin pages, not its backend (loaded at run time).
    const demoHash = hashInputs(
      [join(DEMO_DIR, "src"), join(DEMO_DIR, "medusa-config.ts"), join(DEMO_DIR, "tsconfig.json"), join(DEMO_DIR, "package.json")],
      hashInputs([join(ROOT_DIR, "src", "admin"), join(ROOT_DIR, "package.json")])
    )
    await buildStep({
      index: 2,
      label: "Building the store and its admin (medusa build)",
      stampName: "demo-build",
      inputsHash: demoHash,
      outputs: [join(BUILD_DIR, "public", "admin", "index.html"), join(BUILD_DIR, "medusa-config.js"), join(BUILD_DIR, "src", "scripts", "seed.js")],
      command: ["build"],
      cwd: DEMO_DIR,
      log: logFile("demo-build"),
      firstRunNote: "first run: the backend and the whole admin dashboard (vite), 1 to 2 minutes on 2 cores",
    })

    // 3. PostgreSQL, the sandbox and the storefront bundle, side by side.
    const step3 = new Step(3, TOTAL_STEPS, EXTERNAL_DB ? "Starting the sandbox" : "Starting PostgreSQL and the sandbox")
    const sandboxLog = createWriteStream(logFile("sandbox"), { flags: "a" })
    const [pg, sandbox, bundle] = await Promise.all([
      EXTERNAL_DB ? null : startPostgres(),
      (async () => {
        const { startSandbox } = require("servicescan-sandbox")
        const s = await startSandbox({
          port: ports.sandbox,
          host: "127.0.0.1",
          proofDelayMs: PROOF_DELAY_MS,
          logger: (level, message) => {
            sandboxLog.write(`${new Date().toISOString()} ${level} ${message}\n`)
            if (level !== "info" && running.shown) process.stdout.write(`  ${dim("sandbox │")} ${level}: ${message}\n`)
          },
        })
        running.sandbox = s
        return s
      })(),
      (async () => {
        ensureWidgetBuilt(logFile("storefront"))
        return bundleStorefront()
      })(),
    ])
    step3.done(pg ? (pg.initialised ? "(new database cluster)" : "") : "")

    // 4. Database.
    // The cached database depends on the schema (the plugin's migrations and links, Medusa's
    // version via the lock file) and on the seed; not on the rest of the plugin's code.
    const modulesDir = join(ROOT_DIR, "src", "modules")
    const schemaHash = hashInputs([
      ...(existsSync(modulesDir) ? readdirSync(modulesDir).map((m) => join(modulesDir, m, "migrations")) : []),
      join(ROOT_DIR, "src", "links"),
      join(ROOT_DIR, "package-lock.json"),
    ])
    const { databaseUrl, seed } = await prepareDatabase(pg, schemaHash)

    // 5. Medusa.
    const step5 = new Step(5, TOTAL_STEPS, "Starting Medusa (medusa start)")
    const medusa = startMedusa({ port: ports.medusa, databaseUrl, urls, step: step5 })
    await waitForHttp(`${urls.medusa}/health`, {
      timeoutMs: 180_000,
      abort: () => (running.medusa.exitCode !== null ? "Medusa exited during start-up" : null),
    }).catch((error) => {
      throw problem(error.message, logFile("medusa"))
    })
    // The plugin's routes are there: an unsigned webhook call is refused (401), not unknown (404).
    const probe = await fetch(`${urls.medusa}/hooks/servicescan/chargebacks`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })
    if (probe.status === 404) throw problem("Medusa started without the plugin's routes (/hooks/servicescan/chargebacks is 404)", logFile("medusa"))
    step5.done()

    // 6. Storefront.
    const step6 = new Step(6, TOTAL_STEPS, "Serving the storefront")
    running.storefront = await startStorefront({
      port: ports.storefront,
      bundle,
      medusaInternalUrl: urls.medusa,
      config: {
        medusaUrl: urls.medusa,
        adminUrl: `${urls.medusa}/app`,
        publishableKey: seed.publishableKey,
        regionId: seed.regionId,
        sandboxUrl: sandbox.url,
      },
    })
    step6.done()

    const context = { ports, urls, seed, pg, databaseUrl, sandbox }
    if (SMOKE) {
      medusa.showLogs()
      const { runSmoke } = await import("./lib/smoke.mjs")
      const ok = await runSmoke({ ...context, running, adminEmail: ADMIN_EMAIL, adminPassword: ADMIN_PASSWORD, logDir: LOG_DIR })
      return shutdown(ok ? 0 : 1, ok ? "Smoke test passed; stopping." : "Smoke test FAILED; stopping.")
    }
    printBanner(context)
    medusa.showLogs()
    running.shown = true
  } catch (error) {
    return fail(error, error?.log)
  }
}

function printBanner({ urls, seed, pg, databaseUrl, sandbox }) {
  const row = (label, value, note = "") => `    ${label.padEnd(12)} ${value}${note ? `   ${dim(note)}` : ""}\n`
  const db = pg ? `embedded, port ${pg.port}, data in ${rel(pg.dataDir)}` : "DATABASE_URL"
  let out = `\n  ${green(bold("The demo store is running"))} ${dim(`(ready in ${formatDuration(Date.now() - started)})`)}\n\n`
  out += row("Storefront", cyan(urls.storefront), "pay for something here")
  out += row("Admin", cyan(`${urls.medusa}/app`), `${ADMIN_EMAIL} / ${ADMIN_PASSWORD}`)
  out += row("Medusa API", urls.medusa, `publishable key ${seed.publishableKey}`)
  out += row("Sandbox", sandbox.url, `fake ServiceScan + Worldpay; proof requests answer after ${formatDuration(PROOF_DELAY_MS)}`)
  out += row("PostgreSQL", databaseUrl.replace(/:[^:@/]+@/, ":****@"), db)
  out += `\n  ${bold("Test cards")} ${dim("any future expiry (12/30), any CVV (123)")}\n`
  for (const [number, outcome] of [
    ["4457 1199 2239 0123", "approved"],
    ["4000 0000 0000 9995", "declined: insufficient funds"],
    ["4457 1199 2239 0124", "refused by the form: the number fails the Luhn check"],
    ["4000 0000 0000 0259", "approved, but its scan is judged fraudulent in a dispute"],
  ]) {
    out += `    ${number}   ${dim(outcome)}\n`
  }
  out += `    ${dim('"Scan card" in the form plays the camera scanner; only scanned cards leave dispute evidence.')}\n`
  out += `\n  ${bold("Chargebacks")} ${dim("(the evidence reaches the order about 20 s after the chargeback)")}\n`
  out += `    storefront   after paying, press "Simulate a chargeback"\n`
  out += `    admin        an order's page → Chargebacks → Record chargeback; all of them under Disputes\n`
  out += `    webhook      node demo/scripts/chargeback.mjs <order id>   ${dim("(a signed POST /hooks/servicescan/chargebacks)")}\n`
  out += `    processor    npm run demo:chargeback -- [order number]   ${dim("(a case at the sandbox's Worldpay: imported, proven and represented by itself)")}\n`
  out += `\n  ${dim(`Logs in ${rel(LOG_DIR)}/ · demo/README.md explains everything · Ctrl-C stops it all`)}\n\n`
  process.stdout.write(out)
}

main()
