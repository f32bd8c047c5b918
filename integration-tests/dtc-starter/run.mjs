#!/usr/bin/env node
// The DTC starter suite (`npm test -- dtc-starter`, opt-in): does docs/storefront-dtc-starter.md
// still make Medusa's own storefront pay through ServiceScan?
//   1. copies DTC_STARTER_DIR (a checkout of github.com/medusajs/dtc-starter at the guide's commit)
//      to a temporary folder, without its node_modules, .next or .git;
//   2. applies the patch taken from the guide itself (`git apply`, as the guide says);
//   3. packs the widget (`npm pack`: what `npm publish` would upload) and installs it in
//      apps/storefront with `npm install <tarball>`: the guide's step 1 (`pnpm add`, the starter's
//      package manager) done with npm, which needs no global tool, and with the tarball in place of the
//      registry's name: a real copy in node_modules, resolving React and the rest from the starter's
//      own dependencies, as a store owner's install does (a link would resolve them from this repo);
//   4. runs the spec, which boots the test app with the demo's seed and the sandbox, builds the
//      storefront (`next build`, after the seed: the starter inlines the backend URL and publishable
//      key at build time), serves it (`next start`) and pays through it in Chromium.
//
// Without DTC_STARTER_DIR it prints one SKIPPED line and exits 0 (scripts/test.mjs prints it first).
// Needs the npm registry (the starter's dependencies). DTC_STARTER_KEEP=1 keeps the temporary folder.
import { spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { ensureDatabaseEnv } from "../../scripts/embedded-postgres.mjs"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..", "..")
const require = createRequire(import.meta.url)
const { extractPatch, fileSections, readGuide } = require("./guide.cjs")

const SKIP_LINE =
  "SKIPPED dtc-starter: needs DTC_STARTER_DIR, a checkout of github.com/medusajs/dtc-starter at the commit docs/storefront-dtc-starter.md names"

const starterDir = process.env.DTC_STARTER_DIR
if (!starterDir) {
  console.log(SKIP_LINE)
  process.exit(0)
}
if (!existsSync(join(starterDir, "apps", "storefront", "package.json"))) {
  console.error(`dtc-starter: DTC_STARTER_DIR=${starterDir} has no apps/storefront/package.json`)
  process.exit(1)
}

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: "inherit", ...options, env: { ...process.env, ...options.env } })
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)))
    child.on("error", (error) => {
      console.error(error)
      resolve(1)
    })
  })
}

const started = Date.now()
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`
const npm = process.platform === "win32" ? "npm.cmd" : "npm"
const work = mkdtempSync(join(tmpdir(), "servicescan-dtc-starter-"))
const storefront = join(work, "apps", "storefront")
let code = 0
try {
  // 1. The starter, as a store owner's fresh checkout has it.
  const skip = new Set(["node_modules", ".next", ".git", ".turbo"])
  cpSync(starterDir, work, { recursive: true, filter: (src) => !skip.has(basename(src)) })

  // 2. The guide's patch, applied the way the guide says.
  writeFileSync(join(work, "servicescan.patch"), extractPatch(readGuide()))
  code = await run("git", ["apply", "--check", "-v", "servicescan.patch"], { cwd: work })
  if (code === 0) code = await run("git", ["apply", "servicescan.patch"], { cwd: work })
  if (code !== 0) throw new Error("the guide's patch does not apply to DTC_STARTER_DIR")
  console.log("dtc-starter: the guide's patch applies")
  // The guide shows every change again, file by file: each shown diff is part of the patch, and each
  // new file shown whole is what the patch made.
  const patch = extractPatch(readGuide())
  const sections = fileSections(readGuide())
  for (const { lang, body } of sections) {
    if (lang === "diff" && !patch.includes(body)) throw new Error(`a diff shown in the guide is not in its patch:\n${body.slice(0, 300)}`)
    const shown = /^\/\/ (src\/\S+)\n([\s\S]*)$/.exec(body)
    if (lang !== "diff" && shown && readFileSync(join(storefront, shown[1]), "utf8").trimEnd() !== shown[2].trimEnd())
      throw new Error(`the guide's ${shown[1]} differs from what its patch makes`)
  }
  console.log(`dtc-starter: the guide's ${sections.length} file-by-file sections match its patch`)

  // 3. The widget as npm would serve it, installed in apps/storefront (the guide's step 1, with npm).
  const packs = join(work, ".packs")
  mkdirSync(packs) // npm pack does not make its --pack-destination
  let t0 = Date.now()
  code = await run(npm, ["pack", "--pack-destination", packs], { cwd: join(root, "storefront-widget") })
  const [tarball] = existsSync(packs) ? readdirSync(packs).filter((f) => f.endsWith(".tgz")) : []
  if (code !== 0 || !tarball) throw new Error("npm pack of storefront-widget failed")
  t0 = Date.now()
  code = await run(npm, ["install", "--no-audit", "--no-fund", join(packs, tarball)], { cwd: storefront })
  if (code !== 0) throw new Error("npm install in apps/storefront failed")
  const installSeconds = seconds(t0)
  console.log(`dtc-starter: npm install in apps/storefront: ${installSeconds}`)

  // 4. Boot, build, serve, pay.
  const pg = await ensureDatabaseEnv()
  code = await run(
    join(root, "node_modules", ".bin", "jest"),
    ["-c", join(here, "jest.config.js"), "--runInBand", "--forceExit", ...process.argv.slice(2)],
    {
      cwd: root,
      env: {
        DTC_STOREFRONT_DIR: storefront,
        DTC_INSTALL_SECONDS: installSeconds,
        TEST_TYPE: "integration:http",
        NODE_OPTIONS: "--experimental-vm-modules",
        MEDUSA_DISABLE_TELEMETRY: "true",
        NEXT_TELEMETRY_DISABLED: "1",
      },
    }
  )
  await pg?.stop()
} catch (error) {
  console.error(`dtc-starter: ${error instanceof Error ? error.message : error}`)
  code ||= 1
} finally {
  if (process.env.DTC_STARTER_KEEP) console.log(`dtc-starter: kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}
console.log(`dtc-starter: ${seconds(started)} in all`)
process.exit(code)
