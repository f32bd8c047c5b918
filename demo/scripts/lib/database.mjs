// The store's database: PostgreSQL (embedded, in its own process: postgres-process.mjs, unless
// DATABASE_URL is set), migrated and seeded once and kept as a template database, so every start
// is a fresh copy (the in-memory sandbox is fresh too).
import { fork } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync, rmSync } from "node:fs"
import { mkdtemp } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { medusaEnv, readJson } from "./builds.mjs"
import { problem, running } from "./lifecycle.mjs"
import { ADMIN_EMAIL, ADMIN_PASSWORD, args, BUILD_DIR, CACHE_DIR, EXTERNAL_DB, logFile, PG_DIR, rel, SMOKE, TOTAL_STEPS } from "./settings.mjs"
import { DEMO_DIR, hashInputs, MEDUSA_CLI, parseLogLine, run, Step } from "./util.mjs"

const require = createRequire(import.meta.url)

/** One cluster, one server: a second demo would only fail later, on PostgreSQL's lock file. */
export function checkClusterFree() {
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
export async function startPostgres() {
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

export function pgUrl(pg, database) {
  return `postgres://${pg.user}:${pg.password}@localhost:${pg.port}/${database}`
}

export async function pgQuery(pg, sql, params = []) {
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

export async function prepareDatabase(pg, buildsHash) {
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
