import { randomUUID } from "node:crypto"
import { adminHeaders, createAppDir, createDatabase, startMedusa, type AppDatabase, type MedusaProcess } from "./lib/app"
import { installRecordingFetch, logDir, markSkipped, recordSecrets } from "./lib/capture"
import { call, deliverChargeback } from "./lib/medusa"
import { adyenNotifications, DISPUTE_DRIVERS } from "../helpers/disputes"
import { ADYEN, lastSeq, liveAuthorizations, movesSince, PROCESSORS, type ProcessorName, type SandboxMove } from "../helpers/processors"
import { findRedisServer, startRedis, waitFor, type RedisServer } from "./lib/processes"
import {
  control,
  CountingProxy,
  pointAdyenWebhook,
  startSuiteSandbox,
  type Sandbox,
  type SuiteAccount,
} from "./lib/sandbox"
import { random } from "../helpers/random"
import { shop, type ShopperResult } from "./lib/shopper"

/**
 * The plugin on Medusa's production topology: one `medusa start` process in
 * `workerMode: "server"` and one in `"worker"`, unchanged code and config
 * otherwise, sharing PostgreSQL and a private redis-server (event bus,
 * workflow engine, locking and caching providers, sessions). Each process
 * reaches the sandbox through its own counting proxy, so every call to the
 * service is attributed to the process that made it.
 */
const redisServer = findRedisServer()
if (!redisServer) {
  process.stdout.write("SKIP topology: redis-server not found; install it with: apt-get install redis-server\n")
  // The secrets suite then expects no responses from this suite.
  markSkipped("topology")
}
const describeWithRedis = redisServer ? describe : describe.skip

const SUITE = "topology"

type Chargeback = {
  id: string
  status: string
  order_id: string
  proof_requests: {
    id: string
    remote_id: string | null
    status: string
    scans: { scan_id: string; ground_truth: string | null; archived_at: string | null }[]
  }[]
}

describeWithRedis("production topology: a server process and a worker process on Redis", () => {
  let redis: RedisServer
  let sandbox: Sandbox
  let account: SuiteAccount
  let app: Awaited<ReturnType<typeof createAppDir>>
  let db: AppDatabase
  let server: MedusaProcess
  let worker: MedusaProcess
  let serverProxy: CountingProxy
  let workerProxy: CountingProxy
  let admin: Record<string, string>
  let stopRecording: () => void
  const medusaUrls: string[] = []

  /** The checkout taken through each processor, and the payment it made there. */
  const paid: Partial<Record<ProcessorName, { shopper: ShopperResult; payment: SandboxMove }>> = {}
  /** The Worldpay checkout's shopper, whose order the ServiceScan chargebacks below are raised on. */
  let shopper: ShopperResult
  let firstChargeback: Chargeback

  const adminGet = <T>(path: string) => call<T>(server.url, path, { headers: admin })
  const chargeback = async (id: string) => (await adminGet<{ chargeback: Chargeback }>(`/admin/servicescan/chargebacks/${id}`)).body.chargeback

  /** Everything both processes get, identical: only the worker mode and the way to the sandbox differ. */
  const sharedEnv = () => ({
    DATABASE_URL: db.url,
    SYSTEM_REDIS_URL: redis.url,
    SYSTEM_SHAREABLE_KEY: account.keys.shareable,
    SYSTEM_PAYMENT_TOKEN_KEY: account.keys.paymentToken,
    SYSTEM_SECRET_KEY: account.keys.secret,
    SERVICESCAN_SYNC_SCHEDULE: "0/2 * * * * *",
  })

  beforeAll(async () => {
    stopRecording = installRecordingFetch(SUITE, (url) => medusaUrls.some((base) => url.startsWith(base)))
    redis = await startRedis(redisServer as string, logDir())
    ;({ sandbox, account } = await startSuiteSandbox())
    // helpers/processors.ts and helpers/disputes.ts count and raise at the sandbox this URL names.
    process.env.SERVICESCAN_SANDBOX_URL = sandbox.url
    recordSecrets(SUITE, { paymentTokenKey: account.keys.paymentToken, secretKey: account.keys.secret }, { shareableKey: account.keys.shareable })
    app = await createAppDir()
    db = await createDatabase(app.dir, SUITE)
    serverProxy = await new CountingProxy("server", new URL(sandbox.url)).start()
    workerProxy = await new CountingProxy("worker", new URL(sandbox.url)).start()
    ;[server, worker] = await Promise.all([
      startMedusa(app.dir, { suite: SUITE, name: "server", env: { ...sharedEnv(), MEDUSA_WORKER_MODE: "server", SERVICESCAN_SANDBOX_URL: serverProxy.url } }),
      startMedusa(app.dir, { suite: SUITE, name: "worker", env: { ...sharedEnv(), MEDUSA_WORKER_MODE: "worker", SERVICESCAN_SANDBOX_URL: workerProxy.url } }),
    ])
    medusaUrls.push(server.url, worker.url)
    admin = adminHeaders(db.store)
    // Adyen pushes its notifications to the server, the process a load balancer sends webhooks to.
    await pointAdyenWebhook(sandbox, server.url)
  })

  afterAll(async () => {
    await Promise.all([server?.stop(), worker?.stop()])
    await Promise.all([serverProxy?.close(), workerProxy?.close(), sandbox?.close(), redis?.stop()])
    if (!process.env.SYSTEM_KEEP_DB) await db?.drop()
    await app?.remove()
    stopRecording?.()
  })

  it("runs each process in its mode, both on Redis: the API only on the server, the job only in the worker", async () => {
    const established = [
      /Connection to Redis in module 'event-bus-redis' established/,
      /Connection to Redis in module 'workflow-engine-redis' established/,
      /Connection to Redis in \\?"locking-redis\\?" provider established/,
      /Redis cache connection established/,
    ]
    const missing = [server, worker].flatMap((proc) =>
      established.filter((line) => proc.grep(line).length === 0).map((line) => `${proc.name}: ${line.source}`)
    )
    expect(missing).toEqual([])
    const storeHeaders = { "x-publishable-api-key": db.store.publishableKey }
    expect((await call(server.url, "/store/regions", { headers: storeHeaders })).status).toBe(200)
    expect((await call(worker.url, "/store/regions", { headers: storeHeaders })).status).toBe(404)
    expect((await call(worker.url, "/admin/servicescan/health", { headers: admin })).status).toBe(404)
  })

  it.each(PROCESSORS.map((processor, i) => ({ ...processor, index: i + 1 })))(
    "takes a store checkout through $name on the server: the widget's flow, one authorization at the processor, made by the server",
    async (processor) => {
      const mark = await lastSeq(processor)
      const since = Date.now()
      const result = await shop({
        index: processor.index,
        medusaUrl: server.url,
        store: db.store,
        sandbox,
        account,
        rng: random(processor.index),
        providerId: processor.providerId,
      })
      if (processor.name === "worldpay") shopper = result
      expect(result.orderId).toMatch(/^order_/)
      const moves = movesSince(await processor.moves(), mark)
      // One approved authorization, of the order's amount, never answered twice: the only movement.
      expect(moves.map((m) => [m.kind, m.ok, m.amount, m.replays])).toEqual([["authorization", true, 1050, 0]])
      expect(liveAuthorizations(moves)).toHaveLength(1)
      expect(moves[0].token).toMatch(processor.tokenPattern)
      expect(serverProxy.count("token.exchange", since)).toBe(1)
      expect(serverProxy.count(processor.routes.authorize, since)).toBe(1)
      expect(workerProxy.count(processor.routes.authorize, since) + workerProxy.count("token.exchange", since)).toBe(0)
      paid[processor.name] = { shopper: result, payment: moves[0] }
    }
  )

  it("hands an event the server raised (order.placed, from that checkout) to the worker, through Redis", async () => {
    await worker.waitForLine("process order.placed", /Processing order\.placed/, { timeoutMs: 30_000 })
    expect(server.grep(/Processing /)).toEqual([])
  })

  it("records the chargeback webhook on the server; the worker's scheduled job submits and polls the proof request", async () => {
    await control(sandbox, "/__sandbox/settings", { method: "POST", body: { proofDelayMs: 1000 } })
    // ServiceScan is down for the server while the webhook arrives: the server records the
    // chargeback and leaves the proof request to the job (its one attempt gets the 503). Only the
    // server's way to it is down: a worker run that falls inside the delivery (its job runs every
    // 2 s) reaches the service, as it would, instead of adding a 503 of its own to the count below.
    serverProxy.outage = true
    const delivered = await deliverChargeback(server.url, {
      external_id: `dp_topology_${randomUUID()}`,
      order_id: shopper.orderId as string,
      amount: "10.50",
      currency_code: "usd",
      reason: "fraudulent",
    })
    serverProxy.outage = false
    expect(delivered.status).toBe(200)
    const { chargeback_id: id } = delivered.body as { chargeback_id: string; created: boolean }
    expect(serverProxy.calls.filter((c) => c.route === "disputes.proofRequest.create").map((c) => c.status)).toEqual([503])

    firstChargeback = await waitFor(
      "the chargeback's evidence",
      async () => {
        const cb = await chargeback(id)
        return cb.status === "evidence_ready" && cb.proof_requests[0]?.scans.every((s) => s.archived_at) ? cb : undefined
      },
      { timeoutMs: 60_000, intervalMs: 500 }
    )
    const [proof] = firstChargeback.proof_requests
    expect(proof.status).toBe("complete")
    // Submitted once, by the worker; polled by the worker; never by the server.
    expect(workerProxy.calls.filter((c) => c.route === "disputes.proofRequest.create").map((c) => c.status)).toEqual([200])
    expect(workerProxy.calls.filter((c) => c.route === "disputes.proof.get" && c.path.endsWith(`/${proof.remote_id}`)).length).toBeGreaterThan(0)
    expect(serverProxy.count("disputes.proof.get")).toBe(0)
    const { items } = await control<{ items: { id: string; scanIds: string[] }[] }>(sandbox, `/__sandbox/proof-requests?accountId=${account.accountId}`)
    expect(items.map((i) => i.id)).toEqual([proof.remote_id])
    expect(worker.grep(/servicescan: synced \d+ proof requests/).length).toBeGreaterThan(0)
    expect(server.grep(/servicescan: synced/)).toEqual([])
  })

  it("raises servicescan.proof_request.completed in the worker and archives the images there, through Redis", async () => {
    expect(worker.grep(/Processing servicescan\.proof_request\.completed/).length).toBeGreaterThan(0)
    expect(server.grep(/Processing servicescan\./)).toEqual([])
    const scanIds = firstChargeback.proof_requests[0].scans.map((s) => s.scan_id)
    expect(scanIds).toEqual([expect.any(String)])
    expect(workerProxy.calls.filter((c) => c.route === "disputes.image.get" && c.path.includes(scanIds[0])).length).toBeGreaterThan(0)
    expect(serverProxy.count("disputes.image.get")).toBe(0)
  })

  it("shows the evidence through the server's admin API, the image served from the archive the worker wrote", async () => {
    const [scan] = firstChargeback.proof_requests[0].scans
    expect(scan.ground_truth).toBe("valid")
    const image = await fetch(`${server.url}/admin/servicescan/scans/${scan.scan_id}/image`, { headers: admin })
    expect(image.status).toBe(200)
    expect(image.headers.get("content-type")).toBe("image/jpeg")
    expect(image.headers.get("x-servicescan-image-source")).toBe("archive")
    const bytes = Buffer.from(await image.arrayBuffer())
    expect(bytes.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]))
    // The server did not need the service for it.
    expect(serverProxy.count("disputes.image.get")).toBe(0)

    const orderChargebacks = await adminGet<{ items: { id: string }[] }>(
      `/admin/servicescan/chargebacks?order_id=${shopper.orderId}`
    )
    expect(orderChargebacks.body.items.map((c) => c.id)).toEqual([firstChargeback.id])
  })

  it("takes an Adyen dispute pushed to the server's webhook; the worker applies it through Redis: chargeback recorded, proof requested", async () => {
    const adyen = paid.adyen
    if (!adyen) throw new Error("no Adyen checkout to dispute")
    const since = Date.now()
    const disputeRef = await DISPUTE_DRIVERS.adyen.raise(adyen.payment.id)
    // The sandbox pushes NOTIFICATION_OF_CHARGEBACK and CHARGEBACK to the server, which answers once they are stored.
    await waitFor(
      "the sandbox to deliver the dispute's notifications",
      async () => {
        const sent = await adyenNotifications(disputeRef)
        return sent.length > 0 && sent.every((n) => n.status === "delivered")
      },
      { timeoutMs: 30_000, intervalMs: 200 }
    )
    const recorded = await waitFor(
      "the Adyen dispute's chargeback and its proof request",
      async () => {
        const { items } = (await adminGet<{ items: { id: string }[] }>(`/admin/servicescan/chargebacks?order_id=${adyen.shopper.orderId}`)).body
        const [cb] = items.length === 1 ? [await chargeback(items[0].id)] : []
        return cb?.proof_requests[0]?.remote_id ? cb : undefined
      },
      { timeoutMs: 30_000, intervalMs: 250 }
    )
    expect(recorded.order_id).toBe(adyen.shopper.orderId)
    // The server stored the events and raised the event; the subscriber ran in the worker only.
    await worker.waitForLine("the worker to apply the webhook's events", /Processing servicescan\.processor_events\.received/, { since })
    expect(server.grep(/Processing servicescan\./)).toEqual([])
    // The proof request was created once, at the sandbox, by the worker.
    expect(workerProxy.calls.filter((c) => c.route === "disputes.proofRequest.create" && c.at >= since).map((c) => c.status)).toEqual([200])
    expect(serverProxy.count("disputes.proofRequest.create", since)).toBe(0)
    const atService = await control<{ items: { id: string }[] }>(sandbox, `/__sandbox/proof-requests?accountId=${account.accountId}`)
    expect(atService.items.map((i) => i.id)).toContain(recorded.proof_requests[0].remote_id)
    // Its evidence completes in the worker too (as the Worldpay chargeback's above), before the next case counts completions.
    await waitFor(
      "the Adyen chargeback's proof request to complete",
      async () => (await chargeback(recorded.id)).proof_requests[0]?.status === "complete",
      { timeoutMs: 30_000, intervalMs: 500 }
    )
    // Nothing the dispute's work did reached Adyen's payment API (no refund, no release).
    expect(movesSince(await ADYEN.moves(), adyen.payment.seq).filter((m) => m.id !== adyen.payment.id)).toEqual([])
  })

  it("hands servicescan.proof_request.completed raised on the server (an admin's check now) to the worker", async () => {
    await control(sandbox, "/__sandbox/settings", { method: "POST", body: { proofDelayMs: null } })
    const delivered = await deliverChargeback(server.url, {
      external_id: `dp_topology_${randomUUID()}`,
      order_id: shopper.orderId as string,
      amount: "10.50",
      currency_code: "usd",
    })
    expect(delivered.status).toBe(200)
    const id = (delivered.body as { chargeback_id: string }).chargeback_id
    // The server sends the new proof request itself, unless the worker's job claimed the row
    // first (it is due at once, and one sender takes it): either way it reaches `pending`.
    const proof = await waitFor(
      "the new proof request to be accepted by the service",
      async () => {
        const [row] = (await chargeback(id)).proof_requests
        return row?.status === "pending" ? row : undefined
      },
      { timeoutMs: 30_000, intervalMs: 250 }
    )
    // From here the worker cannot reach the service (its proxy answers 503), so any
    // completion of this proof request can only come from the server.
    workerProxy.outage = true
    const before = Date.now()
    await control(sandbox, `/__sandbox/proof-requests/${proof.remote_id}/complete`, { method: "POST" })
    const checked = await call<{ chargeback: Chargeback; check: { completed: number } }>(
      server.url,
      `/admin/servicescan/chargebacks/${id}/check`,
      { headers: admin, body: {} }
    )
    expect(checked.status).toBe(200)
    expect(checked.body.check.completed).toBe(1)
    await worker.waitForLine("process the server's event", /Processing servicescan\.proof_request\.completed/, { since: before })
    expect(server.grep(/Processing servicescan\./)).toEqual([])
    workerProxy.outage = false
  })

  it("reports on the server's health endpoint what the worker's job saw: a refused key stops polling", async () => {
    // The worker restarts with a key the service does not know (a rotation that reached the
    // server but not the worker). The server's own key still works, so only the worker sees
    // the refusal; the admin looking at the server must see that polling has stopped.
    // Expected to fail while the refusal is kept in the worker's memory (issue #12).
    await worker.stop()
    const revoked = `sk_test_revoked_${randomUUID().replace(/-/g, "")}`
    recordSecrets(SUITE, { revokedSecretKey: revoked })
    worker = await startMedusa(app.dir, {
      suite: SUITE,
      name: "worker-revoked-key",
      env: { ...sharedEnv(), SYSTEM_SECRET_KEY: revoked, MEDUSA_WORKER_MODE: "worker", SERVICESCAN_SANDBOX_URL: workerProxy.url },
    })
    medusaUrls.push(worker.url)
    // Something for the job to do: a proof request the service has not completed yet.
    const delivered = await deliverChargeback(server.url, {
      external_id: `dp_topology_${randomUUID()}`,
      order_id: shopper.orderId as string,
      amount: "10.50",
      currency_code: "usd",
    })
    expect(delivered.status).toBe(200)
    await worker.waitForLine("the job to meet the refused key", /refused the secret key|polling is stopped/, { timeoutMs: 30_000 })

    const health = await adminGet<{ health: { ok: boolean; configuration_error: unknown; polling: { stopped: boolean } } }>(
      "/admin/servicescan/health"
    )
    expect(health.status).toBe(200)
    expect(health.body.health.polling.stopped).toBe(true)
    expect(health.body.health.ok).toBe(false)
    expect(JSON.stringify(health.body.health.configuration_error)).toMatch(/403/)
  })
})
