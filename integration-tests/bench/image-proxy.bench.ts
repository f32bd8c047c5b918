import { spawn, ChildProcess } from "node:child_process"
import { writeFileSync } from "node:fs"
import { createInterface } from "node:readline"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { reserveSandboxUrl, sandboxFetch } from "../helpers/sandbox"
import { adminToken } from "../helpers/store"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"

/**
 * `npm run bench:image-proxy`: BENCH_DOWNLOADS (default 20) concurrent
 * downloads of BENCH_IMAGE_BYTES (default 5,000,000) byte evidence images
 * through `GET /admin/servicescan/scans/:scanId/image` (the ServiceScan path:
 * the scans are not archived), and the same downloads straight from the
 * sandbox's `GET /disputes/image/<id>.jpg`, in one run.
 *
 * Three processes, so that each cost lands where it belongs:
 * - this one is the Medusa app (the test runner boots it here): its RSS is the
 *   figure, sampled every 5 ms while the proxied rounds run;
 * - the sandbox runs in a child process, as a remote service would;
 * - the downloads run in another child, the admins' browsers: reading 100 MB
 *   must not count in Medusa's memory or take its event loop.
 *
 * BENCH_ROUNDS (default 5) rounds of each kind, interleaved (direct, proxy,
 * proxy, direct, ...) after one warm-up round of each, so that drift hits
 * both. Throughput is bytes over wall time summed over a kind's rounds.
 * Every body is checked (length, JPEG markers, the same bytes both ways) and
 * the sandbox's count of image requests must equal the downloads made.
 */
const SANDBOX_URL = reserveSandboxUrl()
const DOWNLOADS = Number(process.env.BENCH_DOWNLOADS ?? 20)
const IMAGE_BYTES = Number(process.env.BENCH_IMAGE_BYTES ?? 5_000_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SECRET_KEY = "sk_test_servicescan_demo"

type RoundResult = { ms: number; bytes: number; digests: string[] }

/** The sandbox in its own process, on the port the app was configured with. */
async function startSandboxProcess(): Promise<{ accountId: string; child: ChildProcess }> {
  const url = new URL(SANDBOX_URL)
  const script = `
    const { startSandbox } = require("servicescan-sandbox")
    startSandbox({ host: ${JSON.stringify(url.hostname)}, port: ${Number(url.port)}, logger: false }).then((s) => {
      process.stdout.write(JSON.stringify({ accountId: s.demo.accountId }) + "\\n")
    })
  `
  const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] })
  const line = await firstLine(child)
  return { accountId: JSON.parse(line).accountId, child }
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

/** Samples this process's RSS until stopped; answers the highest value seen. */
function sampleRss(): { stop: () => number } {
  let peak = process.memoryUsage.rss()
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss())
  }, 5)
  return {
    stop: () => {
      clearInterval(timer)
      return Math.max(peak, process.memoryUsage.rss())
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
      const sandbox = await startSandboxProcess()
      children.push(sandbox.child)
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
          scanIds.map((id) => `${SANDBOX_URL}/disputes/image/${id}.jpg`),
          { "x-api-key": SECRET_KEY }
        )
      const proxy = () =>
        client.run(
          scanIds.map((id) => `${baseUrl}/admin/servicescan/scans/${id}/image`),
          { authorization: `Bearer ${token}` }
        )

      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })
      // RSS before this process has served a single image; the warm-up round counts toward the peak.
      const rssBefore = process.memoryUsage.rss()
      let proxyPeak = rssBefore

      const warmDirect = await direct()
      let sampler = sampleRss()
      const warmProxy = await proxy()
      proxyPeak = Math.max(proxyPeak, sampler.stop())
      // The same bytes both ways: the proxy passes the image through untouched.
      if (warmDirect.digests.join() !== warmProxy.digests.join()) {
        throw new Error("the proxied images differ from the sandbox's")
      }

      const totals = { direct: { ms: 0, bytes: 0 }, proxy: { ms: 0, bytes: 0 } }
      const rounds: string[] = []
      for (let i = 0; i < ROUNDS; i++) {
        const order: ("direct" | "proxy")[] = i % 2 === 0 ? ["direct", "proxy"] : ["proxy", "direct"]
        const round: Record<string, number> = {}
        for (const kind of order) {
          let result: RoundResult
          if (kind === "proxy") {
            sampler = sampleRss()
            result = await proxy()
            proxyPeak = Math.max(proxyPeak, sampler.stop())
          } else {
            result = await direct()
          }
          if (result.bytes !== DOWNLOADS * IMAGE_BYTES) {
            throw new Error(`${kind} round ${i} read ${result.bytes} bytes, expected ${DOWNLOADS * IMAGE_BYTES}`)
          }
          totals[kind].ms += result.ms
          totals[kind].bytes += result.bytes
          round[kind] = result.ms
        }
        rounds.push(`${round.direct.toFixed(0)}/${round.proxy.toFixed(0)}`)
      }

      // Every download reached the sandbox once: warm-up and measured rounds, both kinds.
      const { body: stats } = await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")
      const imageRequests = stats.requests["disputes.image.get"] ?? 0
      const expected = 2 * DOWNLOADS * (ROUNDS + 1)
      if (imageRequests !== expected) {
        throw new Error(`the sandbox counted ${imageRequests} image requests, expected ${expected}`)
      }

      const directMbps = mb(totals.direct.bytes) / (totals.direct.ms / 1000)
      const proxyMbps = mb(totals.proxy.bytes) / (totals.proxy.ms / 1000)
      const ratio = proxyMbps / directMbps
      const growth = mb(proxyPeak - rssBefore)
      const lines = [
        `images: ${DOWNLOADS} scans of ${IMAGE_BYTES} bytes, ${DOWNLOADS} concurrent downloads a round, ${ROUNDS} rounds of each kind after one warm-up each`,
        `round wall times direct/proxy (ms): ${rounds.join(", ")}`,
        `direct from the sandbox: ${directMbps.toFixed(0)} MB/s; through the admin image proxy: ${proxyMbps.toFixed(0)} MB/s`,
        `sandbox image requests: ${imageRequests} (${expected} expected: every download made, none served from elsewhere)`,
        `medusa process RSS: ${mb(rssBefore).toFixed(0)} MB before the first image, peak ${mb(proxyPeak).toFixed(0)} MB while proxying (sampled every 5 ms)`,
        `image proxy: ratio ${ratio.toFixed(2)} of direct, RSS growth ${growth.toFixed(0)} MB`,
      ]
      writeFileSync(process.env.BENCH_RESULT_FILE ?? "/dev/stdout", JSON.stringify({ lines }))
      expect(imageRequests).toBe(expected)
    })
  },
})
