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
//
// The store pays through both processors the sandbox plays, Worldpay and Adyen, one ServiceScan
// provider each (demo/medusa-config.ts); DEMO_PROCESSOR (worldpay, the default, or adyen) picks the
// one the storefront uses, and `--smoke` checks both in turn unless DEMO_PROCESSOR names one.
// The sandbox's Adyen pushes its notifications to this Medusa's /hooks/servicescan/adyen.
//
// Each part has its own file under lib/: settings (options, folders), lifecycle (processes and
// shutdown), ports, builds, database, medusa, banner, storefront, smoke, processors.
import { createWriteStream, existsSync, readdirSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { printBanner } from "./lib/banner.mjs"
import { buildStep, linkPlugin } from "./lib/builds.mjs"
import { checkClusterFree, prepareDatabase, startPostgres } from "./lib/database.mjs"
import { fail, handleSignalsAndCrashes, problem, running, shutdown } from "./lib/lifecycle.mjs"
import { startMedusa } from "./lib/medusa.mjs"
import { choosePort } from "./lib/ports.mjs"
import { DEMO_PROCESSORS } from "./lib/processors.mjs"
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  BUILD_DIR,
  EXTERNAL_DB,
  LOG_DIR,
  logFile,
  PROCESSOR,
  PROOF_DELAY_MS,
  SMOKE,
  SMOKE_PROCESSORS,
  startLogs,
  TOTAL_STEPS,
} from "./lib/settings.mjs"
import { bundleStorefront, ensureWidgetBuilt, startStorefront } from "./lib/storefront.mjs"
import { bold, dim, DEMO_DIR, hashInputs, ROOT_DIR, Step, waitForHttp, yellow } from "./lib/util.mjs"

const require = createRequire(import.meta.url)

/** Where the sandbox's Adyen sends its notifications: the plugin's Adyen webhook on this Medusa. */
export const ADYEN_WEBHOOK_PATH = "/hooks/servicescan/adyen"

handleSignalsAndCrashes()

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
          // The demo Adyen merchant's notifications (its HMAC key and Basic credentials are the
          // ones demo/medusa-config.ts configures) go to the plugin's webhook on this Medusa.
          adyen: { webhookUrl: `${urls.medusa}${ADYEN_WEBHOOK_PATH}` },
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
    // Adyen's disputes arrive only through its webhook: without the route they would never reach the store.
    const adyenProbe = await fetch(`${urls.medusa}${ADYEN_WEBHOOK_PATH}`, { method: "POST", body: "{}", headers: { "content-type": "application/json" } })
    step5.done()
    if (adyenProbe.status === 404) {
      process.stdout.write(`  ${yellow("!")} ${ADYEN_WEBHOOK_PATH} answers 404: Adyen's notifications (its disputes) cannot reach this store\n`)
    }

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
        // The provider the page pays through; `?processor=adyen` (or worldpay) on its URL picks another.
        providerId: PROCESSOR.providerId,
        providers: Object.fromEntries(DEMO_PROCESSORS.map((p) => [p.name, p.providerId])),
      },
    })
    step6.done()

    const context = { ports, urls, seed, pg, databaseUrl, sandbox }
    if (SMOKE) {
      medusa.showLogs()
      const { runSmoke } = await import("./lib/smoke.mjs")
      const ok = await runSmoke({ ...context, running, processors: SMOKE_PROCESSORS, adminEmail: ADMIN_EMAIL, adminPassword: ADMIN_PASSWORD, logDir: LOG_DIR })
      return shutdown(ok ? 0 : 1, ok ? "Smoke test passed; stopping." : "Smoke test FAILED; stopping.")
    }
    printBanner(context)
    medusa.showLogs()
    running.shown = true
  } catch (error) {
    return fail(error, error?.log)
  }
}

main()
