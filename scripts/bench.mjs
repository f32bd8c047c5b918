#!/usr/bin/env node
// `npm run bench:<name>`: runs integration-tests/bench/<name>.bench.ts in the
// booted test app (embedded PostgreSQL when no database is configured) and
// prints its figures. Benchmarks print; they never fail on a slow machine.
// BENCH_PROCESSOR=worldpay|adyen picks the ServiceScan provider a bench pays
// through (integration-tests/helpers/processors.ts), e.g.
// `BENCH_PROCESSOR=adyen npm run bench:checkout`: requests per authorization
// are then counted at Adyen's API (one exchange + one /payments = 2.00).
// A bench named in TOPOLOGY_BENCHES runs the app on Medusa's production topology, as `medusa start`
// processes of its own (integration-tests/system/lib): jest only drives them, and the worker process
// gets the heap Node gives a worker with BENCH_WORKER_MEMORY_MB of memory (scripts/bench-worker.mjs),
// as the job benches do, through BENCH_WORKER_NODE_FLAGS.
import { spawn } from "node:child_process"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, dirname } from "node:path"
import { fileURLToPath } from "node:url"
import { ensureDatabaseEnv } from "./embedded-postgres.mjs"
import { workerHeapOrExit } from "./bench-worker.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const name = process.argv[2]
if (!name) {
  console.error("usage: node scripts/bench.mjs <name>")
  process.exit(2)
}

const PROCESSOR_NAMES = ["worldpay", "adyen"]
if (process.env.BENCH_PROCESSOR && !PROCESSOR_NAMES.includes(process.env.BENCH_PROCESSOR)) {
  console.error(`BENCH_PROCESSOR must be one of ${PROCESSOR_NAMES.join(", ")}, got ${process.env.BENCH_PROCESSOR}`)
  process.exit(2)
}

const TOPOLOGY_BENCHES = ["adyen-webhooks"]
const heap = TOPOLOGY_BENCHES.includes(name) ? workerHeapOrExit(`bench:${name}`) : { flags: [] }
// The worker is the measured process (its peak RSS is the figure); scripts/bench-all.mjs reads this line.
if (heap.description) console.log(`measured process: ${heap.description}`)

const pg = await ensureDatabaseEnv()
const dir = await mkdtemp(join(tmpdir(), "servicescan-bench-"))
const resultFile = join(dir, "result.json")
let code = 1
try {
  code = await new Promise((resolve) => {
    const child = spawn(join(root, "node_modules", ".bin", "jest"), ["--runInBand", "--forceExit", "--silent"], {
      cwd: root,
      stdio: "inherit",
      env: {
        ...process.env,
        TEST_TYPE: "bench",
        BENCH: name,
        BENCH_RESULT_FILE: resultFile,
        NODE_OPTIONS: "--experimental-vm-modules",
        BENCH_WORKER_NODE_FLAGS: heap.flags.join(" "),
        MEDUSA_DISABLE_TELEMETRY: "true",
        LOG_LEVEL: "error",
      },
    })
    child.on("exit", (c) => resolve(c ?? 1))
  })
  const result = JSON.parse(await readFile(resultFile, "utf8"))
  for (const line of result.lines) console.log(line)
} catch (error) {
  console.error(`bench ${name} produced no result: ${error.message}`)
  code ||= 1
} finally {
  await rm(dir, { recursive: true, force: true })
  if (pg) await pg.stop()
}
process.exit(code)
