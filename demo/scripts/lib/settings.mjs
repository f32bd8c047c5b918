// The demo's command line and environment, read once: options, ports' defaults, folders, the
// processor the storefront pays through, and the log files every part writes to.
import { mkdirSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { parseArgs } from "node:util"
import { chosenProcessor, DEMO_PROCESSORS } from "./processors.mjs"
import { DEMO_DIR } from "./util.mjs"

export const HELP = `Usage: npm run demo [-- options]

Starts a whole store on this machine: the ServiceScan sandbox, PostgreSQL, a Medusa server with
medusa-plugin-servicescan (payments, disputes, admin pages) and a storefront page.

The store takes payments through both processors the sandbox plays, Worldpay and Adyen (one
ServiceScan provider each); DEMO_PROCESSOR picks the one the storefront pays through.

Options:
  --smoke      start everything on free ports with a throw-away database, then for each processor
               (or only DEMO_PROCESSOR's) run a checkout (API and, in Chromium, in the browser) and
               a chargeback at the processor through to "represented"; stop; exit 0 or 1
  --rebuild    rebuild the plugin and the demo store even if nothing changed
  --reset      delete the demo's database folder (demo/.data/postgres) first
  --verbose    print every Medusa log line (otherwise: demo/.data/logs/medusa.log)
  -h, --help   this help

Environment:
  DEMO_PROCESSOR (worldpay)    worldpay or adyen: the processor the storefront pays through
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

let processor
try {
  processor = chosenProcessor()
} catch (error) {
  console.error(`${error.message}\n\n${HELP}`)
  process.exit(2)
}

/** The processor the storefront pays through (DEMO_PROCESSOR; default Worldpay). */
export const PROCESSOR = processor
/** What `--smoke` checks: the one DEMO_PROCESSOR names, or both in turn when it is not set. */
export const SMOKE_PROCESSORS = process.env.DEMO_PROCESSOR ? [processor] : DEMO_PROCESSORS
export { args }
export const SMOKE = args.smoke
export const ADMIN_EMAIL = process.env.DEMO_ADMIN_EMAIL || "admin@servicescan.test"
export const ADMIN_PASSWORD = process.env.DEMO_ADMIN_PASSWORD || "servicescan-demo"
export const PROOF_DELAY_MS = Number(process.env.DEMO_PROOF_DELAY_MS || (SMOKE ? 2000 : 15000))
export const EXTERNAL_DB = process.env.DATABASE_URL || ""
export const DATA_DIR = join(DEMO_DIR, ".data")
export const LOG_DIR = join(DATA_DIR, SMOKE ? "smoke-logs" : "logs")
export const CACHE_DIR = join(DEMO_DIR, ".cache")
export const PG_DIR = join(DATA_DIR, "postgres")
export const BUILD_DIR = join(DEMO_DIR, ".medusa", "server")
export const TOTAL_STEPS = 6
export const started = Date.now()
export const rel = (p) => relative(process.cwd(), p) || "."

export const logFile = (name) => join(LOG_DIR, `${name}.log`)
/** Called once the ports are ours: a demo refused for a busy port must not empty the running one's logs. */
export function startLogs() {
  mkdirSync(LOG_DIR, { recursive: true })
  mkdirSync(CACHE_DIR, { recursive: true })
  for (const name of ["plugin-build", "demo-build", "postgres", "database", "medusa", "sandbox", "storefront"]) {
    writeFileSync(logFile(name), `# ${new Date().toISOString()}\n`)
  }
}
