import { spawn, ChildProcess } from "node:child_process"
import { rmSync, writeFileSync } from "node:fs"
import os from "node:os"
import { createInterface } from "node:readline"
import { asValue } from "@medusajs/framework/awilix"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { reserveSandboxUrl, sandboxFetch } from "../helpers/sandbox"
import { adminToken } from "../helpers/store"
import { BASELINE_IMAGE_ROUTE, BENCH_IMAGES_KEY } from "./baseline-image-route"
import { writeBaselinePlugin } from "./baseline-plugin"
import { ratioStandardError, sum } from "./precision"
import { startProfilerFromEnv } from "./profiler"
import { startSandboxProcess } from "./sandbox-process"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"

/**
 * `npm run bench:image-proxy` (issue 29): what the admin's scan image proxy costs at the sizes
 * stores see. BENCH_IMAGES (default 200) scans of BENCH_IMAGE_KB (default 100) kB, downloaded
 * BENCH_CONCURRENCY (default 20) at a time, as an admin's browser fills a page of thumbnails:
 *
 * - the proxy: `GET /admin/servicescan/scans/:scanId/image` (the scans are not archived, so
 *   every image is read from ServiceScan, the sandbox in its own process);
 * - the baseline: an admin route that exists only in this bench's app (baseline-image-route.ts,
 *   loaded from a throw-away plugin folder), answering the same bytes from memory behind the same
 *   authentication and middlewares: Medusa's own authenticated pipeline serving the same bytes.
 *
 * The ratio is proxy ÷ baseline throughput: what is left is the proxy's own work (its evidence
 * read, the call to ServiceScan, relaying the bytes). Both kinds run in this process (the app);
 * the downloads run in a child (the admins' browsers), so reading the images costs the app
 * nothing. BENCH_ROUNDS (default 6) rounds of each kind after one warm-up round each,
 * interleaved (baseline, proxy, proxy, baseline, ...) so that the other helpers' load on the
 * shared cores hits both alike. Throughput is bytes over the summed wall time of a kind's rounds.
 *
 * The Medusa process's RSS is sampled every 20 ms while the proxy rounds run; its growth is the
 * peak over the RSS before the first download. Before a figure is printed, every body is checked
 * (length, JPEG, the same bytes both ways) and the sandbox must have served exactly one image
 * per proxied download.
 */
const PLUGIN_DIR = writeBaselinePlugin()
process.env.SERVICESCAN_BENCH_PLUGIN = PLUGIN_DIR
const SANDBOX_PORT = Number(new URL(reserveSandboxUrl()).port)
const IMAGES = Number(process.env.BENCH_IMAGES ?? 200)
const IMAGE_KB = Number(process.env.BENCH_IMAGE_KB ?? 100)
/** The sandbox's smallest padded image is 64 KiB; a kB here is 1,000 bytes. */
const IMAGE_BYTES = Math.round(IMAGE_KB * 1000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 20)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const SECRET_KEY = "sk_test_servicescan_demo"

type RoundResult = { ms: number; bytes: number; digests: string[] }

/**
 * The admins' browsers: a child that, per command line on stdin, downloads the URLs
 * `concurrency` at a time over kept-alive connections (as a browser reuses its connections) and
 * answers with the wall time, the bytes and a digest of each body, in the URLs' order.
 */
function startClientProcess(): { run: (urls: string[], headers: Record<string, string>) => Promise<RoundResult>; child: ChildProcess } {
  const script = `
    const http = require("node:http")
    const { createHash } = require("node:crypto")
    const readline = require("node:readline")
    const agent = new http.Agent({ keepAlive: true, maxSockets: ${CONCURRENCY} })
    const get = (url, headers) => new Promise((resolve, reject) => {
      http.get(url, { headers, agent }, (res) => {
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
        const bodies = new Array(urls.length)
        let next = 0
        const t0 = process.hrtime.bigint()
        await Promise.all(Array.from({ length: ${CONCURRENCY} }, async () => {
          while (next < urls.length) {
            const i = next++
            bodies[i] = await get(urls[i], headers)
          }
        }))
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

type Memory = { rss: number; heapUsed: number; arrayBuffers: number }

/**
 * Samples this process's memory every 20 ms until stopped; answers the highest value of each
 * figure seen. (Every 5 ms cost the app a visible share of its CPU in a profile.)
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
      rmSync(PLUGIN_DIR, { recursive: true, force: true })
    })

    it("measures the image proxy against Medusa's own pipeline serving the same bytes", async () => {
      const sandbox = await startSandboxProcess(SANDBOX_PORT)
      children.push(sandbox.child)
      const client = startClientProcess()
      children.push(client.child)
      const container = getContainer()
      const token = await adminToken(container)

      // IMAGES distinct scans, labelled valid with an image of IMAGE_BYTES, and this store's evidence of them.
      const scanIds: string[] = []
      for (let i = 0; i < IMAGES; i++) {
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

      // The baseline's bytes: each image read once from the service, kept in this process's memory.
      const images = new Map<string, Buffer>()
      for (const id of scanIds) {
        const response = await fetch(`${reserveSandboxUrl()}/disputes/image/${id}.jpg`, { headers: { "x-api-key": SECRET_KEY } })
        if (response.status !== 200) throw new Error(`the sandbox answered ${response.status} for the image of ${id}`)
        images.set(id.toLowerCase(), Buffer.from(await response.arrayBuffer()))
      }
      container.register(BENCH_IMAGES_KEY, asValue(images))
      const imageBytes = [...images.values()].map((bytes) => bytes.length)
      const roundBytes = sum(imageBytes)

      const baseUrl = String(api.defaults.baseURL).replace(/\/$/, "")
      const auth = { authorization: `Bearer ${token}` }
      const baseline = () =>
        client.run(
          scanIds.map((id) => `${baseUrl}${BASELINE_IMAGE_ROUTE.replace(":scanId", id)}`),
          auth
        )
      const proxy = () =>
        client.run(
          scanIds.map((id) => `${baseUrl}/admin/servicescan/scans/${id}/image`),
          auth
        )

      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })
      // RSS before this process has answered a single download; the proxy's warm-up round counts toward the peak.
      const before = process.memoryUsage()
      const peaks = {
        proxy: { rss: before.rss, heapUsed: before.heapUsed, arrayBuffers: before.arrayBuffers } as Memory,
        baseline: { rss: before.rss, heapUsed: before.heapUsed, arrayBuffers: before.arrayBuffers } as Memory,
      }
      // Each kind's peak memory while its rounds run: the baseline's says how much of the proxy's is Medusa's own pipeline.
      const sampled = async (kind: "proxy" | "baseline") => {
        const sampler = sampleMemory()
        try {
          return await (kind === "proxy" ? proxy() : baseline())
        } finally {
          const peak = sampler.stop()
          const into = peaks[kind]
          into.rss = Math.max(into.rss, peak.rss)
          into.heapUsed = Math.max(into.heapUsed, peak.heapUsed)
          into.arrayBuffers = Math.max(into.arrayBuffers, peak.arrayBuffers)
        }
      }

      const profiler = await startProfilerFromEnv()
      const warmBaseline = await sampled("baseline")
      const warmProxy = await sampled("proxy")
      // The same bytes both ways: the proxy passes each image through untouched.
      if (warmBaseline.digests.join() !== warmProxy.digests.join()) {
        throw new Error("the proxied images differ from the service's")
      }
      const roundMs = { baseline: [] as number[], proxy: [] as number[] }
      for (let i = 0; i < ROUNDS; i++) {
        const order: ("baseline" | "proxy")[] = i % 2 === 0 ? ["baseline", "proxy"] : ["proxy", "baseline"]
        for (const kind of order) {
          const result = await sampled(kind)
          if (result.bytes !== roundBytes) {
            throw new Error(`${kind} round ${i} read ${result.bytes} bytes, expected ${roundBytes}`)
          }
          roundMs[kind].push(result.ms)
        }
      }
      await profiler.stop()

      // Every proxied download reached the sandbox once (warm-up and measured rounds), and nothing else did.
      const { body: stats } = await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")
      const imageRequests = stats.requests["disputes.image.get"] ?? 0
      const expected = (ROUNDS + 1) * IMAGES
      if (imageRequests !== expected) {
        throw new Error(`the sandbox counted ${imageRequests} image requests, expected ${expected}`)
      }

      const totalMb = mb(ROUNDS * roundBytes)
      const baselineMBps = totalMb / (sum(roundMs.baseline) / 1000)
      const proxyMBps = totalMb / (sum(roundMs.proxy) / 1000)
      const ratio = proxyMBps / baselineMBps
      // Every round moves the same bytes, so the ratio is mean baseline time over mean proxied time.
      const ratioError = ROUNDS > 1 ? ratioStandardError(roundMs.baseline, roundMs.proxy) : undefined
      const growthOf = (peak: Memory) => ({
        rss: mb(peak.rss - before.rss),
        heapUsed: mb(peak.heapUsed - before.heapUsed),
        arrayBuffers: mb(peak.arrayBuffers - before.arrayBuffers),
      })
      const growth = growthOf(peaks.proxy)
      const baselineGrowth = growthOf(peaks.baseline)
      // Signed: the peak can sit below the starting RSS when a collection falls inside the rounds.
      const signed = (value: number) => `${value < 0 ? "" : "+"}${value.toFixed(0)}`
      const perImage = (ms: number[]) => (sum(ms) / (ROUNDS * IMAGES)).toFixed(2)
      const lines = [
        `images: ${IMAGES} scans of ${IMAGE_KB} kB (${Math.min(...imageBytes)}-${Math.max(...imageBytes)} bytes), ${CONCURRENCY} downloads at a time, ${ROUNDS} rounds of each kind after one warm-up each, interleaved`,
        `round wall times baseline/proxy (ms): ${roundMs.baseline.map((ms, i) => `${ms.toFixed(0)}/${roundMs.proxy[i].toFixed(0)}`).join(", ")}`,
        `baseline (Medusa's admin pipeline, same bytes from memory): ${baselineMBps.toFixed(1)} MB/s, ${perImage(roundMs.baseline)} ms a download; proxy: ${proxyMBps.toFixed(1)} MB/s, ${perImage(roundMs.proxy)} ms a download`,
        `sandbox image requests: ${imageRequests} (${expected} expected: one per proxied download, none served from elsewhere)`,
        `medusa process: RSS ${mb(before.rss).toFixed(0)} MB before the first download; peak while proxying (sampled every 20 ms) RSS ${signed(growth.rss)} MB (JS heap ${signed(growth.heapUsed)} MB, Buffers ${signed(growth.arrayBuffers)} MB); ` +
          `while serving the baseline RSS ${signed(baselineGrowth.rss)} MB (JS heap ${signed(baselineGrowth.heapUsed)} MB, Buffers ${signed(baselineGrowth.arrayBuffers)} MB)`,
        `load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(", ")} (${os.cpus().length} CPUs)`,
        ...(ratioError === undefined ? [] : [`precision: ratio ±${ratioError.toFixed(2)} (one standard error over the ${ROUNDS} rounds of each kind)`]),
        `image proxy: ratio ${ratio.toFixed(2)} of Medusa's own pipeline, ${IMAGES} × ${IMAGE_KB} kB at ${CONCURRENCY}, RSS growth ${growth.rss.toFixed(0)} MB`,
      ]
      writeFileSync(process.env.BENCH_RESULT_FILE ?? "/dev/stdout", JSON.stringify({ lines }))
      expect(imageRequests).toBe(expected)
    })
  },
})
