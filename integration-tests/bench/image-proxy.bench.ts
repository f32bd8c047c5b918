import { execFileSync, spawn, ChildProcess } from "node:child_process"
import { join } from "node:path"
import { writeFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { reserveSandboxUrl, sandboxFetch } from "../helpers/sandbox"
import { adminToken } from "../helpers/store"
import { ratioStandardError, sum } from "./precision"
import { startProfilerFromEnv } from "./profiler"
import { startSandboxProcess } from "./sandbox-process"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"

/**
 * `npm run bench:image-proxy`: BENCH_DOWNLOADS (default 20) concurrent
 * downloads of BENCH_IMAGE_BYTES (default 5,000,000) byte evidence images
 * through `GET /admin/servicescan/scans/:scanId/image` (the ServiceScan path:
 * the scans are not archived), and the same downloads straight from the
 * sandbox's `GET /disputes/image/<id>.jpg`, in one run.
 *
 * Four processes, so that each cost lands where it belongs:
 * - this one is the Medusa app (the test runner boots it here): its RSS is the
 *   figure, sampled every 5 ms while the proxied rounds run;
 * - the sandbox runs in a child process, as a remote service would;
 * - between the sandbox and everyone else, a link (link.cjs) paces each
 *   connection's answer to BENCH_LINK_MBIT (default 50 Mbit/s, so 20
 *   downloads fill a 1 Gbit/s server port): ServiceScan is on the internet,
 *   not on loopback. Both kinds of download cross it;
 * - the downloads run in another child, the admins' browsers: reading 100 MB
 *   must not count in Medusa's memory or take its event loop.
 *
 * Two phases: over the link (the figure), then on bare loopback (printed for
 * the record: there a same-machine proxy does twice the socket work of the
 * direct path on the same two cores, which no proxy can hide; see
 * bench/README.md). Each phase runs BENCH_ROUNDS (default 5) rounds of each
 * kind, interleaved (direct, proxy, proxy, direct, ...) after one warm-up round
 * of each, so that drift hits both. Throughput is bytes over wall time summed
 * over a kind's rounds. Every body is checked (length, JPEG markers, the same
 * bytes both ways) and the sandbox's count of image requests must equal the
 * downloads made.
 */
/** What the app is configured with: the link's end, in front of the sandbox. */
const SERVICE_URL = reserveSandboxUrl()
const SANDBOX_PORT = freePort()
const LINK_MBIT = Number(process.env.BENCH_LINK_MBIT ?? 50)
const DOWNLOADS = Number(process.env.BENCH_DOWNLOADS ?? 20)
const IMAGE_BYTES = Number(process.env.BENCH_IMAGE_BYTES ?? 5_000_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SECRET_KEY = "sk_test_servicescan_demo"

type RoundResult = { ms: number; bytes: number; digests: string[] }

function freePort(): number {
  return Number(
    execFileSync(
      process.execPath,
      ["-e", "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"],
      { encoding: "utf8" }
    ).trim()
  )
}

/** The link (link.cjs) from SERVICE_URL's port to the sandbox; `setRate` changes its pace. */
async function startLinkProcess(): Promise<{ child: ChildProcess; setRate: (bytesPerSecond: number) => Promise<void> }> {
  const child = spawn(process.execPath, [join(__dirname, "link.cjs"), new URL(SERVICE_URL).port, String(SANDBOX_PORT)], {
    stdio: ["pipe", "pipe", "inherit"],
  })
  const lines = createInterface({ input: child.stdout! })
  const waiting: (() => void)[] = []
  const ready = new Promise<void>((resolve) => waiting.push(resolve))
  lines.on("line", () => waiting.shift()?.())
  await ready
  return {
    child,
    setRate: (bytesPerSecond) =>
      new Promise<void>((resolve) => {
        waiting.push(resolve)
        child.stdin!.write(`rate ${bytesPerSecond}\n`)
      }),
  }
}

/**
 * The admins' browsers: a child that, per command line on stdin, downloads
 * every URL at once (one connection each, as browsers open them) and answers
 * with the wall time, the bytes and a digest of each body.
 */
function startClientProcess(): { run: (urls: string[], headers: Record<string, string>) => Promise<RoundResult>; child: ChildProcess } {
  const script = `
    const http = require("node:http")
    const { createHash } = require("node:crypto")
    const readline = require("node:readline")
    const get = (url, headers) => new Promise((resolve, reject) => {
      http.get(url, { headers, agent: false }, (res) => {
        const hash = createHash("sha256")
        let bytes = 0
        let head = null
        res.on("data", (chunk) => {
          if (head === null) head = chunk.subarray(0, 2).toString("hex")
          bytes += chunk.length
          hash.update(chunk)
        })
        res.on("end", () => {
          if (res.statusCode !== 200) return reject(new Error(url + " answered " + res.statusCode))
          if (head !== "ffd8") return reject(new Error(url + " is not a JPEG"))
          resolve({ bytes, digest: hash.digest("hex") })
        })
        res.on("error", reject)
      }).on("error", reject)
    })
    readline.createInterface({ input: process.stdin }).on("line", async (line) => {
      const { urls, headers } = JSON.parse(line)
      try {
        const t0 = process.hrtime.bigint()
        const bodies = await Promise.all(urls.map((url) => get(url, headers)))
        const ms = Number(process.hrtime.bigint() - t0) / 1e6
        const bytes = bodies.reduce((sum, b) => sum + b.bytes, 0)
        process.stdout.write(JSON.stringify({ ms, bytes, digests: bodies.map((b) => b.digest) }) + "\\n")
      } catch (error) {
        process.stdout.write(JSON.stringify({ error: String(error && error.message || error) }) + "\\n")
      }
    })
  `
  const child = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "inherit"] })
  const lines = createInterface({ input: child.stdout! })
  const waiting: ((line: string) => void)[] = []
  lines.on("line", (line) => waiting.shift()?.(line))
  const run = (urls: string[], headers: Record<string, string>) =>
    new Promise<RoundResult>((resolve, reject) => {
      waiting.push((line) => {
        const answer = JSON.parse(line)
        if (answer.error) reject(new Error(`download failed: ${answer.error}`))
        else resolve(answer)
      })
      child.stdin!.write(JSON.stringify({ urls, headers }) + "\n")
    })
  return { run, child }
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once("line", resolve)
    child.once("exit", (code) => reject(new Error(`child exited with ${code}`)))
  })
}

type Memory = { rss: number; heapUsed: number; arrayBuffers: number }

/**
 * Samples this process's memory every 20 ms until stopped; answers the highest
 * value of each figure seen. (Every 5 ms cost the app a visible share of its
 * CPU in a profile.)
 */
function sampleMemory(): { stop: () => Memory } {
  const peak: Memory = { rss: 0, heapUsed: 0, arrayBuffers: 0 }
  const take = () => {
    const now = process.memoryUsage()
    peak.rss = Math.max(peak.rss, now.rss)
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed)
    peak.arrayBuffers = Math.max(peak.arrayBuffers, now.arrayBuffers)
  }
  take()
  const timer = setInterval(take, 20)
  return {
    stop: () => {
      clearInterval(timer)
      take()
      return peak
    },
  }
}

const mb = (bytes: number) => bytes / 1e6

jest.setTimeout(1_800_000)

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    const children: ChildProcess[] = []

    afterAll(() => {
      for (const child of children) child.kill("SIGTERM")
    })

    it("measures the image proxy against direct downloads", async () => {
      const sandbox = await startSandboxProcess(SANDBOX_PORT)
      children.push(sandbox.child)
      const link = await startLinkProcess()
      children.push(link.child)
      const client = startClientProcess()
      children.push(client.child)
      const container = getContainer()
      const token = await adminToken(container)

      // DOWNLOADS distinct scans, labelled valid with a large image, and this store's evidence of them.
      const scanIds: string[] = []
      for (let i = 0; i < DOWNLOADS; i++) {
        const created = await sandboxFetch<{ scanId: string }>("/__sandbox/scans", { body: { accountId: sandbox.accountId } })
        if (created.status !== 201) throw new Error(`scan creation answered ${created.status}`)
        const labelled = await sandboxFetch(`/__sandbox/scans/${created.body.scanId}/label`, {
          body: { groundTruth: "valid", imageBytes: IMAGE_BYTES },
        })
        if (labelled.status !== 200) throw new Error(`label answered ${labelled.status}: ${JSON.stringify(labelled.body)}`)
        scanIds.push(created.body.scanId)
      }
      const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
      const [chargeback] = await service.createChargebacks([
        { external_id: `dp_bench_image_${Date.now()}`, order_id: "order_bench", amount: 10, currency_code: "usd", status: "evidence_ready" },
      ])
      const [proof] = await service.createProofRequests([
        { chargeback_id: chargeback.id, status: "complete", scan_ids: scanIds, completed_at: new Date() },
      ])
      await service.createScanEvidences(scanIds.map((scan_id) => ({ proof_request_id: proof.id, scan_id, ground_truth: "valid" as const })))

      const baseUrl = String(api.defaults.baseURL).replace(/\/$/, "")
      const direct = () =>
        client.run(
          scanIds.map((id) => `${SERVICE_URL}/disputes/image/${id}.jpg`),
          { "x-api-key": SECRET_KEY }
        )
      const proxy = () =>
        client.run(
          scanIds.map((id) => `${baseUrl}/admin/servicescan/scans/${id}/image`),
          { authorization: `Bearer ${token}` }
        )

      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })
      // RSS before this process has served a single image; the warm-up rounds count toward the peak.
      const before = process.memoryUsage()
      const proxyPeak: Memory = { rss: before.rss, heapUsed: before.heapUsed, arrayBuffers: before.arrayBuffers }

      const measurePhase = async (bytesPerSecond: number) => {
        await link.setRate(bytesPerSecond)
        // Peaks since the phase began, over `before` (taken before the first image of the run).
        proxyPeak.rss = proxyPeak.heapUsed = proxyPeak.arrayBuffers = 0
        const timedProxy = async () => {
          const sampler = sampleMemory()
          try {
            return await proxy()
          } finally {
            const peak = sampler.stop()
            proxyPeak.rss = Math.max(proxyPeak.rss, peak.rss)
            proxyPeak.heapUsed = Math.max(proxyPeak.heapUsed, peak.heapUsed)
            proxyPeak.arrayBuffers = Math.max(proxyPeak.arrayBuffers, peak.arrayBuffers)
          }
        }
        const warmDirect = await direct()
        const warmProxy = await timedProxy()
        // The same bytes both ways: the proxy passes the image through untouched.
        if (warmDirect.digests.join() !== warmProxy.digests.join()) {
          throw new Error("the proxied images differ from the sandbox's")
        }
        const roundMs = { direct: [] as number[], proxy: [] as number[] }
        for (let i = 0; i < ROUNDS; i++) {
          const order: ("direct" | "proxy")[] = i % 2 === 0 ? ["direct", "proxy"] : ["proxy", "direct"]
          for (const kind of order) {
            const result = kind === "proxy" ? await timedProxy() : await direct()
            if (result.bytes !== DOWNLOADS * IMAGE_BYTES) {
              throw new Error(`${kind} round ${i} read ${result.bytes} bytes, expected ${DOWNLOADS * IMAGE_BYTES}`)
            }
            roundMs[kind].push(result.ms)
          }
        }
        const rounds = roundMs.direct.map((ms, i) => `${ms.toFixed(0)}/${roundMs.proxy[i].toFixed(0)}`)
        // Every round read exactly DOWNLOADS × IMAGE_BYTES (checked above).
        const bytes = ROUNDS * DOWNLOADS * IMAGE_BYTES
        const directMBps = mb(bytes) / (sum(roundMs.direct) / 1000)
        const proxyMBps = mb(bytes) / (sum(roundMs.proxy) / 1000)
        return {
          rounds,
          directMBps,
          proxyMBps,
          ratio: proxyMBps / directMBps,
          // Every round moves the same bytes, so the ratio is mean direct time over mean proxied time.
          ratioError: ROUNDS > 1 ? ratioStandardError(roundMs.direct, roundMs.proxy) : undefined,
          growth: {
            rss: mb(proxyPeak.rss - before.rss),
            heapUsed: mb(proxyPeak.heapUsed - before.heapUsed),
            arrayBuffers: mb(proxyPeak.arrayBuffers - before.arrayBuffers),
          },
        }
      }

      // BENCH_PROFILE=<file.cpuprofile>: a CPU profile of this process (the app) over both phases, for DevTools.
      const profiler = await startProfilerFromEnv()
      const linked = await measurePhase((LINK_MBIT * 1e6) / 8)
      const loopback = await measurePhase(0)
      await profiler.stop()

      // Every download reached the sandbox once: warm-up and measured rounds, both kinds, both phases.
      const { body: stats } = await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")
      const imageRequests = stats.requests["disputes.image.get"] ?? 0
      const expected = 2 * 2 * DOWNLOADS * (ROUNDS + 1)
      if (imageRequests !== expected) {
        throw new Error(`the sandbox counted ${imageRequests} image requests, expected ${expected}`)
      }

      // Signed: the peak can sit below the starting RSS when a collection falls inside the phase.
      const signed = (value: number) => `${value < 0 ? "" : "+"}${value.toFixed(0)}`
      const growthOf = (phase: typeof linked) =>
        `RSS ${signed(phase.growth.rss)} MB (JS heap ${signed(phase.growth.heapUsed)} MB, Buffers ${signed(phase.growth.arrayBuffers)} MB)`
      const lines = [
        `images: ${DOWNLOADS} scans of ${IMAGE_BYTES} bytes, ${DOWNLOADS} concurrent downloads a round, ${ROUNDS} rounds of each kind after one warm-up each, per phase`,
        `over a ${LINK_MBIT} Mbit/s link a connection: round wall times direct/proxy (ms) ${linked.rounds.join(", ")}; direct ${linked.directMBps.toFixed(0)} MB/s, proxy ${linked.proxyMBps.toFixed(0)} MB/s`,
        `on bare loopback afterwards (no link, for the record): round wall times direct/proxy (ms) ${loopback.rounds.join(", ")}; direct ${loopback.directMBps.toFixed(0)} MB/s, proxy ${loopback.proxyMBps.toFixed(0)} MB/s, ratio ${loopback.ratio.toFixed(2)}, peak ${growthOf(loopback)}`,
        `sandbox image requests: ${imageRequests} (${expected} expected: every download made, none served from elsewhere)`,
        `medusa process: RSS ${mb(before.rss).toFixed(0)} MB before the first image; peak while proxying over the link (sampled every 20 ms) ${growthOf(linked)}`,
        ...(linked.ratioError === undefined
          ? []
          : [`precision: ratio ±${linked.ratioError.toFixed(2)} (one standard error over the ${ROUNDS} rounds of each kind over the link)`]),
        `image proxy: ratio ${linked.ratio.toFixed(2)} of direct, RSS growth ${linked.growth.rss.toFixed(0)} MB`,
      ]
      writeFileSync(process.env.BENCH_RESULT_FILE ?? "/dev/stdout", JSON.stringify({ lines }))
      expect(imageRequests).toBe(expected)
    })
  },
})
