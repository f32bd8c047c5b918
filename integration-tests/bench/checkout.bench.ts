import { writeFileSync } from "node:fs"
import { medusaIntegrationTestRunner } from "@medusajs/test-utils"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, submitTestForm, TestSandbox } from "../helpers/sandbox"
import { seedStore, SERVICESCAN_PROVIDER_ID, SYSTEM_PROVIDER_ID } from "../helpers/store"
import { completeCart, sendFormResult, startCheckout } from "../helpers/checkout"

/**
 * Cart completion with the ServiceScan provider against Medusa's own system
 * provider, in one app and one run, interleaved so that drift (JIT warm-up,
 * table growth, the other core's load) hits both equally. Only the
 * `POST /store/carts/:id/complete` call is timed. Prints figures; asserts nothing
 * about time.
 *
 * BENCH_N checkouts per provider (default 40) after BENCH_WARMUP (default 5).
 */
reserveSandboxUrl()

const N = Number(process.env.BENCH_N ?? 40)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 5)

type Stats = { requests: Record<string, number> }

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index]
}

jest.setTimeout(1_800_000)

medusaIntegrationTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox

    afterAll(async () => {
      await sandbox?.close()
    })

    it("measures cart completion", async () => {
      sandbox = await startTestSandbox()
      const store = await seedStore(getContainer())

      const timeServiceScan = async (): Promise<number> => {
        const checkout = await startCheckout(api, store)
        const form = await submitTestForm({ number: "4457119922390123" })
        await sendFormResult(api, store, checkout, { form_id: form.formId, response_code: form.responseCode })
        const t0 = process.hrtime.bigint()
        const result = await completeCart(api, store, checkout)
        const ms = Number(process.hrtime.bigint() - t0) / 1e6
        if (result.type !== "order") throw new Error(`servicescan checkout failed: ${JSON.stringify(result)}`)
        return ms
      }
      const timeSystem = async (): Promise<number> => {
        const checkout = await startCheckout(api, store, { providerId: SYSTEM_PROVIDER_ID })
        const t0 = process.hrtime.bigint()
        const result = await completeCart(api, store, checkout)
        const ms = Number(process.hrtime.bigint() - t0) / 1e6
        if (result.type !== "order") throw new Error(`system checkout failed: ${JSON.stringify(result)}`)
        return ms
      }

      for (let i = 0; i < WARMUP; i++) {
        await timeServiceScan()
        await timeSystem()
      }

      await sandboxFetch("/__sandbox/reset-stats", { method: "POST" })
      const servicescan: number[] = []
      const system: number[] = []
      for (let i = 0; i < N; i++) {
        // Alternate which goes first so neither always follows the other's garbage.
        if (i % 2 === 0) {
          servicescan.push(await timeServiceScan())
          system.push(await timeSystem())
        } else {
          system.push(await timeSystem())
          servicescan.push(await timeServiceScan())
        }
      }
      const { body: stats } = await sandboxFetch<Stats>("/__sandbox/stats")
      // Form submissions are the shopper's browser talking to the service, not the provider.
      const providerRequests = (stats.requests["token.exchange"] ?? 0) + (stats.requests["cnp.online"] ?? 0)

      servicescan.sort((a, b) => a - b)
      system.sort((a, b) => a - b)
      const ssP50 = percentile(servicescan, 50)
      const sysP50 = percentile(system, 50)
      const lines = [
        `checkouts: ${N} per provider after ${WARMUP} warm-up each (${SERVICESCAN_PROVIDER_ID} vs ${SYSTEM_PROVIDER_ID}), sandbox latency 0`,
        `servicescan complete: p50 ${ssP50.toFixed(0)} ms, p95 ${percentile(servicescan, 95).toFixed(0)} ms`,
        `system      complete: p50 ${sysP50.toFixed(0)} ms, p95 ${percentile(system, 95).toFixed(0)} ms`,
        `provider requests to the service and processor: ${providerRequests} (${JSON.stringify(stats.requests)})`,
        `ratio ${(ssP50 / sysP50).toFixed(2)} (servicescan p50 ${ssP50.toFixed(0)} ms / system p50 ${sysP50.toFixed(0)} ms), ${(providerRequests / N).toFixed(2)} requests per authorization`,
      ]
      writeFileSync(process.env.BENCH_RESULT_FILE ?? "/dev/stdout", JSON.stringify({ lines }))
      expect(servicescan).toHaveLength(N)
    })
  },
})
