import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { CANARY } from "./lib/canaries"
import { captureDir } from "./lib/capture"
import { MEDUSA_CLI, ROOT } from "./lib/processes"
import { DEMO_KEYS, DEMO_PROCESSOR } from "servicescan-sandbox"

/**
 * Secrets never reach a browser, a log or a tarball. Runs last in `npm test`
 * and scans what the suites before it recorded (scripts/test.mjs gives them
 * one capture folder): every store, admin, webhook and auth response body,
 * every log line, then builds and scans the admin bundle (the plugin's and the
 * whole dashboard built with the secrets in its environment), the demo
 * storefront bundle and the tarballs `npm pack` makes of the plugin, the
 * sandbox and the widget.
 *
 * The secrets are the values the test apps are configured with: the system
 * suites' distinctive canaries and run-time keys, the HTTP suites' app and
 * the demo. Three of the HTTP app's values are the sandbox's published demo
 * credentials, so they may appear where the sandbox documents itself (its
 * own package, and the plugin's README telling store owners how to try it).
 * The shareable key is public and allowed everywhere.
 */
type Secret = { name: string; value: string; source?: string; sandboxDemo?: boolean }

const HTTP_APP: Secret[] = [
  { name: "HTTP app payment-token key", value: "ptk_test_servicescan_demo", source: "medusa-config.ts", sandboxDemo: true },
  { name: "HTTP app disputes secret key", value: "sk_test_servicescan_demo", source: "medusa-config.ts", sandboxDemo: true },
  { name: "HTTP app processor password", value: "demo-password", source: "medusa-config.ts", sandboxDemo: true },
  { name: "HTTP app webhook secret", value: "whsec_test_servicescan_demo_0123456789", source: "medusa-config.ts" },
  { name: "HTTP app evidence key", value: "test-evidence-key-encrypting-key-0123456789", source: "medusa-config.ts" },
]
const DEMO_APP: Secret[] = [
  { name: "demo webhook secret", value: "whsec_servicescan_demo_0123456789", source: "demo/scripts/lib/chargeback.mjs" },
]
const SYSTEM_APP: Secret[] = [
  { name: "system app webhook secret", value: CANARY.webhookSecret, source: "integration-tests/system/lib/canaries.ts" },
  { name: "system app processor password", value: CANARY.processorPassword, source: "integration-tests/system/lib/canaries.ts" },
  { name: "system app JWT secret", value: CANARY.jwtSecret, source: "integration-tests/system/lib/canaries.ts" },
  { name: "system app cookie secret", value: CANARY.cookieSecret, source: "integration-tests/system/lib/canaries.ts" },
  { name: "system app evidence key", value: CANARY.evidenceKey, source: "integration-tests/system/lib/canaries.ts" },
  { name: "system app Adyen API key", value: CANARY.adyenApiKey, source: "integration-tests/system/lib/canaries.ts" },
  { name: "system app Adyen HMAC key", value: CANARY.adyenHmacKey, source: "integration-tests/system/lib/canaries.ts" },
  { name: "system app Adyen webhook password", value: CANARY.adyenWebhookPassword, source: "integration-tests/system/lib/canaries.ts" },
]

/**
 * Suites whose runs record responses, and suites whose runs must have recorded logs (see
 * scripts/test.mjs). The modules suite's log file is scanned when it has lines, but not required:
 * its spec gives the module a logger of its own and checks those lines itself (no key logged).
 */
const RESPONDING = ["http", "admin-e2e", "topology", "instances", "faults"]
const LOGGING = ["http", "admin-e2e", "topology", "instances", "faults"]

const capture = captureDir()
const skipped = new Set(readdirSync(join(capture, "skipped")))
const ran = (process.env.SERVICESCAN_CAPTURED_SUITES ?? "").split(",").filter((suite) => suite && !skipped.has(suite))

/** Secrets that exist only at run time, and public values the answers must contain, per suite. */
function runTimeValues(): { secrets: Secret[]; expected: Map<string, string[]> } {
  const secrets: Secret[] = []
  const expected = new Map<string, string[]>()
  const dir = join(capture, "secrets")
  for (const file of existsSync(dir) ? readdirSync(dir) : []) {
    const suite = file.replace(/\.jsonl$/, "")
    if (!file.endsWith(".jsonl")) continue
    for (const line of readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean)) {
      const entry = JSON.parse(line) as { secrets: Record<string, string>; expected: Record<string, string> }
      for (const [name, value] of Object.entries(entry.secrets)) secrets.push({ name: `${suite} run's ${name}`, value })
      expected.set(suite, [...(expected.get(suite) ?? []), ...Object.values(entry.expected)])
    }
  }
  return { secrets, expected }
}

const allSecrets = (): Secret[] => [...HTTP_APP, ...DEMO_APP, ...SYSTEM_APP, ...runTimeValues().secrets]

function findIn(text: string, secrets: Secret[]): Secret[] {
  return secrets.filter((s) => text.includes(s.value) || text.includes(encodeURIComponent(s.value)) || text.includes(Buffer.from(s.value).toString("base64")))
}

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? walk(path) : [path]
  })
}

/** Every file under `dir` holding a secret (binary files read as latin1), as "file: secret names". */
function scanTree(dir: string, secrets: (file: string) => Secret[]): string[] {
  const hits: string[] = []
  for (const file of walk(dir)) {
    const found = findIn(readFileSync(file).toString("latin1"), secrets(file))
    if (found.length) hits.push(`${relative(dir, file)}: ${found.map((s) => s.name).join(", ")}`)
  }
  return hits
}

const JWT = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/
const BEARER = /bearer\s+[A-Za-z0-9._~+/-]{16,}/i
/** A header value logged next to its name, e.g. `"x-api-key":"…"` or `x-api-key: …`. */
const API_KEY_VALUE = /x-api-key["']?\s*[:=]\s*["']?([^"'\s,}\]]+)/gi

describe("secrets: nothing secret in responses, logs, bundles or tarballs", () => {
  let scratch: string

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "servicescan-secrets-"))
  })

  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true })
  })

  it("scans for the values the test apps are really configured with", () => {
    const notInSource = [...HTTP_APP, ...DEMO_APP, ...SYSTEM_APP].filter(
      (secret) => !readFileSync(join(ROOT, secret.source as string), "utf8").includes(secret.value)
    )
    expect(notInSource).toEqual([])
    const systemConfig = readFileSync(join(ROOT, "integration-tests/system/app/medusa-config.ts"), "utf8")
    for (const use of ["CANARY.webhookSecret", "CANARY.jwtSecret", "CANARY.cookieSecret", "CANARY.evidenceKey", "...PROCESSOR", "ADYEN_MERCHANT.apiKey", "ADYEN_MERCHANT.hmacKey", "ADYEN_MERCHANT.webhookPassword"]) {
      expect(systemConfig).toContain(use)
    }
    // The allowance for the sandbox's own package rests on these being its published demo account.
    expect([DEMO_KEYS.paymentToken, DEMO_KEYS.secret, DEMO_PROCESSOR.password]).toEqual(
      HTTP_APP.filter((s) => s.sandboxDemo).map((s) => s.value)
    )
  })

  it("finds no secret in any store, admin, webhook or auth response body", () => {
    const dir = join(capture, "responses")
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith(".jsonl")) : []
    if (!files.length) {
      throw new Error(
        `No response was recorded in ${capture}. Run the suites to scan before this one in the same run, e.g. \`npm test -- http topology secrets\` (\`npm test\` runs all of them).`
      )
    }
    const missing = RESPONDING.filter((suite) => ran.includes(suite) && !files.includes(`${suite}.jsonl`))
    expect({ suitesWithoutRecordedResponses: missing }).toEqual({ suitesWithoutRecordedResponses: [] })

    const { expected } = runTimeValues()
    const secrets = allSecrets()
    const hits: string[] = []
    const counts: Record<string, number> = {}
    const unseen: string[] = []
    for (const file of files) {
      const suite = file.replace(/\.jsonl$/, "")
      const entries = readFileSync(join(dir, file), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as { url: string; status: number; body: string })
      counts[suite] = entries.length
      for (const entry of entries) {
        for (const secret of findIn(`${entry.url}\n${entry.body}`, secrets)) hits.push(`${suite}: ${entry.url} (${entry.status}) holds the ${secret.name}`)
      }
      // Proof that the scan read real answers: the store handed the browser its shareable key.
      const shareable = suite === "http" || suite === "admin-e2e" ? ["pk_test_servicescan_demo"] : expected.get(suite) ?? []
      for (const value of suite === "admin-e2e" ? [] : shareable) {
        if (!entries.some((e) => e.body.includes(value))) unseen.push(`${suite}: no response holds the shareable key ${value}`)
      }
    }
    process.stdout.write(`secrets: scanned responses ${JSON.stringify(counts)}\n`)
    expect(unseen).toEqual([])
    expect(hits).toEqual([])
  })

  it("finds no secret, bearer token or unredacted X-API-KEY in any captured log line", () => {
    const dir = join(capture, "logs")
    const files = existsSync(dir) ? readdirSync(dir).filter((f) => statSync(join(dir, f)).size > 0) : []
    if (!files.length) {
      throw new Error(`No log was recorded in ${capture}. Run the suites to scan before this one in the same run (\`npm test\` runs all of them).`)
    }
    const missing = LOGGING.filter((suite) => ran.includes(suite) && !files.some((f) => f.startsWith(`${suite}`)))
    expect({ suitesWithoutLogs: missing }).toEqual({ suitesWithoutLogs: [] })

    const secrets = allSecrets()
    const hits: string[] = []
    let lines = 0
    for (const file of files) {
      readFileSync(join(dir, file), "utf8")
        .split("\n")
        .forEach((line, index) => {
          if (!line) return
          lines++
          const where = `${file}:${index + 1}`
          for (const secret of findIn(line, secrets)) hits.push(`${where} holds the ${secret.name}`)
          if (JWT.test(line)) hits.push(`${where} holds a JWT (an Authorization value)`)
          if (BEARER.test(line)) hits.push(`${where} holds a bearer token`)
          for (const [, value] of line.matchAll(API_KEY_VALUE)) {
            if (value.length > 8 && !/redact|\*|…/i.test(value)) hits.push(`${where} logs an X-API-KEY value (${value.slice(0, 4)}…)`)
          }
        })
    }
    process.stdout.write(`secrets: scanned ${lines} log lines in ${files.length} files\n`)
    expect(hits).toEqual([])
  })

  describe("built artifacts", () => {
    let pluginBuilt = false

    /** The plugin as published: `medusa plugin:build`, what the package's prepack runs (once here; the plugin is then packed without it). */
    const buildPlugin = () => {
      if (pluginBuilt) return
      {
        execFileSync(process.execPath, [MEDUSA_CLI, "plugin:build"], {
          cwd: ROOT,
          env: { ...process.env, NODE_ENV: "production", MEDUSA_DISABLE_TELEMETRY: "true" },
          stdio: "pipe",
          maxBuffer: 64 * 1024 * 1024,
        })
      }
      pluginBuilt = true
    }

    it("finds no secret in the admin bundle: the plugin's, and the dashboard built with the secrets in its environment", () => {
      buildPlugin()
      const pluginAdmin = join(ROOT, ".medusa", "server", "src", "admin")
      expect(existsSync(join(pluginAdmin, "index.mjs"))).toBe(true)
      expect(readFileSync(join(pluginAdmin, "index.mjs"), "utf8")).toContain('"/admin/servicescan"')

      // The store's `medusa build` of its dashboard, with this plugin, in an environment that
      // holds every secret under the names a store would use: none may be inlined.
      const work = join(scratch, "dashboard")
      mkdirSync(work, { recursive: true })
      symlinkSync(join(ROOT, "node_modules"), join(work, "node_modules"), "dir")
      const outDir = join(work, "out")
      writeFileSync(
        join(work, "build.cjs"),
        `require("@medusajs/admin-bundler").build(${JSON.stringify({ path: "/app", outDir, sources: [], plugins: [join(pluginAdmin, "index.mjs")], backendUrl: "/" })})
  .catch((error) => { console.error(error); process.exit(1) })`
      )
      const secrets = allSecrets()
      execFileSync(process.execPath, [join(work, "build.cjs")], {
        cwd: work,
        env: {
          ...process.env,
          ...Object.fromEntries(secrets.map((s, i) => [`SERVICESCAN_TEST_SECRET_${i}`, s.value])),
          SERVICESCAN_PAYMENT_TOKEN_KEY: HTTP_APP[0].value,
          SERVICESCAN_SECRET_KEY: HTTP_APP[1].value,
          WORLDPAY_PASSWORD: CANARY.processorPassword,
          SERVICESCAN_WEBHOOK_SECRET: CANARY.webhookSecret,
          JWT_SECRET: CANARY.jwtSecret,
          COOKIE_SECRET: CANARY.cookieSecret,
        },
        stdio: "pipe",
        maxBuffer: 64 * 1024 * 1024,
      })
      expect(walk(outDir).some((f) => readFileSync(f).toString("latin1").includes("servicescan:order-chargebacks"))).toBe(true)
      expect([...scanTree(pluginAdmin, () => secrets), ...scanTree(outDir, () => secrets)]).toEqual([])
    })

    it("finds no secret in the demo storefront bundle", () => {
      const out = join(scratch, "storefront")
      mkdirSync(out, { recursive: true })
      const script = `
        import { writeFileSync } from "node:fs"
        import { bundleStorefront, ensureWidgetBuilt } from ${JSON.stringify(join(ROOT, "demo", "scripts", "lib", "storefront.mjs"))}
        ensureWidgetBuilt()
        const bundle = await bundleStorefront()
        writeFileSync(${JSON.stringify(join(out, "app.js"))}, bundle.js)
        writeFileSync(${JSON.stringify(join(out, "app.js.map"))}, bundle.map)
      `
      execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, stdio: "pipe" })
      expect(readFileSync(join(out, "app.js"), "utf8")).toContain("pp_servicescan_servicescan")
      expect(scanTree(out, () => allSecrets())).toEqual([])
    })

    it("finds no secret in the tarballs npm pack makes of the plugin, the sandbox and the widget", () => {
      buildPlugin()
      const packs = join(scratch, "packs")
      mkdirSync(packs, { recursive: true })
      const pack = (args: string[]) => {
        const output = execFileSync("npm", ["pack", ...args, "--json", "--pack-destination", packs], {
          cwd: ROOT,
          encoding: "utf8",
          stdio: ["ignore", "pipe", "pipe"],
          maxBuffer: 64 * 1024 * 1024,
        })
        const [{ filename }] = JSON.parse(output.slice(output.indexOf("["))) as { filename: string }[]
        const dir = join(packs, filename.replace(/\.tgz$/, ""))
        mkdirSync(dir, { recursive: true })
        execFileSync("tar", ["-xzf", join(packs, filename), "-C", dir])
        return join(dir, "package")
      }
      const plugin = pack(["--ignore-scripts"])
      const sandbox = pack(["-w", "sandbox"])
      const widget = pack(["-w", "storefront-widget"])

      // Not vacuous: the built code is in there.
      expect(existsSync(join(plugin, ".medusa", "server", "src", "providers", "servicescan", "index.js"))).toBe(true)
      expect(existsSync(join(widget, "dist", "index.mjs"))).toBe(true)
      expect(existsSync(join(sandbox, "package.json"))).toBe(true)

      const secrets = allSecrets()
      const hits = [
        // The plugin's README and .env.example tell store owners the sandbox's demo credentials; nothing else may.
        ...scanTree(plugin, (file) =>
          ["README.md", ".env.example"].includes(relative(plugin, file)) ? secrets.filter((s) => !s.sandboxDemo) : secrets
        ).map((h) => `plugin: ${h}`),
        // The sandbox's package defines and documents its own demo account.
        ...scanTree(sandbox, () => secrets.filter((s) => !s.sandboxDemo)).map((h) => `sandbox: ${h}`),
        ...scanTree(widget, () => secrets).map((h) => `widget: ${h}`),
      ]
      expect(hits).toEqual([])
    })
  })
})
