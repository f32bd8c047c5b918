#!/usr/bin/env node
// The packaging test: what a store owner does with the published packages, end to end.
//
//   1. `npm pack` the three published packages (the plugin, servicescan-sandbox,
//      medusa-servicescan-storefront) and check the tarballs: LICENSE, type declarations for
//      every exported entry point, no medusa-config, no inline source maps, no test secrets,
//      peer ranges rather than pins, repository/homepage/bugs.
//   2. A minimal Medusa app in a temp folder (not the demo): Medusa from the npm registry at
//      the chosen version, plus the three tarballs. Strict TypeScript imports the plugin's and
//      the widget's entry points.
//   3. medusa-config.ts is the README's own snippet (read from README.md), .env comes from
//      .env.example with the sandbox's address.
//   4. `medusa db:migrate`, `medusa build`, then production as the README says: .env and
//      `npm install` in .medusa/server, `./node_modules/.bin/medusa start` there (one PID).
//   5. Against the running server and the sandbox CLI from its tarball: the provider is listed,
//      the disputes admin routes answer, the built admin holds the extension, a store checkout
//      places an order, and a chargeback on it reaches evidence_ready.
//
// Usage: node scripts/packaging-test.mjs            (MEDUSA_VERSION=latest)
//        MEDUSA_VERSION=oldest node scripts/packaging-test.mjs
//   MEDUSA_VERSION: "latest" (newest 2.x on the registry), "oldest" (the lowest version the
//   plugin's peerDependencies accept), or an exact version such as 2.21.2.
//   PACKAGING_KEEP=1 keeps the temp folder; PACKAGING_REUSE=<kept folder> skips packing and
//   installing and goes on from its store (for debugging only: nothing is re-packed).
//   PACKAGING_PACK_ONLY=<folder> packs the three tarballs into the folder and stops there;
//   PACKAGING_TARBALLS=<that folder> then installs from them instead of packing again. With two
//   lanes (SERVICESCAN_TEST_LANES=2, as .ci/run sets), `npm test -- all` packs once this way and
//   runs the latest and the oldest Medusa side by side: packing builds the plugin and the widget in
//   the repository, which two runs must not do at the same time.
//   Uses DATABASE_URL when set, else embedded PostgreSQL.
import { spawn, execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, startEmbeddedPostgres } from "./embedded-postgres.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const require = createRequire(import.meta.url)
const rootPkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))

const results = { passed: 0, failed: 0 }
const started = Date.now()
const children = new Set()

function log(line) {
  process.stdout.write(`${line}\n`)
}

async function check(label, fn) {
  const t0 = Date.now()
  try {
    const detail = await fn()
    results.passed++
    log(`  ✓ ${label}${detail ? ` · ${detail}` : ""} (${((Date.now() - t0) / 1000).toFixed(1)} s)`)
  } catch (error) {
    results.failed++
    log(`  ✗ ${label}: ${error instanceof Error ? error.message : String(error)}`)
    throw Object.assign(new Error(`${label} failed`), { reported: true })
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message)
}

/** Runs a command to completion; rejects with its output's tail on a non-zero exit. */
function exec(command, args, { cwd = root, env = {}, quiet = true, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: [input ? "pipe" : "ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => {
      stdout += d
      if (!quiet) process.stdout.write(d)
    })
    child.stderr.on("data", (d) => {
      stderr += d
      if (!quiet) process.stderr.write(d)
    })
    if (input) child.stdin.end(input)
    child.on("error", reject)
    child.on("exit", (code) => {
      if (code === 0) resolve({ stdout, stderr })
      else reject(new Error(`${command} ${args.join(" ")} exited with ${code}\n${(stderr || stdout).trim().split("\n").slice(-25).join("\n")}`))
    })
  })
}

/** A long-running process (Medusa, the sandbox); its output goes to a log file we read on failure. */
function startProcess(command, args, { cwd, env, logFile }) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
  children.add(child)
  const chunks = []
  const onData = (d) => {
    chunks.push(String(d))
    if (chunks.length > 400) chunks.shift()
  }
  child.stdout.on("data", onData)
  child.stderr.on("data", onData)
  child.on("exit", () => children.delete(child))
  child.tail = () => chunks.join("").trim().split("\n").slice(-30).join("\n")
  child.logFile = logFile
  return child
}

async function stopProcess(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return
  child.kill("SIGTERM")
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
  await new Promise((resolve) => child.once("exit", resolve))
  clearTimeout(timer)
}

async function waitFor(what, fn, { timeoutMs = 120_000, intervalMs = 500, process: proc } = {}) {
  const deadline = Date.now() + timeoutMs
  let last
  while (Date.now() < deadline) {
    if (proc && proc.exitCode !== null) {
      throw new Error(`${what}: the process exited with ${proc.exitCode}\n${proc.tail()}`)
    }
    try {
      const value = await fn()
      if (value) return value
    } catch (error) {
      last = error
    }
    await new Promise((r) => setTimeout(r, intervalMs))
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000} s${last ? ` (${last.message})` : ""}${proc ? `\n${proc.tail()}` : ""}`)
}

async function json(url, { method = "GET", headers = {}, body } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  let parsed
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = text
  }
  return { status: response.status, body: parsed }
}

async function expectOk(what, promise, status = [200, 201]) {
  const result = await promise
  assert([].concat(status).includes(result.status), `${what}: ${result.status} ${JSON.stringify(result.body).slice(0, 400)}`)
  return result.body
}

// ---------------------------------------------------------------------------------------------
// Which Medusa
// ---------------------------------------------------------------------------------------------
function semverParts(v) {
  return v.split(/[.-]/).slice(0, 3).map(Number)
}
function compareVersions(a, b) {
  const [x, y] = [semverParts(a), semverParts(b)]
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i]
  return 0
}

async function resolveMedusaVersion() {
  const wanted = process.env.MEDUSA_VERSION || "latest"
  if (/^\d+\.\d+\.\d+$/.test(wanted)) return wanted
  if (wanted === "oldest") {
    const range = rootPkg.peerDependencies?.["@medusajs/framework"] ?? ""
    const match = /^(?:\^|>=\s*)(\d+\.\d+\.\d+)/.exec(range)
    assert(match, `cannot read the oldest version from the peer range "${range}"`)
    return match[1]
  }
  if (wanted === "latest") {
    const { stdout } = await exec("npm", ["view", "@medusajs/medusa@2", "version", "--json"])
    const versions = [].concat(JSON.parse(stdout)).filter((v) => /^\d+\.\d+\.\d+$/.test(v))
    return versions.sort(compareVersions).at(-1)
  }
  throw new Error(`MEDUSA_VERSION must be latest, oldest or an x.y.z version, not "${wanted}"`)
}

// ---------------------------------------------------------------------------------------------
// The README's medusa-config snippet
// ---------------------------------------------------------------------------------------------
function readmeSnippet(name, lang) {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const match = new RegExp(`<!-- ${name}:start -->\\s*\`\`\`${lang}\\n([\\s\\S]*?)\`\`\`\\s*<!-- ${name}:end -->`).exec(readme)
  assert(match, `README.md has no \`\`\`${lang} snippet between <!-- ${name}:start --> and <!-- ${name}:end -->`)
  return match[1]
}

/** .env from .env.example, the sandbox's port and this run's database filled in. */
function envFromExample({ sandboxUrl, databaseUrl }) {
  const example = readFileSync(join(root, ".env.example"), "utf8")
  const defaults = "http://127.0.0.1:4010"
  assert(example.includes(defaults), `.env.example no longer points at the sandbox's default ${defaults}`)
  return example
    .replaceAll(defaults, sandboxUrl)
    .replace(/^DATABASE_URL=.*$/m, `DATABASE_URL=${databaseUrl}`)
}

// ---------------------------------------------------------------------------------------------
// Tarballs
// ---------------------------------------------------------------------------------------------
function tarList(file) {
  return execFileSync("tar", ["-tzf", file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).split("\n").filter(Boolean)
}
function tarRead(file, path) {
  return execFileSync("tar", ["-xzf", file, "-O", path], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
}

async function pack(workspace, destination) {
  const args = ["pack", "--json", "--pack-destination", destination, ...(workspace ? ["-w", workspace] : [])]
  const { stdout } = await exec("npm", args)
  let parsed
  try {
    parsed = JSON.parse(stdout)
  } catch {
    throw new Error(`npm ${args.join(" ")} printed something other than JSON on stdout:\n${stdout.slice(0, 500)}`)
  }
  return join(destination, parsed[0].filename)
}

const PACK_LABEL = "npm pack the plugin (prepack builds it), the sandbox and the widget; --json is JSON"

/** Packs the three published packages into `destination`, their paths into `packed`. */
async function packAll(destination, packed) {
  packed.plugin = await pack(undefined, destination)
  packed.sandbox = await pack("sandbox", destination)
  packed.widget = await pack("storefront-widget", destination)
  return tarballNames(packed)
}

/** The tarballs' file names, for a check's line. */
function tarballNames(packed) {
  return Object.values(packed).map((f) => f.split("/").at(-1)).join(", ")
}

function checkPluginTarball(file) {
  const files = tarList(file)
  const problems = []
  if (!files.includes("package/LICENSE")) problems.push("no LICENSE")
  const configs = files.filter((f) => /medusa-config/.test(f))
  if (configs.length) problems.push(`ships ${configs.join(", ")}`)
  const pkg = JSON.parse(tarRead(file, "package/package.json"))
  // Every exported entry point with types has its declaration file in the tarball.
  const concrete = {
    "./workflows": "workflows",
    "./modules/*": "modules/servicescan",
    "./providers/*": "providers/servicescan",
  }
  for (const [key, name] of Object.entries(concrete)) {
    const entry = pkg.exports?.[key]
    const types = entry?.types?.replace("*", name.split("/")[1] ?? "")
    if (!types) problems.push(`export ${key} declares no types`)
    else if (!files.includes(`package/${types.replace(/^\.\//, "")}`)) problems.push(`${types} (types of ${key}) is missing`)
  }
  let inline = 0
  let secrets = []
  let maps = 0
  for (const f of files) {
    if (f.endsWith(".map")) maps++
    if (!/\.(c|m)?js$/.test(f)) continue
    const text = tarRead(file, f)
    if (text.includes("sourceMappingURL=data:")) inline++
    for (const secret of ["test-jwt-secret", "test-cookie-secret", "whsec_test_servicescan_demo"]) {
      if (text.includes(secret)) secrets.push(`${f} holds ${secret}`)
    }
  }
  if (inline) problems.push(`${inline} files carry inline source maps`)
  if (secrets.length) problems.push(secrets.join("; "))
  for (const field of ["repository", "homepage", "bugs"]) {
    if (!pkg[field]) problems.push(`package.json has no ${field}`)
  }
  for (const [name, range] of Object.entries(pkg.peerDependencies ?? {})) {
    if (/^\d+\.\d+\.\d+$/.test(range)) problems.push(`peer ${name} is pinned to ${range}`)
  }
  for (const name of ["@medusajs/test-utils", "@medusajs/cli"]) {
    if (pkg.peerDependencies?.[name]) problems.push(`peer ${name} is not needed at run time`)
  }
  assert(problems.length === 0, problems.join("; "))
  return `${files.length} files, ${maps} separate source maps, declarations for workflows, modules/servicescan, providers/servicescan`
}

function checkOtherTarball(file, mustHave) {
  const files = tarList(file)
  const missing = ["package/LICENSE", ...mustHave].filter((f) => !files.includes(f))
  assert(missing.length === 0, `${file}: missing ${missing.join(", ")}`)
  return `${files.length} files`
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------
let work
let pg
let medusa
let sandbox
let failed = false

// Packing only (`npm test` then runs both Medusa versions from these tarballs): nothing to clean up.
if (process.env.PACKAGING_PACK_ONLY) {
  const ok = await check(PACK_LABEL, () => packAll(process.env.PACKAGING_PACK_ONLY, {})).then(
    () => true,
    () => false
  )
  process.exit(ok ? 0 : 1)
}

try {
  const version = await resolveMedusaVersion()
  log(`packaging test: Medusa ${version} (MEDUSA_VERSION=${process.env.MEDUSA_VERSION || "latest"})`)
  const reuse = process.env.PACKAGING_REUSE
  work = reuse ?? (await mkdtemp(join(tmpdir(), "servicescan-packaging-")))
  const tarballs = join(work, "tarballs")
  const app = join(work, "store")
  if (reuse) {
    log(`  – reusing ${reuse}: packing and installing skipped`)
    await rm(join(app, ".medusa"), { recursive: true, force: true })
    await rm(join(app, "checks"), { recursive: true, force: true })
  } else {
    await mkdir(tarballs)
    await mkdir(app)
  }

  const packed = {}
  const prepacked = process.env.PACKAGING_TARBALLS
  if (!reuse && !prepacked) await check(PACK_LABEL, () => packAll(tarballs, packed))
  if (prepacked) await check(`the three tarballs packed once for this run (${prepacked})`, async () => {
    const names = readdirSync(prepacked)
    const find = (name) => {
      const file = names.find((f) => new RegExp(`^${name}-\\d+\\.\\d+\\.\\d+.*\\.tgz$`).test(f))
      assert(file, `no ${name}-<version>.tgz in ${prepacked} (it has ${names.join(", ") || "nothing"})`)
      return join(prepacked, file)
    }
    packed.plugin = find(rootPkg.name)
    packed.sandbox = find("servicescan-sandbox")
    packed.widget = find("medusa-servicescan-storefront")
    return tarballNames(packed)
  })
  if (!reuse) await check("plugin tarball: LICENSE, declarations, no medusa-config, no inline source maps, no test secrets, peer ranges", async () =>
    checkPluginTarball(packed.plugin)
  )
  if (!reuse) await check("sandbox and widget tarballs: LICENSE (and the widget's declarations)", async () =>
    [
      checkOtherTarball(packed.sandbox, ["package/dist/cli.js"]),
      checkOtherTarball(packed.widget, ["package/dist/types/index.d.ts", "package/dist/types/index.d.mts"]),
    ].join(", ")
  )

  // A store as create-medusa-app lays one out, reduced to what `medusa build` needs.
  const appPkg = {
    name: "servicescan-packaging-store",
    version: "0.0.0",
    private: true,
    scripts: { build: "medusa build", start: "medusa start" },
    dependencies: {
      "@medusajs/admin-sdk": version,
      "@medusajs/cli": version,
      "@medusajs/framework": version,
      "@medusajs/medusa": version,
      // Medusa's defineConfig always loads this plugin; create-medusa-app's stores depend on it.
      "@medusajs/draft-order": version,
      "medusa-plugin-servicescan": `file:${packed.plugin}`,
      "medusa-servicescan-storefront": `file:${packed.widget}`,
      "servicescan-sandbox": `file:${packed.sandbox}`,
    },
    devDependencies: {
      // Only for type-checking the README's storefront snippet (a storefront's dependency, not a store's).
      "@medusajs/js-sdk": version,
      "@swc/core": "^1.7.28",
      "@types/node": "^20.17.0",
      "@types/react": "^18.3.12",
      react: "^18.3.1",
      "react-dom": "^18.3.1",
      "ts-node": "^10.9.2",
      typescript: "^5.6.3",
      vite: "^5.4.11",
    },
  }
  if (!reuse) await writeFile(join(app, "package.json"), `${JSON.stringify(appPkg, null, 2)}\n`)
  if (!reuse) await check(`npm install: Medusa ${version} from the registry plus the three tarballs`, async () => {
    await exec("npm", ["install", "--no-audit", "--no-fund"], { cwd: app })
    const installed = JSON.parse(readFileSync(join(app, "node_modules/@medusajs/framework/package.json"), "utf8")).version
    assert(installed === version, `@medusajs/framework ${installed} installed, not ${version}`)
    return `@medusajs/framework ${installed}, @medusajs/ui ${JSON.parse(readFileSync(join(app, "node_modules/@medusajs/ui/package.json"), "utf8")).version}`
  })

  // Medusa's default tsconfig for a store (what `medusa build` compiles with).
  await writeFile(
    join(app, "tsconfig.json"),
    `${JSON.stringify(
      {
        compilerOptions: {
          target: "ES2021",
          esModuleInterop: true,
          module: "Node16",
          moduleResolution: "Node16",
          emitDecoratorMetadata: true,
          experimentalDecorators: true,
          skipLibCheck: true,
          skipDefaultLibCheck: true,
          declaration: false,
          sourceMap: false,
          inlineSourceMap: true,
          outDir: "./.medusa/server",
          rootDir: "./",
          jsx: "react-jsx",
          forceConsistentCasingInFileNames: true,
          resolveJsonModule: true,
          checkJs: false,
          strictNullChecks: true,
        },
        "ts-node": { swc: true },
        include: ["**/*", ".medusa/types/*"],
        exclude: ["node_modules", ".medusa/server", ".medusa/admin", ".cache", "checks"],
      },
      null,
      2
    )}\n`
  )

  await check("strict TypeScript: the plugin's entry points from a store (Node16), the README's storefront snippet (bundler)", async () => {
    await mkdir(join(app, "checks"))
    await writeFile(
      join(app, "checks", "server.ts"),
      `import type { ProcessorGateway, ServiceScanOptions } from "medusa-plugin-servicescan/providers/servicescan"
import { SERVICESCAN_MODULE } from "medusa-plugin-servicescan/modules/servicescan"
import { recordChargebackWorkflow } from "medusa-plugin-servicescan/workflows"

// A gateway of one's own must satisfy the exported interface.
export const gateway: ProcessorGateway | undefined = undefined
export const options: Partial<ServiceScanOptions> = { checkoutUrl: "https://checkout.example" }
export const moduleName: string = SERVICESCAN_MODULE
export const workflow: unknown = recordChargebackWorkflow
`
    )
    await writeFile(join(app, "checks", "storefront.tsx"), readmeSnippet("storefront", "tsx"))
    const strict = { strict: true, noEmit: true, skipLibCheck: true, esModuleInterop: true, jsx: "react-jsx" }
    await writeFile(
      join(app, "tsconfig.check-server.json"),
      JSON.stringify({ compilerOptions: { ...strict, target: "ES2021", module: "Node16", moduleResolution: "Node16", types: ["node"] }, files: ["checks/server.ts"] })
    )
    await writeFile(
      join(app, "tsconfig.check-storefront.json"),
      JSON.stringify({
        compilerOptions: { ...strict, target: "ES2020", lib: ["DOM", "ES2022"], module: "ESNext", moduleResolution: "Bundler", types: [] },
        files: ["checks/storefront.tsx"],
      })
    )
    await exec(join(app, "node_modules/.bin/tsc"), ["-p", "tsconfig.check-server.json"], { cwd: app })
    await exec(join(app, "node_modules/.bin/tsc"), ["-p", "tsconfig.check-storefront.json"], { cwd: app })
    return "ProcessorGateway, ServiceScanOptions, SERVICESCAN_MODULE, recordChargebackWorkflow; ServiceScanCardForm + payWithServiceScan with @medusajs/js-sdk"
  })

  // The database: one throw-away database for this run.
  let databaseUrl
  if (process.env.DATABASE_URL) {
    const base = new URL(process.env.DATABASE_URL)
    base.pathname = `/servicescan_packaging_${Date.now()}_${process.pid}`
    databaseUrl = base.toString()
  } else {
    pg = await startEmbeddedPostgres()
    databaseUrl = `postgres://${pg.user}:${pg.password}@localhost:${pg.port}/servicescan_packaging`
  }
  {
    const { Client } = require("pg")
    const adminUrl = new URL(databaseUrl)
    const dbName = adminUrl.pathname.slice(1)
    adminUrl.pathname = "/postgres"
    const client = new Client({ connectionString: adminUrl.toString() })
    await client.connect()
    await client.query(`CREATE DATABASE "${dbName}"`)
    await client.end()
  }

  const sandboxPort = await freePort()
  const sandboxUrl = `http://127.0.0.1:${sandboxPort}`
  const medusaPort = await freePort()
  const medusaUrl = `http://localhost:${medusaPort}`
  const env = envFromExample({ sandboxUrl, databaseUrl })

  await check("medusa-config.ts is the README's snippet; .env is .env.example", async () => {
    const snippet = readmeSnippet("medusa-config", "ts")
    await writeFile(join(app, "medusa-config.ts"), snippet)
    await writeFile(join(app, ".env"), env)
    return `${snippet.split("\n").length} lines of config, ${env.split("\n").filter((l) => /^[A-Z_]+=/.test(l)).length} variables`
  })

  await check("medusa db:migrate (the plugin's tables and the chargeback ↔ order link)", async () => {
    const { stdout } = await exec(join(app, "node_modules/.bin/medusa"), ["db:migrate"], { cwd: app, env: { MEDUSA_DISABLE_TELEMETRY: "true" } })
    const { Client } = require("pg")
    const client = new Client({ connectionString: databaseUrl })
    await client.connect()
    const { rows } = await client.query(
      "select table_name from information_schema.tables where table_schema = 'public' and (table_name like '%chargeback%' or table_name like '%proof_request%' or table_name like '%scan_evidence%') order by 1"
    )
    await client.end()
    const names = rows.map((r) => r.table_name)
    assert(names.some((n) => n === "servicescan_chargeback"), `no chargeback table after migrating: ${names.join(", ")}\n${stdout.slice(-1000)}`)
    assert(names.some((n) => /order.*chargeback|chargeback.*order/.test(n)), `no order ↔ chargeback link table: ${names.join(", ")}`)
    return names.join(", ")
  })

  const server = join(app, ".medusa", "server")
  await check("medusa build (backend and admin with the plugin's extension)", async () => {
    await exec(join(app, "node_modules/.bin/medusa"), ["build"], { cwd: app, env: { MEDUSA_DISABLE_TELEMETRY: "true" } })
    const assets = join(server, "public", "admin", "assets")
    assert(existsSync(assets), `no built admin in ${assets}`)
    // The extension's API base and a label of its order widget, both ours alone.
    const holding = readdirSync(assets).filter((f) => {
      if (!f.endsWith(".js")) return false
      const text = readFileSync(join(assets, f), "utf8")
      return text.includes('"/admin/servicescan"') && text.includes("Record chargeback")
    })
    assert(holding.length > 0, 'the built admin has no trace of the plugin\'s extension ("/admin/servicescan", "Record chargeback")')
    return `extension in ${holding.join(", ")}`
  })

  await check("production install in .medusa/server (npm install there, .env copied)", async () => {
    await copyFile(join(app, ".env"), join(server, ".env"))
    await exec("npm", ["install", "--omit=dev", "--no-audit", "--no-fund"], { cwd: server })
    assert(existsSync(join(server, "node_modules/.bin/medusa")), "no medusa binary in .medusa/server/node_modules")
  })

  sandbox = startProcess(join(app, "node_modules/.bin/servicescan-sandbox"), ["--port", String(sandboxPort), "--proof-delay", "500", "--quiet"], { cwd: app })
  await waitFor("the sandbox answers", async () => (await fetch(`${sandboxUrl}/client.js`)).ok, { timeoutMs: 30_000, process: sandbox })

  const adminEmail = "owner@example.com"
  const adminPassword = "packaging-test-password"
  await check("medusa user (admin), then medusa start from .medusa/server in production", async () => {
    await exec(join(server, "node_modules/.bin/medusa"), ["user", "-e", adminEmail, "-p", adminPassword], {
      cwd: server,
      env: { NODE_ENV: "production", MEDUSA_DISABLE_TELEMETRY: "true" },
    })
    medusa = startProcess(join(server, "node_modules/.bin/medusa"), ["start"], {
      cwd: server,
      env: { NODE_ENV: "production", PORT: String(medusaPort), MEDUSA_DISABLE_TELEMETRY: "true" },
    })
    await waitFor("Medusa answers /health", async () => (await fetch(`${medusaUrl}/health`)).ok, { timeoutMs: 180_000, process: medusa })
    return `pid ${medusa.pid}, ${medusaUrl}`
  })

  const token = (
    await expectOk("admin login", json(`${medusaUrl}/auth/user/emailpass`, { method: "POST", body: { email: adminEmail, password: adminPassword } }))
  ).token
  const admin = { authorization: `Bearer ${token}` }

  await check("the payment provider is listed", async () => {
    const body = await expectOk("payment providers", json(`${medusaUrl}/admin/payments/payment-providers?limit=100`, { headers: admin }))
    const ids = body.payment_providers.map((p) => p.id)
    assert(ids.includes("pp_servicescan_servicescan"), `providers: ${ids.join(", ")}`)
    return ids.join(", ")
  })

  await check("the disputes admin routes answer (and refuse without a login)", async () => {
    const list = await expectOk("chargebacks list", json(`${medusaUrl}/admin/servicescan/chargebacks`, { headers: admin }))
    assert(Array.isArray(list.items) && typeof list.count === "number", `list: ${JSON.stringify(list)}`)
    const health = await expectOk("health", json(`${medusaUrl}/admin/servicescan/health`, { headers: admin }))
    const anonymous = await json(`${medusaUrl}/admin/servicescan/chargebacks`)
    assert(anonymous.status === 401, `without a login: ${anonymous.status}`)
    const page = await fetch(`${medusaUrl}/app`)
    assert(page.ok && (await page.text()).includes("<div id=\"medusa\""), `GET /app: ${page.status}`)
    return `list ${list.count}, health ${JSON.stringify(health).slice(0, 120)}…, anonymous 401, /app served`
  })

  let order
  let formId
  await check("a store checkout with the sandbox places an order", async () => {
    const region = (
      await expectOk(
        "region",
        json(`${medusaUrl}/admin/regions`, {
          method: "POST",
          headers: admin,
          body: { name: "United States", currency_code: "usd", countries: ["us"], payment_providers: ["pp_servicescan_servicescan"] },
        })
      )
    ).region
    const channel = (await expectOk("sales channel", json(`${medusaUrl}/admin/sales-channels`, { method: "POST", headers: admin, body: { name: "Web shop" } })))
      .sales_channel
    const key = (
      await expectOk("publishable key", json(`${medusaUrl}/admin/api-keys`, { method: "POST", headers: admin, body: { title: "Storefront", type: "publishable" } }))
    ).api_key
    await expectOk("key ↔ channel", json(`${medusaUrl}/admin/api-keys/${key.id}/sales-channels`, { method: "POST", headers: admin, body: { add: [channel.id] } }))
    const product = (
      await expectOk(
        "product",
        json(`${medusaUrl}/admin/products`, {
          method: "POST",
          headers: admin,
          body: {
            title: "Scanner sticker",
            status: "published",
            sales_channels: [{ id: channel.id }],
            options: [{ title: "Size", values: ["One"] }],
            variants: [{ title: "One", manage_inventory: false, options: { Size: "One" }, prices: [{ amount: 10.5, currency_code: "usd" }] }],
          },
        })
      )
    ).product
    const store = { "x-publishable-api-key": key.token }
    const cart = (
      await expectOk(
        "cart",
        json(`${medusaUrl}/store/carts`, {
          method: "POST",
          headers: store,
          body: { region_id: region.id, email: "shopper@example.com", items: [{ variant_id: product.variants[0].id, quantity: 1 }] },
        })
      )
    ).cart
    const collection = (await expectOk("payment collection", json(`${medusaUrl}/store/payment-collections`, { method: "POST", headers: store, body: { cart_id: cart.id } })))
      .payment_collection
    const sessions = `${medusaUrl}/store/payment-collections/${collection.id}/payment-sessions`
    const initial = await expectOk("payment session", json(sessions, { method: "POST", headers: store, body: { provider_id: "pp_servicescan_servicescan" } }))
    const data = initial.payment_collection.payment_sessions[0].data
    assert(data.shareable_key && data.client_script_url?.startsWith(sandboxUrl), `session data for the browser: ${JSON.stringify(data)}`)
    // What the hosted form does when the shopper submits a (scanned) card.
    const form = await expectOk(
      "hosted form submission",
      json(`${sandboxUrl}/api/v1/forms`, {
        method: "POST",
        headers: { origin: "http://localhost:8000" },
        body: { key: data.shareable_key, card: { number: "4457119922390123", cvv: "123", expiry: "12/30" }, scanned: true },
      }),
      200
    )
    formId = form.formId
    await expectOk("form result", json(sessions, { method: "POST", headers: store, body: { provider_id: "pp_servicescan_servicescan", data: { form_id: form.formId, response_code: form.responseCode } } }))
    const completed = await expectOk("cart completion", json(`${medusaUrl}/store/carts/${cart.id}/complete`, { method: "POST", headers: store, body: {} }))
    assert(completed.type === "order", `completion: ${JSON.stringify(completed).slice(0, 400)}`)
    order = completed.order
    return `order ${order.id}, scan ${formId}`
  })

  await check("a chargeback on the order reaches evidence_ready", async () => {
    const recorded = await expectOk(
      "record chargeback",
      json(`${medusaUrl}/admin/servicescan/chargebacks`, {
        method: "POST",
        headers: admin,
        body: { external_id: `dp_packaging_${Date.now()}`, order_id: order.id, amount: "10.50", currency_code: "usd", reason: "fraudulent" },
      })
    )
    const id = recorded.chargeback_id ?? recorded.chargeback?.id
    assert(id, `record: ${JSON.stringify(recorded)}`)
    const seen = []
    const chargeback = await waitFor(
      "evidence_ready",
      async () => {
        await json(`${medusaUrl}/admin/servicescan/chargebacks/${id}/check`, { method: "POST", headers: admin, body: {} })
        const body = await expectOk("chargeback", json(`${medusaUrl}/admin/servicescan/chargebacks/${id}`, { headers: admin }))
        const current = body.chargeback ?? body
        if (seen.at(-1) !== current.status) seen.push(current.status)
        return current.status === "evidence_ready" ? current : undefined
      },
      { timeoutMs: 60_000, intervalMs: 1000, process: medusa }
    )
    const scans = (chargeback.proof_requests ?? []).flatMap((p) => p.scans ?? [])
    const scan = scans.find((s) => s.scan_id?.toLowerCase() === formId.toLowerCase())
    assert(scan?.ground_truth === "valid", `the order's scan: ${JSON.stringify(scan)}`)
    return `${seen.join(" → ")}, scan ${scan.scan_id} valid`
  })
} catch (error) {
  failed = true
  if (!error?.reported) log(`  ✗ ${error instanceof Error ? error.stack ?? error.message : String(error)}`)
} finally {
  await stopProcess(medusa)
  await stopProcess(sandbox)
  for (const child of children) child.kill("SIGKILL")
  await pg?.stop()
  if (work && !process.env.PACKAGING_KEEP && !process.env.PACKAGING_REUSE) await rm(work, { recursive: true, force: true }).catch(() => {})
  else if (work) log(`kept ${work}`)
}

log(`packaging: ${((Date.now() - started) / 1000).toFixed(0)} s`)
log(`packaging: ${results.passed} passed, ${results.failed} failed`)
// `npm test` reads a jest-shaped report (scripts/test.mjs passes --json --outputFile <file>).
const outputFile = process.argv.includes("--outputFile") ? process.argv[process.argv.indexOf("--outputFile") + 1] : undefined
if (outputFile) {
  await writeFile(
    outputFile,
    JSON.stringify({ numPassedTests: results.passed, numFailedTests: results.failed, numPendingTests: 0, numTotalTests: results.passed + results.failed })
  )
}
process.exit(failed || results.failed ? 1 : 0)
