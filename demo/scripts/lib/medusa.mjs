// Medusa itself (`medusa start`, one process, production mode) with the demo's environment; its
// log goes to a file, and after start-up only warnings, errors and the plugin's own lines are shown.
import { spawn } from "node:child_process"
import { createWriteStream } from "node:fs"
import { DEMO_WEBHOOK_SECRET } from "./chargeback.mjs"
import { medusaEnv } from "./builds.mjs"
import { fail, running, isShuttingDown } from "./lifecycle.mjs"
import { args, BUILD_DIR, logFile, SMOKE } from "./settings.mjs"
import { dim, MEDUSA_CLI, parseLogLine, red, yellow } from "./util.mjs"

/** Start-up chatter that says nothing about the demo (it runs without Redis on purpose). */
const NOISE = /Local Event Bus installed|redisUrl not found|MemoryStore is not|designed for a production environment|will not scale past a single process/

export function startMedusa({ port, databaseUrl, urls, step }) {
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
    if (!isShuttingDown()) fail(new Error(`Medusa stopped unexpectedly (${signal ?? `exit code ${code}`})`), logFile("medusa"))
  })
  return { showLogs: () => (bannerShown = true) }
}
