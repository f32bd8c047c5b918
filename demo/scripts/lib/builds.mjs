// The two builds the demo runs, each skipped when its inputs have not changed: the plugin as it is
// published (`medusa plugin:build` at the repository root) and the demo store that uses it
// (`medusa build` in demo/). Also the environment every Medusa process of the demo gets.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { problem } from "./lifecycle.mjs"
import { args, CACHE_DIR, TOTAL_STEPS } from "./settings.mjs"
import { DEMO_DIR, dim, fingerprint, MEDUSA_CLI, parseLogLine, ROOT_DIR, run, Step } from "./util.mjs"

const require = createRequire(import.meta.url)

export function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return null
  }
}

/**
 * The demo resolves the plugin by its package name, as a store that installed it does. In this
 * repository the plugin is the workspace root, which npm does not link into node_modules, so the
 * demo links it (demo/node_modules/medusa-plugin-servicescan -> ../..) and adds that folder to
 * NODE_PATH for Medusa's processes: tools that resolve from the hoisted node_modules (the admin
 * bundler's Tailwind scan of plugin admin code) find it there too.
 */
export function linkPlugin() {
  const dir = join(DEMO_DIR, "node_modules")
  const link = join(dir, "medusa-plugin-servicescan")
  mkdirSync(dir, { recursive: true })
  let ok = false
  try {
    ok = require.resolve("medusa-plugin-servicescan/package.json", { paths: [DEMO_DIR] }) === join(ROOT_DIR, "package.json")
  } catch {
    ok = false
  }
  if (!ok) {
    rmSync(link, { recursive: true, force: true })
    symlinkSync("../..", link, "dir")
  }
}

export const medusaEnv = (extra = {}) => ({
  ...process.env,
  NODE_PATH: [join(DEMO_DIR, "node_modules"), process.env.NODE_PATH].filter(Boolean).join(":"),
  MEDUSA_DISABLE_TELEMETRY: "true",
  // Colours in log files are noise; the demo prints its own summary.
  FORCE_COLOR: "0",
  ...extra,
})

/** A build step: skipped when the stamp in demo/.cache matches the inputs and the outputs are untouched. */
export async function buildStep({ index, label, stampName, inputsHash, outputs, command, cwd, log, firstRunNote }) {
  const stampFile = join(CACHE_DIR, `${stampName}.json`)
  const stamp = readJson(stampFile)
  const upToDate =
    !args.rebuild &&
    stamp?.hash === inputsHash &&
    outputs.every((p) => existsSync(p)) &&
    stamp?.fingerprint === fingerprint(outputs) &&
    !existsSync(join(ROOT_DIR, ".medusa", "server", "medusa-plugin-options.json"))
  if (!upToDate && firstRunNote && !stamp) process.stdout.write(`        ${dim(firstRunNote)}\n`)
  const step = new Step(index, TOTAL_STEPS, label)
  if (upToDate) {
    step.finish("up to date", dim)
    return 0
  }
  const code = await run(process.execPath, [MEDUSA_CLI, ...command], {
    cwd,
    env: medusaEnv(),
    logFile: log,
    onLine: (line) => {
      const { level, text } = parseLogLine(line)
      if (level === "info" || level === "warn") step.note(text)
    },
  })
  if (code !== 0) {
    step.fail("failed")
    throw problem(`${label} failed (medusa ${command.join(" ")} exited with ${code})`, log)
  }
  writeFileSync(stampFile, JSON.stringify({ hash: inputsHash, fingerprint: fingerprint(outputs), at: new Date().toISOString() }))
  return step.done()
}
