import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/**
 * Writes a throw-away Medusa plugin folder holding the baseline's admin route
 * (baseline-image-route.ts) and its middlewares, and answers its path. The test app loads it
 * when SERVICESCAN_BENCH_PLUGIN names it (medusa-config.ts), so the route exists only in the
 * bench's app. Medusa loads a plugin's API from `<folder>/.medusa/server/src/api`; the two files
 * written there only re-export the committed module.
 */
export function writeBaselinePlugin(): string {
  const dir = mkdtempSync(join(tmpdir(), "servicescan-bench-baseline-"))
  const module = JSON.stringify(join(__dirname, "baseline-image-route"))
  const api = join(dir, ".medusa", "server", "src", "api")
  const route = join(api, "admin", "servicescan", "bench-baseline", "scans", "[scanId]", "image")
  mkdirSync(route, { recursive: true })
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "servicescan-bench-baseline", version: "0.0.0" }))
  writeFileSync(join(route, "route.js"), `module.exports = { GET: require(${module}).GET }\n`)
  writeFileSync(join(api, "middlewares.js"), `module.exports = { default: require(${module}).middlewares }\n`)
  return dir
}
