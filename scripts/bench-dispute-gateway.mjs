#!/usr/bin/env node
// `npm run bench:dispute-gateway`: what reading one busy day of Worldpay
// chargeback cases costs the Worldpay dispute gateway. A benchmark: it prints
// figures and never fails on a slow machine.
//
// The sandbox runs in a child process (its memory is not ours) with N cases
// raised on one approved authorization (a payment may carry several cases);
// this process then reads them the way the import job does,
// `listCasesByActivityDate(today)`, over HTTP, and separately times the XML
// parse of the same answer. Last line, for scripts:
//
//   read 10000 cases (12.3 MB of XML) in 1.4 s (parse 0.5 s), heap +70 MB transient, +20 MB kept, peak RSS 180 MB
//
// Env: BENCH_N (default 10000), BENCH_ROUNDS (default 3; the best is reported
// for time, the worst for memory).
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import v8 from "node:v8"
import vm from "node:vm"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const require = createRequire(join(root, "package.json"))

const N = Number(process.env.BENCH_N ?? 10_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const log = (line) => console.log(line)
const mb = (bytes) => (bytes / 1e6).toFixed(1)
const cpuMs = (usage) => (usage.user + usage.system) / 1000

v8.setFlagsFromString("--expose-gc")
const gc = vm.runInNewContext("gc")

/** The sandbox in a child process; resolves with its URL and demo processor credentials. */
function startSandboxProcess() {
  const script = `
    const { startSandbox } = require("servicescan-sandbox")
    startSandbox({ port: 0, logger: false }).then((s) => {
      process.stdout.write(JSON.stringify({ url: s.url, processor: s.demo.processor }) + "\\n")
    })
  `
  const child = spawn(process.execPath, ["-e", script], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
  return new Promise((resolve, reject) => {
    let buffer = ""
    child.stdout.setEncoding("utf8")
    child.stdout.on("data", (chunk) => {
      buffer += chunk
      const newline = buffer.indexOf("\n")
      if (newline >= 0) {
        resolve({ ...JSON.parse(buffer.slice(0, newline)), stop: () => child.kill("SIGTERM") })
      }
    })
    child.on("exit", (code) => reject(new Error(`sandbox exited with ${code}`)))
  })
}

async function call(url, { method = "GET", body, headers = {} } = {}) {
  const response = await fetch(url, {
    method,
    headers: { ...(typeof body === "object" ? { "content-type": "application/json" } : {}), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  })
  const text = await response.text()
  if (!response.ok) {
    throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`)
  }
  return text
}

/** One approved authorization at the sandbox's cnpAPI, on a card registered through the hosted form. */
async function approvedAuthorization(sandbox) {
  const form = JSON.parse(
    await call(`${sandbox.url}/api/v1/forms`, {
      method: "POST",
      headers: { origin: "http://localhost:3000" },
      body: { key: "pk_test_servicescan_demo", card: { number: "5555555555554444", cvv: "123", expiry: "12/30" } },
    })
  )
  const { token } = JSON.parse(
    await call(`${sandbox.url}/api/v1/worldpay/form/${form.formId}`, { headers: { "x-api-key": "ptk_test_servicescan_demo" } })
  )
  const { merchantId, user, password } = sandbox.processor
  const xml = await call(`${sandbox.url}/cnp/online`, {
    method: "POST",
    headers: { "content-type": "text/xml" },
    body:
      `<cnpOnlineRequest version="12.30" xmlns="http://www.vantivcnp.com/schema" merchantId="${merchantId}">` +
      `<authentication><user>${user}</user><password>${password}</password></authentication>` +
      `<authorization id="bench-1" reportGroup="Bench"><orderId>bench-order-1</orderId><amount>1999</amount>` +
      `<orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token></authorization></cnpOnlineRequest>`,
  })
  const cnpTxnId = /<cnpTxnId>(\d+)<\/cnpTxnId>/.exec(xml)?.[1]
  if (!cnpTxnId || !xml.includes("<response>000</response>")) {
    throw new Error(`the authorization was not approved: ${xml}`)
  }
  return cnpTxnId
}

/** The plugin's sources are TypeScript: a bare swc require hook compiles them on load. */
function registerTypeScript() {
  const swc = require("@swc/core")
  const Module = require("node:module")
  const { readFileSync } = require("node:fs")
  Module._extensions[".ts"] = function compileTypeScript(module, filename) {
    const { code } = swc.transformSync(readFileSync(filename, "utf8"), {
      filename,
      jsc: { parser: { syntax: "typescript" }, target: "es2022" },
      module: { type: "commonjs" },
    })
    module._compile(code, filename)
  }
}

async function main() {
  const sandbox = await startSandboxProcess()
  try {
    const cnpTxnId = await approvedAuthorization(sandbox)
    const started = Date.now()
    // In batches: the control API takes bodies up to 1 MiB.
    const raised = { count: 0 }
    for (let first = 0; first < N; first += 2_500) {
      const batch = JSON.parse(
        await call(`${sandbox.url}/__sandbox/chargebacks/bulk`, {
          method: "POST",
          body: {
            cases: Array.from({ length: Math.min(2_500, N - first) }, (_, j) => ({
              cnpTxnId,
              reasonCode: "4837",
              amount: 1 + ((first + j) % 1999),
              note: `Chargeback ${first + j + 1} raised by the benchmark`,
            })),
          },
        })
      )
      raised.count += batch.count
    }
    log(`raised ${raised.count} cases at the sandbox in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    const today = new Date().toISOString().slice(0, 10)

    registerTypeScript()
    const { WorldpayDisputeGateway } = require(join(root, "src/processors/worldpay/dispute-gateway"))
    const { parseRetrievalResponse } = require(join(root, "src/processors/worldpay/chargeback-xml"))
    const { merchantId, user, password } = sandbox.processor
    const gateway = new WorldpayDisputeGateway({ url: sandbox.url, user, password, merchantId })

    // The raw answer, for the parse-only figure and its size.
    const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
    const xml = await call(`${sandbox.url}/chargebacks?date=${today}`, { headers: { authorization } })
    const xmlBuffer = Buffer.from(xml)
    const xmlBytes = xmlBuffer.length
    log(`one answer: ${mb(xmlBytes)} MB of XML, ${Math.round(xmlBytes / N)} bytes a case`)

    gc()
    const baseline = process.memoryUsage()
    log(
      `before reading: RSS ${Math.round(baseline.rss / 1e6)} MB (node, swc, the gateway and the ${mb(xmlBytes)} MB copy above), heap ${Math.round(baseline.heapUsed / 1e6)} MB`
    )
    let bestCall = Infinity
    let bestCallCpu = Infinity
    let bestParseCpu = Infinity
    let bestParse = Infinity
    let worstTransient = 0
    let worstKept = 0
    for (let round = 1; round <= ROUNDS; round++) {
      await new Promise((resolve) => setTimeout(resolve, 0))
      gc()
      const before = process.memoryUsage().heapUsed
      let t = performance.now()
      let cpu = process.cpuUsage()
      let cases = await gateway.listCasesByActivityDate(today)
      const callMs = performance.now() - t
      const callCpuMs = cpuMs(process.cpuUsage(cpu))
      // Heap right after the call, before any forced collection: an upper bound of what it needed at once.
      const transient = process.memoryUsage().heapUsed - before
      if (cases.length !== N) {
        throw new Error(`expected ${N} cases, read ${cases.length}`)
      }
      // What the records hold: the live heap with them, then without them.
      gc()
      const withRecords = process.memoryUsage().heapUsed
      // Read after the measurement, so that V8 cannot treat the records as dead before it.
      if (cases.at(-1).activities.length !== 1) {
        throw new Error("expected one activity per case")
      }
      cases = undefined
      // A suspended async frame keeps the last awaited value in a register until its next await.
      await new Promise((resolve) => setTimeout(resolve, 0))
      gc()
      const kept = withRecords - process.memoryUsage().heapUsed
      t = performance.now()
      cpu = process.cpuUsage()
      let parsed = parseRetrievalResponse(xmlBuffer)
      const parseMs = performance.now() - t
      const parseCpuMs = cpuMs(process.cpuUsage(cpu))
      if (parsed.cases.length !== N) {
        throw new Error(`parse read ${parsed.cases.length} cases`)
      }
      parsed = undefined
      await new Promise((resolve) => setTimeout(resolve, 0))
      log(
        `round ${round}: listCasesByActivityDate ${(callMs / 1000).toFixed(2)} s (${(callCpuMs / 1000).toFixed(2)} s CPU here), ` +
          `parse alone ${(parseMs / 1000).toFixed(2)} s (${(parseCpuMs / 1000).toFixed(2)} s CPU), ` +
          `heap +${mb(transient)} MB before collection, +${mb(kept)} MB kept (the ${N} records)`
      )
      bestCall = Math.min(bestCall, callMs)
      bestCallCpu = Math.min(bestCallCpu, callCpuMs)
      bestParse = Math.min(bestParse, parseMs)
      bestParseCpu = Math.min(bestParseCpu, parseCpuMs)
      worstTransient = Math.max(worstTransient, transient)
      worstKept = Math.max(worstKept, kept)
    }
    const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024)
    log(
      `read ${N} cases (${mb(xmlBytes)} MB of XML) in ${(bestCall / 1000).toFixed(1)} s, ${(bestCallCpu / 1000).toFixed(1)} s CPU ` +
        `(parse ${(bestParse / 1000).toFixed(1)} s, ${(bestParseCpu / 1000).toFixed(1)} s CPU), ` +
        `heap +${Math.round(worstTransient / 1e6)} MB transient, +${Math.round(worstKept / 1e6)} MB kept, peak RSS ${peakRssMb} MB`
    )
  } finally {
    sandbox.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
