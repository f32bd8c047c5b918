import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync, symlinkSync } from "node:fs"
import { mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import jwt from "jsonwebtoken"
import { Client } from "pg"
import type { SeededStore } from "../../helpers/store"
import { CANARY } from "./canaries"
import { logDir } from "./capture"
import { ManagedProcess, MEDUSA_CLI, ROOT, freePort, waitFor } from "./processes"

const APP_SOURCES = join(ROOT, "integration-tests", "system", "app")

/**
 * The system suites' app as Medusa sees a project: a scratch folder holding
 * the suites' medusa-config.ts and links to the plugin's `src` (loaded as the
 * project's own, as in the HTTP suites), `node_modules` and `tsconfig.json`
 * (ts-node with swc compiles the TypeScript on load, so no `medusa build`).
 * Each suite gets its own folder, so the local file provider's `static/`
 * (archived scan images) is shared by that suite's processes only.
 */
export async function createAppDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "servicescan-system-app-"))
  symlinkSync(join(APP_SOURCES, "medusa-config.ts"), join(dir, "medusa-config.ts"))
  symlinkSync(join(ROOT, "src"), join(dir, "src"), "dir")
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir")
  symlinkSync(join(ROOT, "tsconfig.json"), join(dir, "tsconfig.json"))
  symlinkSync(join(ROOT, "package.json"), join(dir, "package.json"))
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) }
}

/**
 * `medusa build` of an app folder from createAppDir, as a store builds for production: the
 * plugin's `src` compiled to JavaScript in `<appDir>/.medusa/server`, which gets a link to
 * `node_modules` (a store runs `npm install` there). Answers that folder: startMedusa from it
 * runs `medusa start` as a deployed store does, with nothing left for ts-node to compile.
 * - The folder's tsconfig.json extends the plugin's but compiles `src` only: the types `medusa
 *   build` generates for an app (`.medusa/types`) type `query.graph` filters as the plugin's own
 *   build does not (two errors in code that compiles there; the emitted JavaScript is the same),
 *   and tsc would resolve the linked config's `../lib` import from the scratch folder.
 * - The config (app/medusa-config.ts) and the one file it imports (lib/canaries.ts) are then
 *   transpiled to JavaScript beside the build, in the same relative places, as `medusa build`
 *   compiles a store's config.
 */
export async function buildApp(appDir: string): Promise<string> {
  // A link to the plugin's own tsconfig.json: removed first, so the write below cannot reach that file.
  await unlink(join(appDir, "tsconfig.json"))
  await writeFile(
    join(appDir, "tsconfig.json"),
    JSON.stringify(
      {
        extends: join(ROOT, "tsconfig.json"),
        compilerOptions: { outDir: "./.medusa/server", rootDir: "./" },
        include: ["src/**/*"],
        exclude: ["node_modules", ".medusa/server", ".medusa/admin", "src/admin", ".cache", "**/__tests__/**"],
      },
      null,
      2
    )
  )
  await medusaCommand(appDir, "build", ["build"], { ...OFFLINE_ENV, DATABASE_URL: "postgres://offline@127.0.0.1:9/offline" })
  const serverDir = join(appDir, ".medusa", "server")
  const ts = await import("typescript")
  const transpile = (from: string, to: string) =>
    writeFile(
      to,
      ts.transpileModule(readFileSync(from, "utf8"), {
        compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
      }).outputText
    )
  await mkdir(join(appDir, ".medusa", "lib"), { recursive: true })
  await transpile(join(APP_SOURCES, "medusa-config.ts"), join(serverDir, "medusa-config.js"))
  await transpile(join(APP_SOURCES, "..", "lib", "canaries.ts"), join(appDir, ".medusa", "lib", "canaries.js"))
  symlinkSync(join(ROOT, "node_modules"), join(serverDir, "node_modules"), "dir")
  return serverDir
}

/** Environment of every Medusa process: the caller's, minus jest's, plus the app's. */
function medusaEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith("JEST_") && key !== "NODE_OPTIONS" && key !== "LOG_FILE") env[key] = value
  }
  return {
    ...env,
    NODE_ENV: "production",
    MEDUSA_DISABLE_TELEMETRY: "true",
    FORCE_COLOR: "0",
    ...extra,
  }
}

// ---- database -------------------------------------------------------------------------------

/** The server's maintenance database, from DATABASE_URL or DB_* (scripts/test.mjs sets them). */
function adminUrl(): URL {
  if (process.env.DATABASE_URL) {
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = "/postgres"
    return url
  }
  if (!process.env.DB_HOST) {
    throw new Error("No DATABASE_URL or DB_HOST: run the system suites through `npm test` (it provides PostgreSQL)")
  }
  const user = encodeURIComponent(process.env.DB_USERNAME ?? "postgres")
  const password = encodeURIComponent(process.env.DB_PASSWORD ?? "")
  return new URL(`postgres://${user}:${password}@${process.env.DB_HOST}:${process.env.DB_PORT ?? 5432}/postgres`)
}

function databaseUrl(name: string): string {
  const url = adminUrl()
  url.pathname = `/${name}`
  return url.toString()
}

async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: adminUrl().toString() })
  await client.connect()
  try {
    return (await client.query(text, params)).rows as T[]
  } finally {
    await client.end()
  }
}

function hashTree(hash: ReturnType<typeof createHash>, path: string): void {
  if (!existsSync(path)) return
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) hashTree(hash, join(path, name))
  } else {
    hash.update(path).update(readFileSync(path))
  }
}

/** Runs a Medusa CLI command in the app folder to completion; its output goes to the capture logs. */
async function medusaCommand(appDir: string, name: string, args: string[], env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, [MEDUSA_CLI, ...args], {
    cwd: appDir,
    env: medusaEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  })
  const proc = new ManagedProcess(name, child, join(logDir(), `system-${name}.log`))
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
  await proc.stop()
  if (code !== 0) {
    throw new Error(`medusa ${args.join(" ")} exited with ${code}; see ${proc.logFile}`)
  }
}

/** Placeholder keys for commands that load the config but call nothing (migrations, seeding). */
const OFFLINE_ENV = {
  SERVICESCAN_SANDBOX_URL: "http://127.0.0.1:9",
  SYSTEM_SHAREABLE_KEY: "pk_offline",
  SYSTEM_PAYMENT_TOKEN_KEY: "ptk_offline",
  SYSTEM_SECRET_KEY: "sk_offline",
}

/**
 * A migrated and seeded database to copy from, kept on the server between
 * suites (and runs) under a name derived from everything that shapes it:
 * migrating and seeding cost two Medusa boots, copying a database under a second.
 */
async function templateDatabase(appDir: string): Promise<{ name: string; store: SeededStore }> {
  const hash = createHash("sha256")
  for (const path of [
    join(ROOT, "src", "modules"),
    join(ROOT, "src", "links"),
    join(ROOT, "package-lock.json"),
    join(ROOT, "integration-tests", "helpers", "store.ts"),
    join(APP_SOURCES, "seed.ts"),
    join(APP_SOURCES, "medusa-config.ts"),
  ]) {
    hashTree(hash, path)
  }
  const name = `servicescan_system_tpl_${hash.digest("hex").slice(0, 12)}`
  const finished = async () =>
    (
      await sql<{ comment: string | null }>(
        "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
        [name]
      )
    )[0]?.comment
  const ready = await finished()
  if (ready) {
    return { name, store: JSON.parse(ready) as SeededStore }
  }
  // Suites run side by side (npm test's lanes) may both find no template: one builds it while the
  // other waits on this session lock, then finds it finished. Held on its own connection until done.
  const lock = new Client({ connectionString: adminUrl().toString() })
  await lock.connect()
  try {
    await lock.query("SELECT pg_advisory_lock(hashtext($1))", [name])
    const built = await finished()
    if (built) {
      return { name, store: JSON.parse(built) as SeededStore }
    }
    return await buildTemplate(appDir, name)
  } finally {
    await lock.end()
  }
}

/** Migrates and seeds the template database `name` (the caller holds the lock). */
async function buildTemplate(appDir: string, name: string): Promise<{ name: string; store: SeededStore }> {
  await sql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await sql(`CREATE DATABASE "${name}"`)
  const env = { ...OFFLINE_ENV, DATABASE_URL: databaseUrl(name) }
  await medusaCommand(appDir, "migrate", ["db:migrate", "--execute-safe-links"], env)
  const output = join(appDir, "seed.json")
  await medusaCommand(appDir, "seed", ["exec", join(APP_SOURCES, "seed.ts")], { ...env, SYSTEM_SEED_OUTPUT: output })
  const store = readFileSync(output, "utf8")
  // Marks the template complete: a run interrupted before this line leaves none to reuse.
  await sql(`COMMENT ON DATABASE "${name}" IS '${store.replace(/'/g, "''")}'`)
  return { name, store: JSON.parse(store) as SeededStore }
}

export type AppDatabase = { url: string; name: string; store: SeededStore; drop: () => Promise<void> }

/** A fresh copy of the template for one suite. */
export async function createDatabase(appDir: string, suite: string): Promise<AppDatabase> {
  const template = await templateDatabase(appDir)
  const name = `servicescan_system_${suite}_${process.pid}`
  await sql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
  await sql(`CREATE DATABASE "${name}" TEMPLATE "${template.name}"`)
  return {
    url: databaseUrl(name),
    name,
    store: template.store,
    drop: async () => {
      await sql(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
    },
  }
}

/** Admin headers signed for the seeded admin user now (the seed's own token may have expired). */
export function adminHeaders(store: SeededStore): Record<string, string> {
  const token = store.adminHeaders.headers.authorization.replace(/^Bearer /, "")
  const claims = jwt.decode(token) as Record<string, unknown>
  const fresh = jwt.sign(
    { actor_id: claims.actor_id, actor_type: claims.actor_type, auth_identity_id: claims.auth_identity_id, app_metadata: claims.app_metadata },
    CANARY.jwtSecret,
    { expiresIn: "1h" }
  )
  return { authorization: `Bearer ${fresh}` }
}

// ---- processes ------------------------------------------------------------------------------

export type MedusaProcess = ManagedProcess & { url: string; port: number }

/**
 * `medusa start` as a real process (one PID), ready once /health answers.
 * `env` carries what differs per process (worker mode, sandbox URL, keys); `nodeArgs` are
 * Node's own flags for it (a heap size, a CPU profile).
 */
export async function startMedusa(
  appDir: string,
  { suite, name, env, nodeArgs = [] }: { suite: string; name: string; env: Record<string, string | undefined>; nodeArgs?: string[] }
): Promise<MedusaProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, [...nodeArgs, MEDUSA_CLI, "start", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: appDir,
    env: medusaEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  })
  const proc = Object.assign(new ManagedProcess(name, child, join(logDir(), `${suite}-${name}.log`)), {
    url: `http://127.0.0.1:${port}`,
    port,
  })
  try {
    await waitFor(
      `${name} to answer /health`,
      async () => {
        if (!proc.running) throw new Error(`${name} exited during start-up; see ${proc.logFile}`)
        const response = await fetch(`${proc.url}/health`).catch(() => undefined)
        return response?.status === 200
      },
      { timeoutMs: 300_000, intervalMs: 500 }
    )
  } catch (error) {
    await proc.stop()
    throw error
  }
  return proc
}
