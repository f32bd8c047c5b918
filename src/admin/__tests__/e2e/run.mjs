#!/usr/bin/env node
// The admin extension's end-to-end run: builds Medusa's dashboard with this
// plugin's admin extensions (as a store's `medusa build` would), provides a
// throw-away PostgreSQL when none is configured, then runs the Chromium spec
// against the real app and the real sandbox.
//
// Usage: node src/admin/__tests__/e2e/run.mjs [--docs-screenshots] [jest args]   (npm test runs it as the admin-e2e suite)
//   --docs-screenshots    also write the README's screenshots (docs/screenshots/admin-*.png); SCREENSHOTS=1 does the same
//   E2E_ADMIN_DIR=<dir>   reuse an existing dashboard build (skips the ~1 min build)
//   E2E_SCREENSHOTS=<dir> where screenshots go (default /tmp/servicescan-admin-e2e)
import { spawn } from "node:child_process"
import { mkdtemp, rm, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { ensureDatabaseEnv } from "../../../../scripts/embedded-postgres.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..")

// Off by default: a test run leaves the working tree as it found it.
const args = process.argv.slice(2)
// SCREENSHOTS=1 is the same switch for `npm test -- admin-e2e`, which passes no flags of its own.
const docsScreenshots = args.includes("--docs-screenshots") || process.env.SCREENSHOTS === "1"
const jestArgs = args.filter((arg) => arg !== "--docs-screenshots")

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", ...options, env: { ...process.env, ...options.env } })
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)))
  })
}

let adminDir = process.env.E2E_ADMIN_DIR
let buildDir
if (!adminDir) {
  // Two steps, as in real life: `medusa plugin:build` bundles this plugin's
  // admin extensions as a library (the published `./admin` export), then the
  // store's `medusa build` bundles the dashboard with that package as a plugin.
  // Both write into a scratch folder (the bundler also writes entry files under
  // <cwd>/.medusa/client), so the repository's .medusa stays untouched.
  buildDir = await mkdtemp(join(tmpdir(), "servicescan-admin-build-"))
  await symlink(join(root, "node_modules"), join(buildDir, "node_modules"), "dir")
  adminDir = join(buildDir, "dashboard")
  const pluginOut = join(buildDir, "plugin")
  // The plugin step runs from the repository (the Vite plugin writes its
  // temporary entry under <cwd>/src/admin, as `medusa plugin:build` does);
  // the dashboard step from the scratch folder.
  await writeFile(
    join(buildDir, "plugin.cjs"),
    `require("@medusajs/admin-bundler").plugin(${JSON.stringify({ root, outDir: pluginOut })})
  .catch((error) => { console.error(error); process.exit(1) })`
  )
  await writeFile(
    join(buildDir, "dashboard.cjs"),
    `require("@medusajs/admin-bundler").build(${JSON.stringify({
      path: "/app",
      outDir: adminDir,
      sources: [],
      plugins: [join(pluginOut, "src", "admin", "index.mjs")],
      backendUrl: "/",
    })}).catch((error) => { console.error(error); process.exit(1) })`
  )
  console.log("Building the plugin's admin bundle, then the dashboard with it…")
  const code =
    (await run(process.execPath, [join(buildDir, "plugin.cjs")], { cwd: root })) ||
    (await run(process.execPath, [join(buildDir, "dashboard.cjs")], { cwd: buildDir }))
  if (code !== 0) {
    process.exit(code)
  }
}

const pg = await ensureDatabaseEnv()

const code = await run(
  join(root, "node_modules", ".bin", "jest"),
  ["--runInBand", "--forceExit", "--testMatch", "<rootDir>/src/admin/__tests__/e2e/*.e2e.spec.ts", ...jestArgs],
  {
    cwd: root,
    env: {
      TEST_TYPE: "integration:http",
      NODE_OPTIONS: "--experimental-vm-modules",
      MEDUSA_DISABLE_TELEMETRY: "true",
      E2E_ADMIN_DIR: adminDir,
      ...(docsScreenshots ? { E2E_DOCS_SCREENSHOTS: join(root, "docs", "screenshots") } : {}),
    },
  }
)

await pg?.stop()
if (buildDir && !process.env.E2E_KEEP_BUILD) {
  await rm(buildDir, { recursive: true, force: true })
}
process.exit(code)
