import { adminHeaders, createAppDir, createDatabase, startMedusa, type AppDatabase, type MedusaProcess } from "./lib/app"
import { captureDir, installRecordingFetch, recordSecrets } from "./lib/capture"
import { call, deliverUntilAccepted } from "./lib/medusa"
import { waitFor } from "./lib/processes"
import { SCALE } from "./lib/scale"
import {
  clearFaults,
  control,
  CountingProxy,
  createMarkerScan,
  serviceProofRequests,
  setFaults,
  startSuiteSandbox,
  type Sandbox,
  type SuiteAccount,
} from "./lib/sandbox"
import { random } from "../helpers/random"
import { pool, shop } from "./lib/shopper"
import { writeFileSync } from "node:fs"
import { join } from "node:path"

/**
 * Several instances: two `medusa start` processes on one database, each with
 * its own scheduler, run the poll job at the same moments (the same cron
 * second). Locking is Medusa's default, per process, so nothing but the
 * plugin's row claims (`FOR UPDATE SKIP LOCKED` and a lease) keeps them apart:
 * the worst case for duplicate calls. Counted at the service, per proof
 * request, through each process's own proxy.
 */
const SUITE = "instances"
const N = SCALE.instanceProofRequests
const PAGE_SIZE = Math.max(5, Math.round(N / 20))

describe(`several instances: two processes poll ${N} due proof requests at the same moment`, () => {
  let sandbox: Sandbox
  let account: SuiteAccount
  let app: Awaited<ReturnType<typeof createAppDir>>
  let db: AppDatabase
  let a: MedusaProcess
  let b: MedusaProcess
  let proxyA: CountingProxy
  let proxyB: CountingProxy
  let admin: Record<string, string>
  let stopRecording: () => void
  const medusaUrls: string[] = []

  beforeAll(async () => {
    stopRecording = installRecordingFetch(SUITE, (url) => medusaUrls.some((base) => url.startsWith(base)))
    ;({ sandbox, account } = await startSuiteSandbox())
    recordSecrets(SUITE, { paymentTokenKey: account.keys.paymentToken, secretKey: account.keys.secret }, { shareableKey: account.keys.shareable })
    app = await createAppDir()
    db = await createDatabase(app.dir, SUITE)
    proxyA = await new CountingProxy("a", new URL(sandbox.url)).start()
    proxyB = await new CountingProxy("b", new URL(sandbox.url)).start()
    const env = {
      DATABASE_URL: db.url,
      MEDUSA_WORKER_MODE: "shared",
      SYSTEM_SHAREABLE_KEY: account.keys.shareable,
      SYSTEM_PAYMENT_TOKEN_KEY: account.keys.paymentToken,
      SYSTEM_SECRET_KEY: account.keys.secret,
      // Both schedulers fire on the same wall-clock seconds.
      SERVICESCAN_SYNC_SCHEDULE: "0/5 * * * * *",
      // While the service is down, each waiting proof request is retried every few seconds,
      // not constantly: the retry delay is capped at the poll interval.
      SYSTEM_POLL_INTERVAL_MS: "5000",
      SYSTEM_RETRY_BASE_DELAY_MS: "5000",
      // Small pages (some 20 per run) and little concurrency make a run long enough for the two to interleave.
      SYSTEM_PAGE_SIZE: String(PAGE_SIZE),
      SYSTEM_CONCURRENCY: "2",
      // A status check that times out is retried (GET is idempotent), which the sandbox would
      // count as a second check. On a loaded 2-core machine a check can wait seconds for the
      // CPU, so the timeout is generous: the suite counts polls, not the client's retries.
      SYSTEM_TIMEOUT_MS: "60000",
    }
    ;[a, b] = await Promise.all([
      startMedusa(app.dir, { suite: SUITE, name: "a", env: { ...env, SERVICESCAN_SANDBOX_URL: proxyA.url } }),
      startMedusa(app.dir, { suite: SUITE, name: "b", env: { ...env, SERVICESCAN_SANDBOX_URL: proxyB.url } }),
    ])
    medusaUrls.push(a.url, b.url)
    admin = adminHeaders(db.store)
  })

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await Promise.all([proxyA?.close(), proxyB?.close(), sandbox?.close()])
    if (!process.env.SYSTEM_KEEP_DB) await db?.drop()
    await app?.remove()
    stopRecording?.()
  })

  it("submits each proof request once and checks each once, with both instances working at the same time", async () => {
    const shopper = await shop({ index: 1, medusaUrl: a.url, store: db.store, sandbox, account, rng: random(1) })
    expect(shopper.orderId).toMatch(/^order_/)

    // N chargebacks arrive while ServiceScan answers 503: each is recorded with its
    // proof request waiting to be sent (the recording's one attempt failed).
    await setFaults(sandbox, { errorRate: 1 })
    const markers = await pool(N, 8, () => createMarkerScan(sandbox, account))
    const deliveries = await pool(N, 4, (i) =>
      deliverUntilAccepted(i % 2 ? b.url : a.url, {
        external_id: `dp_instances_${i}`,
        order_id: shopper.orderId as string,
        amount: "10.50",
        currency_code: "usd",
        scan_ids: [markers[i]],
      })
    )
    expect(deliveries.filter((d) => d.answer.status !== 200)).toEqual([])

    // The service is back and completes proof requests as soon as they exist.
    await control(sandbox, "/__sandbox/settings", { method: "POST", body: { proofDelayMs: 1 } })
    await clearFaults(sandbox)
    // Each answer takes a little while, as a real service's does: a run then lasts seconds, so the
    // two schedulers' runs overlap even when one process gets the CPU a moment after the other (on a
    // busy 2-core machine a run without latency could finish before the other process's began).
    await setFaults(sandbox, { latencyMs: 150 })
    const serviceBack = Date.now()
    const ready = await waitFor(
      `all ${N} chargebacks to have their evidence`,
      async () => {
        const { body } = await call<{ count: number }>(a.url, "/admin/servicescan/chargebacks?status=evidence_ready&limit=1", { headers: admin })
        return body.count === N ? body.count : undefined
      },
      { timeoutMs: 120_000 + N * 600, intervalMs: 1000 }
    )
    expect(ready).toBe(N)
    const secondsToEvidence = Math.round((Date.now() - serviceBack) / 1000)

    // At the service: exactly one proof request per chargeback (a second PUT would have made a second).
    const remote = await serviceProofRequests(sandbox, account)
    const perMarker = new Map(markers.map((m) => [m, 0]))
    for (const pr of remote) for (const id of pr.scanIds) if (perMarker.has(id)) perMarker.set(id, (perMarker.get(id) ?? 0) + 1)
    const notOnce = [...perMarker].filter(([, n]) => n !== 1)
    expect(notOnce).toEqual([])
    expect(remote).toHaveLength(N)

    // Each proof request checked exactly once across both instances.
    const checks = new Map<string, string[]>(remote.map((pr) => [pr.id, []]))
    const history = new Map<string, string[]>(remote.map((pr) => [pr.id, []]))
    for (const proxy of [proxyA, proxyB]) {
      for (const c of proxy.calls) {
        const at = new Date(c.at).toISOString().slice(11, 23)
        if (c.route === "disputes.proof.get") {
          const id = c.path.split("/").pop() as string
          checks.get(id)?.push(`${proxy.name} ${at} ${c.status}`)
          history.get(id)?.push(`${at} ${proxy.name} GET ${c.status} ${c.answer?.slice(0, 22) ?? ""}`)
        } else if (c.route === "disputes.proofRequest.create" && c.status === 200) {
          const id = /"id":"([^"]+)"/.exec(c.answer ?? "")?.[1] ?? ""
          history.get(id)?.push(`${at} ${proxy.name} PUT 200`)
        }
      }
    }
    const polledTwice = [...checks].filter(([, list]) => list.length !== 1).map(([id]) => ({ remote_id: id, calls: history.get(id)?.sort() }))
    expect(polledTwice).toEqual([])

    // Both instances did part of the work, during the same stretch of time.
    const puts = (proxy: CountingProxy) => proxy.calls.filter((c) => c.route === "disputes.proofRequest.create" && c.status === 200)
    const [putsA, putsB] = [puts(proxyA), puts(proxyB)]
    expect(putsA.length + putsB.length).toBe(N)
    expect(putsA.length).toBeGreaterThan(0)
    expect(putsB.length).toBeGreaterThan(0)
    const span = (calls: { at: number }[]) => [Math.min(...calls.map((c) => c.at)), Math.max(...calls.map((c) => c.at))]
    const [[fromA, toA], [fromB, toB]] = [span(putsA), span(putsB)]
    expect(Math.max(fromA, fromB)).toBeLessThanOrEqual(Math.min(toA, toB))

    const figures = {
      suite: SUITE,
      scale: SCALE.name,
      proof_requests: N,
      page_size: PAGE_SIZE,
      seconds_to_evidence: secondsToEvidence,
      submitted: { a: putsA.length, b: putsB.length },
      checked: { a: proxyA.count("disputes.proof.get"), b: proxyB.count("disputes.proof.get") },
      overlap_ms: Math.min(toA, toB) - Math.max(fromA, fromB),
      failed_put_attempts_while_down: [...proxyA.calls, ...proxyB.calls].filter((c) => c.route === "disputes.proofRequest.create" && c.status === 503).length,
    }
    writeFileSync(join(captureDir(), `report-${SUITE}.json`), JSON.stringify(figures, null, 2))
    process.stdout.write(`instances: ${JSON.stringify(figures)}\n`)
  })
})
