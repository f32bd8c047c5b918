#!/usr/bin/env node
// `npm run bench`: every benchmark and the widget's size, one after the other
// (never two at once: each would take the other's core), then a new section at
// the top of bench/RESULTS.md with the machine, the date, the commit, and
// each figure beside its target and baseline, marked pass or miss. Earlier
// sections stay below, newest first. bench/README.md says what each measures.
//
// A bench that fails, or prints no result line, marks its figures "miss (no
// result)"; the run goes on with the next one and exits non-zero at the end.
// The disputes bench runs at 100,000 proof requests (the target's size)
// unless BENCH_PROOFS is set. Other BENCH_* variables reach every bench.
// BENCH_ONLY=<name>,<name> runs only those (names as in BENCHES, e.g.
// "checkout,image proxy") and prints the table without writing RESULTS.md:
// a partial run is not a run to compare against.
import { spawn, execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import os from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { heapLimit } from "./bench-worker.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const resultsFile = join(root, "bench", "RESULTS.md")

const num = (value) => Number(String(value).replace(/,/g, ""))
const fmt = (value, digits = 2) => value.toFixed(digits)
const int = (value) => Math.round(value).toLocaleString("en-US")

/**
 * Each bench: how to run it, and how to read its figures from its output.
 * `figures(text)` answers rows `{ figure, result, value, target, ok(value), baseline }`
 * or throws when a line it needs is missing.
 */
const BENCHES = [
  {
    name: "widget size",
    command: ["npm", "run", "size", "-w", "storefront-widget"],
    figures(text) {
      const bytes = num(match(text, /^(\d+) bytes min\+gz$/m)[1])
      return [
        {
          figure: "storefront widget, loader and device signal included, min+gz",
          result: `${int(bytes)} B`,
          target: "≤ 3,600 B",
          ok: bytes <= 3600,
          baseline: "Stripe's React pair (@stripe/react-stripe-js + @stripe/stripe-js loader) about 7,037 B, same method",
        },
      ]
    },
  },
  ...["worldpay", "adyen"].map((processor) => checkoutBench(processor)),
  {
    name: "disputes",
    command: ["npm", "run", "bench:disputes"],
    env: { BENCH_PROOFS: process.env.BENCH_PROOFS ?? "100000" },
    figures(text) {
      const all = [...text.matchAll(/^(?:\[reference run at (\d+)\] )?synced (\d+) proof requests in ([\d.]+) s, (\d+) calls, peak RSS (\d+) MB$/gm)]
      const main = all.find((m) => m[1] === undefined)
      if (!main) throw new Error("no result line")
      const reference = all.find((m) => m[1] !== undefined)
      const [, , n, seconds, calls, peak] = main
      const scaling = match(text, /^scaling: RSS at (\d+) is ([\d.]+)× RSS at (\d+)$/m)
      const size = int(num(n))
      return [
        {
          figure: `${size} pending proof requests, one job run: time`,
          result: `${seconds} s`,
          target: "< 60 s",
          ok: num(seconds) < 60 && num(n) >= 100000,
          baseline: `last round: 10,000 in 5.3 s${reference ? `; this run at 10,000: ${reference[3]} s` : ""}`,
        },
        {
          figure: `${size} pending proof requests: calls each`,
          result: `${fmt(num(calls) / num(n))} (${int(num(calls))} calls)`,
          target: "≤ 1",
          ok: num(calls) <= num(n),
          baseline: "one status read per proof request",
        },
        {
          figure: `${size} pending proof requests: peak RSS${heapOf(text)}`,
          result: `${peak} MB`,
          target: "< 300 MB",
          ok: num(peak) < 300 && num(n) >= 100000,
          baseline: `last round: 236 MB at 10,000${reference ? `; this run at 10,000: ${reference[5]} MB` : ""}`,
        },
        {
          figure: `RSS at ${int(num(scaling[1]))} ÷ RSS at ${int(num(scaling[3]))}${heapOf(text)}`,
          result: `${scaling[2]}×`,
          target: "≤ 1.2× (at 100,000 ÷ 10,000)",
          ok: num(scaling[2]) <= 1.2 && num(scaling[1]) >= 100000,
          baseline: `peak RSS of a fresh run at ${int(num(scaling[3]))}${reference ? `: ${reference[5]} MB` : ""}`,
        },
      ]
    },
  },
  {
    name: "image proxy",
    command: ["npm", "run", "bench:image-proxy"],
    figures(text) {
      const [, ratio, count, kb, concurrency, growth] = match(
        text,
        /^image proxy: ratio ([\d.]+) of Medusa's own pipeline, (\d+) × ([\d.]+) kB at (\d+), RSS growth (-?\d+) MB$/m
      )
      const rates = /^baseline \(Medusa's admin pipeline, same bytes from memory\): ([\d.]+) MB\/s, .*; proxy: ([\d.]+) MB\/s/m.exec(text)
      const rss = /^medusa process: RSS (\d+) MB before the first download/m.exec(text)
      const baselineGrowth = /while serving the baseline RSS ([+-]?\d+) MB/m.exec(text)
      const precision = /^precision: ratio ±([\d.]+) /m.exec(text)
      const size = `${count} × ${kb} kB, ${concurrency} at a time`
      const real = num(count) >= 200 && num(kb) >= 100
      return [
        {
          figure: `image proxy, ${size}: throughput ÷ Medusa's own authenticated pipeline`,
          result: `${ratio}${rates ? ` (${rates[2]} / ${rates[1]} MB/s)` : ""}${precision ? `; ±${precision[1]}` : ""}`,
          target: "≥ 0.9",
          ok: num(ratio) >= 0.9 && real,
          close: precision ? withinError(ratio, 0.9, precision[1]) : undefined,
          baseline: `a bench-only admin route answering the same bytes from memory behind the same authentication and middlewares${rates ? `: ${rates[1]} MB/s` : ""}`,
        },
        {
          figure: `image proxy, ${size}: Medusa RSS growth`,
          result: `${growth} MB`,
          target: "< 30 MB",
          ok: num(growth) < 30 && real,
          baseline: `the app's RSS before its first download${rss ? `: ${rss[1]} MB` : ""}${baselineGrowth ? `; growth while serving the baseline: ${baselineGrowth[1]} MB` : ""}`,
        },
      ]
    },
  },
  {
    name: "adyen webhooks",
    command: ["npm", "run", "bench:adyen-webhooks"],
    figures(text) {
      const [, n, p50, p99, all, seconds, some, after, calls, duplicates, peak] = match(
        text,
        /^adyen webhooks: (\d+) notifications, ack p50 ([\d.]+) ms, p99 ([\d.]+) ms; (?:(all) recorded with their proof requests in ([\d.]+) s|(\d+) of \d+ recorded with their proof requests after ([\d.]+) s[^;]*); (\d+) calls; (\d+) duplicates; peak RSS (\d+) MB$/m
      )
      const size = `${int(num(n))} Adyen dispute notifications`
      const full = num(n) >= 10000
      return [
        {
          figure: `${size}: acknowledgement latency`,
          result: `p50 ${p50} ms, p99 ${p99} ms`,
          target: "p99 < 100 ms",
          ok: num(p99) < 100 && full,
          baseline: "Adyen's own timeout is 10 s; the line leaves room for a slow network",
        },
        {
          figure: `${size}: all recorded with their proof requests`,
          result: all ? `${seconds} s (${int(num(calls))} calls)` : `${int(num(some))} of ${int(num(n))} after ${after} s, when the bench gave up (${int(num(calls))} calls)`,
          target: "< 60 s",
          ok: Boolean(all) && num(seconds) < 60 && full,
          baseline: "from the first notification sent; counted in the database and at the sandbox",
        },
        {
          figure: `${size}: duplicates`,
          result: duplicates,
          target: "0",
          ok: num(duplicates) === 0 && full,
          baseline: "one case, one chargeback, one proof request per dispute, in the database and at the sandbox",
        },
        {
          figure: `${size}: peak RSS${heapOf(text)}`,
          result: `${peak} MB`,
          target: "< 300 MB",
          ok: num(peak) < 300 && full,
          baseline: "the worker process of the built app (medusa start, worker mode), beside its server process (bench/README.md)",
        },
      ]
    },
  },
  {
    name: "chargebacks",
    // Written on another branch ("Close the evidence loop"): measured once it is merged.
    when: () => existsSync(join(root, "scripts", "bench-chargebacks.mjs")),
    command: ["npm", "run", "bench:chargebacks"],
    figures(text) {
      const [, n, seconds, calls, peak] = match(text, /^imported (\d+) cases in ([\d.]+) s, (\d+) calls, peak RSS (\d+) MB$/m)
      return [
        {
          figure: `${int(num(n))} Worldpay cases imported: time`,
          result: `${seconds} s (${int(num(calls))} calls)`,
          target: "< 60 s",
          ok: num(seconds) < 60 && num(n) >= 10000,
          baseline: "none yet: first round",
        },
        {
          figure: `${int(num(n))} Worldpay cases imported: peak RSS${heapOf(text)}`,
          result: `${peak} MB`,
          target: "< 300 MB",
          ok: num(peak) < 300 && num(n) >= 10000,
          baseline: "none yet: first round",
        },
      ]
    },
  },
  // The job benches' targets are judged with the heap of a 2 GB worker (scripts/bench-worker.mjs);
  // the same runs with this machine's own heap sizing are recorded beside them, so that both show.
  {
    name: "disputes, this machine's heap sizing",
    command: ["npm", "run", "bench:disputes"],
    env: { BENCH_PROOFS: process.env.BENCH_PROOFS ?? "100000", BENCH_WORKER_MEMORY_MB: "0" },
    recordOnly: /^(synced \d+ proof requests in .*|scaling: .*)$/gm,
  },
  {
    name: "chargebacks, this machine's heap sizing",
    command: ["npm", "run", "bench:chargebacks"],
    env: { BENCH_WORKER_MEMORY_MB: "0" },
    recordOnly: /^imported \d+ cases in .*$/m,
  },
  {
    name: "dispute gateway",
    command: ["npm", "run", "bench:dispute-gateway"],
    recordOnly: /^read \d+ cases .*$/m,
  },
  {
    name: "evidence pack",
    command: ["npm", "run", "bench:evidence-pack"],
    figures(text) {
      const [, kb, seconds, growth] = match(
        text,
        /^evidence pack: 3 scans of about ([\d.]+) kB from the archive \+ CE 3\.0 section, ([\d.]+) s wall, peak RSS growth (\d+) MB$/m
      )
      const detail = /^real-size: .* -> (pack \d+ bytes, \d+ pages); .*; cold build (\d+) ms wall \((\d+) ms CPU\), warm builds ([\d/]+) ms$/m.exec(text)
      const figure = `evidence pack, 3 scans of about ${kb} kB from the archive + CE 3.0 section`
      return [
        {
          figure: `${figure}: wall (first build)`,
          result: `${seconds} s${detail ? ` (${detail[3]} ms CPU; warm ${detail[4]} ms; ${detail[1]})` : ""}`,
          target: "< 1 s",
          ok: num(seconds) < 1,
          baseline: "none: the pack's own work",
        },
        {
          figure: `${figure}: peak RSS growth`,
          result: `${growth} MB`,
          target: "< 50 MB",
          ok: num(growth) < 50,
          baseline: "the measuring process's RSS before its first pack",
        },
      ]
    },
    recorded: /^(noise|photo-like|peak RSS).*$/gm,
  },
]

/**
 * `bench:checkout` on one processor (issue 29): the plugin's added CPU and added wall time per
 * completion are judged; the p50 and throughput ratios are recorded with no line.
 */
function checkoutBench(processor) {
  return {
    name: `checkout ${processor}`,
    command: ["npm", "run", "bench:checkout"],
    env: { BENCH_PROCESSOR: processor },
    // Exact where the CPU's interval is wide: what the plugin adds, in statements.
    recorded: /^sql statements per completion .*$/gm,
    figures(text) {
      const line = match(
        text,
        /^ratio ([\d.]+) \(servicescan p50 (\d+) ms \/ system p50 (\d+) ms\), throughput ratio ([\d.]+) at concurrency (\d+) \(([\d.]+) \/ ([\d.]+) orders\/s\), ([\d.]+) requests per authorization$/m
      )
      const [, p50Ratio, ssP50, sysP50, tputRatio, concurrency, ssOps, sysOps, perAuth] = line
      const [, cpu, halfWidth, n] = match(text, /^added cpu per completion (-?[\d.]+) ms ±([\d.]+) \(95 %, N=(\d+), /m)
      const [, wall, low, high] = match(text, /^added wall beyond the two calls p50 (-?[\d.]+) ms, 95 % interval (-?[\d.]+) to (-?[\d.]+) /m)
      const calls = /^the two calls as the sandbox saw them: (.*)$/m.exec(text)
      const cpuMeans = /^cpu per completion \(this process, user \+ system\): servicescan mean ([\d.]+) ms, system mean ([\d.]+) ms$/m.exec(text)
      return [
        {
          figure: `added CPU per completion, ${processor}`,
          result: `${cpu} ms ±${halfWidth} (95 %, N=${n})`,
          target: "≤ 5 ms (interval half-width ≤ 1 ms)",
          ok: num(cpu) <= 5 && num(halfWidth) <= 1,
          close: num(halfWidth) > 1 ? "interval wider than ±1 ms: not reached" : undefined,
          baseline: `Medusa's system provider, interleaved, same app${cpuMeans ? `: ${cpuMeans[2]} ms of CPU per completion` : ""}`,
        },
        {
          figure: `added wall time beyond the two calls, p50, ${processor}`,
          result: `${wall} ms (95 % interval ${low} to ${high})`,
          target: "≤ 5 ms",
          ok: num(wall) <= 5,
          close: num(low) <= 5 && num(high) > 5 ? "the line is inside the 95 % interval" : undefined,
          baseline: `system provider p50 ${sysP50} ms; ${calls ? calls[1] : "the calls' own medians"}`,
        },
        {
          figure: `requests per authorization, ${processor}`,
          result: perAuth,
          target: "exactly 2.00",
          ok: perAuth === "2.00",
          baseline: "the minimum: one token exchange and one authorization",
        },
        {
          figure: `checkout p50 ratio and throughput ratio at concurrency ${concurrency}, ${processor} (recorded)`,
          result: `${p50Ratio} (${ssP50} / ${sysP50} ms); ${tputRatio} (${ssOps} / ${sysOps} orders/s)`,
          target: "no line",
          ok: true,
          baseline: "system provider, same run",
        },
      ]
    },
  }
}

/** Which heap a job bench's measured process had, for the figure's name (scripts/bench-worker.mjs). */
function heapOf(text) {
  const worker = /^measured process(?:es)?: heap sized as Node sizes it in a worker with ([\d,]+) MB/m.exec(text)
  return worker ? `, heap of a ${worker[1]} MB worker` : ", this machine's heap sizing"
}

/** Said beside a verdict whose figure is no farther than one standard error from its line: it could go either way. */
function withinError(value, line, error) {
  return Math.abs(num(value) - line) <= num(error) ? "within one standard error of the line" : undefined
}

function match(text, regex) {
  const found = regex.exec(text)
  if (!found) throw new Error(`no line matching ${regex}`)
  return found
}

/** Runs a command, echoing its output, and answers its exit code, output and duration. */
function run(command, env) {
  return new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(command[0], command.slice(1), { cwd: root, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding("utf8")
      stream.on("data", (chunk) => {
        output += chunk
        process.stdout.write(chunk)
      })
    }
    child.on("exit", (code, signal) => resolve({ code: code ?? 1, signal, output, seconds: (Date.now() - started) / 1000 }))
  })
}

function git(...args) {
  try {
    return execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim()
  } catch {
    return "unknown"
  }
}

/**
 * The lines a bench printed for people (not npm's or jest's chatter). The app's own log lines
 * (JSON, e.g. thousands of the same warning under load) are left out, and counted.
 */
function figureLines(output) {
  const all = output.split("\n")
  const logLines = all.filter((line) => line.startsWith('{"level":')).length
  const lines = all
    .filter((line) => !line.startsWith('{"level":'))
    .filter(
      (line) =>
        line.trim() &&
        !/^(> |\(node:|\(Use `node|PASS |FAIL |Test Suites:|Tests:|Snapshots:|Time:|Ran all|Force exiting|npm (warn|notice))/.test(line) &&
        !/ExperimentalWarning/.test(line)
    )
  return logLines ? [...lines, `(${logLines} log lines of the app left out)`] : lines
}

const cell = (text) => String(text).replace(/\|/g, "\\|").replace(/\n/g, " ")

// ---- run ----------------------------------------------------------------------------

/**
 * The machine's memory, the container's limit when there is one, and the heap limit Node
 * chooses from them: V8 lets a heap grow further before collecting when that limit is large
 * (see bench/README.md, "The heap controller"), so the memory figures depend on it.
 */
function memoryFacts() {
  const gib = (bytes) => `${(bytes / 2 ** 30).toFixed(1)} GiB`
  const limit = process.constrainedMemory?.() ?? 0
  const container = limit > 0 && limit < os.totalmem() ? `, this process's cgroup limited to ${gib(limit)}` : ""
  return `${gib(os.totalmem())} memory${container} (Node's heap limit here: ${heapLimit()})`
}

const startedAt = new Date()
const machine = {
  cpus: os.cpus().length,
  model: os.cpus()[0]?.model?.trim() ?? "unknown CPU",
  memory: memoryFacts(),
  node: process.version,
  platform: `${os.type()} ${os.release()} ${os.arch()}`,
  load: os.loadavg().map((l) => l.toFixed(1)).join(", "),
}
const commit = git("rev-parse", "--short=12", "HEAD")
const branch = git("rev-parse", "--abbrev-ref", "HEAD")
const dirty = git("status", "--porcelain", "--untracked-files=no") ? " (with uncommitted changes)" : ""

const rows = []
const recorded = []
const outputs = []
let failed = 0
const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim())
for (const bench of BENCHES) {
  if (only && !only.includes(bench.name)) continue
  if (bench.when && !bench.when()) {
    recorded.push({ name: bench.name, lines: ["not run: its script is not on this branch yet"], seconds: 0 })
    continue
  }
  console.log(`\n==== ${bench.name}: ${bench.command.join(" ")}${bench.env ? ` (${Object.entries(bench.env).map(([k, v]) => `${k}=${v}`).join(" ")})` : ""}`)
  const result = await run(bench.command, bench.env)
  const lines = figureLines(result.output)
  outputs.push({ name: bench.name, command: bench.command.join(" "), env: bench.env, lines, seconds: result.seconds, code: result.code })
  if (bench.recordOnly) {
    const found = result.code === 0 ? [...result.output.matchAll(new RegExp(bench.recordOnly.source, "gm"))].map((m) => m[0]) : []
    if (!found.length) failed++
    recorded.push({ name: bench.name, lines: found.length ? found : [`no result (exit code ${result.code})`], seconds: result.seconds })
    continue
  }
  try {
    if (result.code !== 0) throw new Error(`exit code ${result.code}${result.signal ? ` (${result.signal})` : ""}`)
    for (const row of bench.figures(result.output)) rows.push({ ...row, bench: bench.name, seconds: result.seconds })
    // A bench with a line may also print figures recorded without one (kept for history).
    if (bench.recorded) {
      const found = [...result.output.matchAll(new RegExp(bench.recorded.source, "gm"))].map((m) => m[0])
      if (found.length) recorded.push({ name: bench.name, lines: found, seconds: result.seconds })
    }
  } catch (error) {
    failed++
    rows.push({ bench: bench.name, figure: `${bench.name}: every figure`, result: `no result: ${error.message}`, target: "", ok: false, baseline: "", seconds: result.seconds })
  }
}
const totalSeconds = (Date.now() - startedAt.getTime()) / 1000
const loadAtEnd = os.loadavg().map((l) => l.toFixed(1)).join(", ")

// ---- RESULTS.md ---------------------------------------------------------------------

const misses = rows.filter((row) => !row.ok)
const stamp = startedAt.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")
const section = [
  `## ${stamp} · ${commit}${dirty} · ${misses.length ? `${misses.length} of ${rows.length} figures missed` : `all ${rows.length} figures pass`}`,
  "",
  `- Machine: ${machine.cpus} cores (${machine.model}), ${machine.memory}, ${machine.platform}; load average (1, 5, 15 min) ${machine.load} at the start, ${loadAtEnd} at the end`,
  `- Node ${machine.node}; branch ${branch}, commit ${commit}${dirty}`,
  `- \`npm run bench\` took ${(totalSeconds / 60).toFixed(1)} min`,
  "",
  "| figure | result | target | baseline | verdict |",
  "|---|---|---|---|---|",
  ...rows.map((row) => `| ${cell(row.figure)} | ${cell(row.result)} | ${cell(row.target)} | ${cell(row.baseline)} | ${row.ok ? "**pass**" : "**miss**"}${row.close ? ` (${row.close})` : ""} |`),
  "",
  "Recorded, no target this round:",
  "",
  ...recorded.map((entry) => `- ${entry.name}: ${entry.lines.map((line) => `\`${line}\``).join("; ")}`),
  "",
  "<details><summary>What each bench printed</summary>",
  "",
  ...outputs.flatMap((entry) => [
    `\`${entry.env ? `${Object.entries(entry.env).map(([k, v]) => `${k}=${v}`).join(" ")} ` : ""}${entry.command}\` (${entry.seconds.toFixed(0)} s, exit code ${entry.code}):`,
    "",
    "```",
    ...entry.lines,
    "```",
    "",
  ]),
  "</details>",
  "",
].join("\n")

if (only) {
  console.log(section)
  console.log(`\n==== BENCH_ONLY=${only.join(",")}: a partial run, bench/RESULTS.md left as it was`)
  process.exit(failed || misses.length ? 1 : 0)
}

let previous = ""
if (existsSync(resultsFile)) {
  const text = await readFile(resultsFile, "utf8")
  const first = text.search(/^## /m)
  previous = first >= 0 ? text.slice(first) : ""
}
const header = [
  "# Benchmark results",
  "",
  "Written by `npm run bench` (scripts/bench-all.mjs): one section a run, the newest first, so that a regression",
  "shows against the runs below it. What each figure measures, and why its baseline is fair: [README.md](README.md).",
  "",
  "",
].join("\n")
await mkdir(dirname(resultsFile), { recursive: true })
await writeFile(resultsFile, header + section + (previous ? `\n${previous}` : ""))

console.log(`\n==== bench/RESULTS.md: ${misses.length ? `${misses.length} of ${rows.length} figures missed` : `all ${rows.length} figures pass`} (${(totalSeconds / 60).toFixed(1)} min)`)
for (const row of rows) {
  console.log(`${row.ok ? "pass" : "MISS"}  ${row.figure}: ${row.result} (target ${row.target}${row.close ? `; ${row.close}` : ""})`)
}
process.exit(failed ? 1 : 0)
