#!/usr/bin/env node
// The Next.js example's end-to-end run (`npm test -- nextjs`):
//   1. builds the widget's dist/, which the example imports as the published package, and
//      type-checks the specs;
//   2. `next build` of the example, once: skipped when .next already holds a build of the same
//      inputs (the example's sources and config, the widget's build, Next.js's version), so every
//      spec of a run, and a re-run with nothing changed, share one build;
//   3. provides a throw-away PostgreSQL when none is configured;
//   4. runs the specs in test/ with jest (they boot Medusa, the sandbox and `next start`).
//
// Usage: node examples/nextjs/test/run.mjs [jest args]
//   NEXTJS_REBUILD=1   build even if .next is up to date
import { spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { ensureDatabaseEnv } from "../../../scripts/embedded-postgres.mjs"

const exampleDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const root = join(exampleDir, "..", "..")
const widgetDir = join(root, "storefront-widget")
const require = createRequire(join(exampleDir, "package.json"))
// No telemetry, from the build and from the server the specs start.
process.env.NEXT_TELEMETRY_DISABLED = "1"

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

function hashInputs(paths) {
  const hash = createHash("sha256")
  const visit = (path) => {
    if (!existsSync(path)) return
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) visit(join(path, name))
      return
    }
    hash.update(relative(root, path)).update("\0").update(readFileSync(path)).update("\0")
  }
  paths.forEach(visit)
  return hash.digest("hex")
}

const started = Date.now()
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`

// npm test sets SERVICESCAN_WIDGET_BUILT when it built the widget once for suites running side by side
// (rebuilding dist/ here would pull it from under the others).
let code = process.env.SERVICESCAN_WIDGET_BUILT ? 0 : await run(process.execPath, [join(widgetDir, "build.mjs")], { cwd: widgetDir })
if (code !== 0) process.exit(code)
// The specs are TypeScript strict too (jest only strips their types; `next build` checks src/).
code = await run(join(root, "node_modules", ".bin", "tsc"), ["-p", join(exampleDir, "test", "tsconfig.json")])
if (code !== 0) process.exit(code)

const nextVersion = JSON.parse(readFileSync(require.resolve("next/package.json"), "utf8")).version
const inputs = hashInputs([
  join(exampleDir, "src"),
  join(exampleDir, "next.config.mjs"),
  join(exampleDir, "tsconfig.json"),
  join(exampleDir, "package.json"),
  join(widgetDir, "dist", "index.mjs"),
  join(widgetDir, "dist", "index.cjs"),
  join(widgetDir, "dist", "types"),
]) + `:next@${nextVersion}`
const stampFile = join(exampleDir, ".next", "servicescan-build-inputs.txt")
const upToDate =
  !process.env.NEXTJS_REBUILD &&
  existsSync(join(exampleDir, ".next", "BUILD_ID")) &&
  existsSync(stampFile) &&
  readFileSync(stampFile, "utf8") === inputs
if (upToDate) {
  console.log("next build: .next is up to date with the example's sources and the widget's build")
} else {
  const t0 = Date.now()
  console.log(`next build (Next.js ${nextVersion})…`)
  code = await run(process.execPath, [require.resolve("next/dist/bin/next"), "build"], { cwd: exampleDir })
  if (code !== 0) process.exit(code)
  writeFileSync(stampFile, inputs)
  console.log(`next build: done in ${seconds(t0)}`)
}

const pg = await ensureDatabaseEnv()
code = await run(
  join(root, "node_modules", ".bin", "jest"),
  ["-c", join(exampleDir, "test", "jest.config.js"), "--runInBand", "--forceExit", ...process.argv.slice(2)],
  {
    cwd: root,
    env: {
      TEST_TYPE: "integration:http",
      NODE_OPTIONS: "--experimental-vm-modules",
      MEDUSA_DISABLE_TELEMETRY: "true",
    },
  }
)
await pg?.stop()
console.log(`nextjs: ${seconds(started)} in all`)
process.exit(code)
