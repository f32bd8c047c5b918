import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { adminHeaders, createAppDir, createDatabase, startMedusa, type AppDatabase, type MedusaProcess } from "./lib/app"
import { captureDir, installRecordingFetch, recordSecrets } from "./lib/capture"
import { ledgerByCard, ledgerFromMoves, transactionSummary, type CardLedger } from "./lib/ledger"
import { call, deliverUntilAccepted } from "./lib/medusa"
import { sleep, waitFor } from "./lib/processes"
import { runSeed, SCALE } from "./lib/scale"
import {
  clearFaults,
  control,
  CountingProxy,
  createMarkerScan,
  pointAdyenWebhook,
  processorTransactions,
  serviceProofRequests,
  setFaults,
  startSuiteSandbox,
  type Faults,
  type Sandbox,
  type SuiteAccount,
} from "./lib/sandbox"
import { ADYEN, PROCESSORS, WORLDPAY, type TestProcessor } from "../helpers/processors"
import { random } from "../helpers/random"
import { ADYEN_MERCHANT } from "./lib/canaries"
import { pool, reconcileAbandoned, shop, type ShopperResult } from "./lib/shopper"

/**
 * Many store checkouts and chargebacks through the sandbox's faults (latency,
 * random 503s, connection resets, answers dropped after the work was done),
 * driven the way shoppers and card networks drive them, and judged by the
 * service's own books (the simulated processor's transactions, the disputes
 * API's proof requests), never by our tables:
 *
 * - every placed order holds exactly one live authorization, for its amount,
 *   at whichever processor it paid through (one checkout in ADYEN_SHARE pays through Adyen);
 * - every cart that never became an order holds none;
 * - every chargeback has exactly one proof request at the service;
 * - once the faults stop and the job has run, nothing is left waiting.
 *
 * The shopper's side is the published widget's `payWithServiceScan`, so its
 * retry rule is part of what is tested; the shopper's own connection also
 * loses answers now and then. The run's choices come from one seed
 * (SERVICESCAN_SEED replays them; the sandbox's random faults still vary).
 */
const SUITE = "faults"
const CHECKOUTS = SCALE.faultCheckouts
const CHARGEBACKS = SCALE.faultChargebacks
const SEED = runSeed()
const SHOPPERS_AT_ONCE = 3
/** One checkout in this many pays through Adyen (helpers/processors.ts), the rest through Worldpay, under the same faults. */
const ADYEN_SHARE = 5
const processorOf = (index: number): TestProcessor => (index % ADYEN_SHARE === 0 ? ADYEN : WORLDPAY)
const DELIVERIES_AT_ONCE = 4
/** How long the job keeps working under faults after the last chargeback arrived. */
const FAULTY_POLLING_MS = 10_000
/** How long "nothing left waiting" may take once the faults stop. */
const DRAIN_TIMEOUT_MS = 120_000
// checkoutReconcileAfterMs (60 s in the suite's app) plus a few runs of the job every 5 s.
const RECONCILE_TIMEOUT_MS = 100_000

/**
 * Both processors' books, per card (each shopper's card has its own last four digits): Worldpay's
 * token keeps them; Adyen's stored payment method id does not, so the sandbox's listing of the
 * cards the `adyen` token exchange stored names each one's card.
 */
async function ledgers(sandbox: Sandbox): Promise<Map<string, CardLedger>> {
  const { items } = await control<{ items: { storedPaymentMethodId: string; lastFour: string }[] }>(
    sandbox,
    `/__sandbox/adyen/stored-payment-methods?merchantAccount=${encodeURIComponent(ADYEN_MERCHANT.merchantAccount)}`
  )
  const adyen = ledgerFromMoves(await ADYEN.moves(), new Map(items.map((card) => [card.storedPaymentMethodId, card.lastFour])))
  return new Map([...ledgerByCard(await processorTransactions(sandbox)), ...adyen])
}

/** Faults that stay on while a phase runs (the service's own randomness decides which calls they hit). */
const BACKGROUND: Faults = { latencyMs: 30, errorRate: 0.1, resetRate: 0.05 }

/**
 * Until stopped, every `intervalMs` (a random span) drops the answer of the next
 * call(s) of a route after the service did the work: the "work done, answer lost" case.
 */
function conductDrops(
  sandbox: Sandbox,
  rng: () => number,
  intervalMs: [number, number],
  choices: { weight: number; drop: Faults["dropResponse"] }[],
  log: string[]
): { stop: () => Promise<void> } {
  let running = true
  const total = choices.reduce((sum, c) => sum + c.weight, 0)
  const loop = (async () => {
    while (running) {
      await sleep(intervalMs[0] + Math.floor(rng() * (intervalMs[1] - intervalMs[0])))
      if (!running) break
      let roll = rng() * total
      const choice = choices.find((c) => (roll -= c.weight) < 0) ?? choices[choices.length - 1]
      if (choice.drop) {
        await setFaults(sandbox, { dropResponse: choice.drop }).catch(() => undefined)
        log.push(`${choice.drop.route ?? "any"} x${choice.drop.count}`)
      }
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
    },
  }
}

describe(`faults: ${CHECKOUTS} checkouts (${PROCESSORS.map((p) => p.name).join(" and ")}) and ${CHARGEBACKS} chargebacks under the sandbox's faults (seed ${SEED}, scale ${SCALE.name})`, () => {
  let sandbox: Sandbox
  let account: SuiteAccount
  let app: Awaited<ReturnType<typeof createAppDir>>
  let db: AppDatabase
  let medusa: MedusaProcess
  let proxy: CountingProxy
  let admin: Record<string, string>
  let stopRecording: () => void
  const medusaUrls: string[] = []
  const report: Record<string, unknown> = { suite: SUITE, seed: SEED, scale: SCALE.name, checkouts: CHECKOUTS, chargebacks: CHARGEBACKS }
  let shoppers: ShopperResult[] = []

  beforeAll(async () => {
    process.stdout.write(`faults: seed ${SEED} (replay the run's own choices with SERVICESCAN_SEED=${SEED})\n`)
    stopRecording = installRecordingFetch(SUITE, (url) => medusaUrls.some((base) => url.startsWith(base)))
    ;({ sandbox, account } = await startSuiteSandbox({ proofDelayMs: 300 }))
    // helpers/processors.ts counts at the sandbox this URL names.
    process.env.SERVICESCAN_SANDBOX_URL = sandbox.url
    recordSecrets(SUITE, { paymentTokenKey: account.keys.paymentToken, secretKey: account.keys.secret }, { shareableKey: account.keys.shareable })
    app = await createAppDir()
    db = await createDatabase(app.dir, SUITE)
    proxy = await new CountingProxy("app", new URL(sandbox.url)).start()
    medusa = await startMedusa(app.dir, {
      suite: SUITE,
      name: "app",
      env: {
        DATABASE_URL: db.url,
        MEDUSA_WORKER_MODE: "shared",
        SERVICESCAN_SANDBOX_URL: proxy.url,
        SYSTEM_SHAREABLE_KEY: account.keys.shareable,
        SYSTEM_PAYMENT_TOKEN_KEY: account.keys.paymentToken,
        SYSTEM_SECRET_KEY: account.keys.secret,
        SERVICESCAN_SYNC_SCHEDULE: "0/2 * * * * *",
        SERVICESCAN_RECONCILE_SCHEDULE: "0/5 * * * * *",
        SYSTEM_POLL_INTERVAL_MS: "1000",
        SYSTEM_RETRY_BASE_DELAY_MS: "500",
      },
    })
    medusaUrls.push(medusa.url)
    admin = adminHeaders(db.store)
    // Adyen's AUTHORISATION and modification notifications reach the app, as a merchant configures them.
    await pointAdyenWebhook(sandbox, medusa.url)
  })

  afterAll(async () => {
    writeFileSync(join(captureDir(), `report-${SUITE}.json`), JSON.stringify(report, null, 2))
    await medusa?.stop()
    await Promise.all([proxy?.close(), sandbox?.close()])
    if (!process.env.SYSTEM_KEEP_DB) await db?.drop()
    await app?.remove()
    stopRecording?.()
  })

  it("leaves every placed order exactly one live authorization, and every failed cart none", async () => {
    const started = Date.now()
    const rng = random(SEED)
    const patience = Array.from({ length: CHECKOUTS }, () => (rng() < 0.2 ? 1 + Math.floor(rng() * 2) : 8))
    const drops: string[] = []
    await setFaults(sandbox, BACKGROUND)
    const conductor = conductDrops(
      sandbox,
      rng,
      [1000, 3000],
      [
        // The processor authorizes, and both its answer and the provider's retry's answer are lost.
        { weight: 35, drop: { route: "cnp.online", count: 2 } },
        { weight: 25, drop: { route: "cnp.online", count: 1 } },
        // Adyen authorizes (one checkout in ADYEN_SHARE), and the answer (and its retry's) is lost.
        { weight: 15, drop: { route: ADYEN.routes.authorize, count: 2 } },
        { weight: 10, drop: { route: ADYEN.routes.authorize, count: 1 } },
        { weight: 20, drop: { route: "token.exchange", count: 1 } },
        { weight: 20, drop: undefined },
      ],
      drops
    )
    try {
      shoppers = await pool(CHECKOUTS, SHOPPERS_AT_ONCE, (i) =>
        shop({
          index: i + 1,
          medusaUrl: medusa.url,
          store: db.store,
          sandbox,
          account,
          rng: random(SEED + i + 1),
          clientFaultRate: 0.15,
          // One shopper in five gives up after one or two failed attempts.
          maxAttempts: patience[i],
          providerId: processorOf(i + 1).providerId,
        })
      )
    } finally {
      await conductor.stop()
      await clearFaults(sandbox)
    }
    // A completion still running when its shopper gave up may finish after this point: a short grace
    // for one still before its authorization, and its cart is looked up again on every read below.
    await sleep(3000)
    await reconcileAbandoned(medusa.url, db.store, shoppers)

    // A completion whose answer was lost may have left an authorization behind a cart its shopper gave
    // up on; the reconciliation job releases it once the attempt is older than checkoutReconcileAfterMs
    // (a minute here). Until then the processor's ledger is read again; after the wait it is judged as is.
    const liveOnFailedCarts = (ledger: Map<string, CardLedger>) =>
      shoppers.filter((s) => !s.orderId && (ledger.get(s.last4)?.live.length ?? 0) > 0).length
    const settled = async () => {
      await reconcileAbandoned(medusa.url, db.store, shoppers)
      return liveOnFailedCarts(await ledgers(sandbox)) === 0
    }
    await waitFor("the reconciliation job to release what failed carts left", settled, {
      timeoutMs: RECONCILE_TIMEOUT_MS,
      intervalMs: 2000,
    }).catch(() => undefined)
    await reconcileAbandoned(medusa.url, db.store, shoppers)

    const transactions = await processorTransactions(sandbox)
    const ledger = await ledgers(sandbox)
    const problems: string[] = []
    const summarize = (s: ShopperResult) =>
      `${processorOf(s.index).name} cart ${s.cartId}${s.orderId ? `, order ${s.orderId}` : ""}, card …${s.last4}; attempts: ${s.attempts
        .map((a) => `${a.outcome}${a.clientFault !== "none" ? ` [client: ${a.clientFault}]` : ""}`)
        .join(" | ")}`
    for (const s of shoppers) {
      const live = ledger.get(s.last4)?.live ?? []
      const all = ledger.get(s.last4)?.authorizations ?? []
      const auths = all.map((a) => `${a.cnpTxnId} (id ${a.requestId}, ${a.released ? "released" : "LIVE"})`).join(", ")
      if (s.orderId && live.length !== 1) {
        problems.push(`placed order with ${live.length} live authorizations [${auths}]: ${summarize(s)}`)
      } else if (s.orderId && live[0].amount !== 1050) {
        problems.push(`placed order whose live authorization is for ${live[0].amount}, not 1050: ${summarize(s)}`)
      } else if (!s.orderId && live.length) {
        problems.push(`failed cart left ${live.length} authorization(s) unvoided [${auths}]: ${summarize(s)}`)
      }
    }
    const known = new Set(shoppers.map((s) => s.last4))
    for (const last4 of ledger.keys()) {
      if (!known.has(last4)) problems.push(`authorizations for a card no shopper used: …${last4}`)
    }

    const orders = shoppers.filter((s) => s.orderId).length
    const adyenOrders = shoppers.filter((s) => s.orderId && processorOf(s.index) === ADYEN).length
    const authorizeRoutes: string[] = [WORLDPAY.routes.authorize, ADYEN.routes.authorize, "token.exchange"]
    const attempts = shoppers.flatMap((s) => s.attempts)
    const faultsSeen = proxy.calls.filter(
      (c) => authorizeRoutes.includes(c.route) && (c.status === "no answer" || c.status === 503)
    ).length
    Object.assign(report, {
      checkout: {
        seconds: Math.round((Date.now() - started) / 1000),
        orders,
        adyen_orders: adyenOrders,
        failed_carts: CHECKOUTS - orders,
        impatient_shoppers: patience.filter((p) => p < 8).length,
        attempts: attempts.length,
        client_faults: attempts.filter((a) => a.clientFault !== "none").length,
        outcomes: countBy(attempts.map((a) => a.outcome.replace(/order_\w+/, "order").slice(0, 90))),
        drops_injected: countBy(drops),
        service_calls_faulted: faultsSeen,
        processor: transactionSummary(transactions),
        authorizations: [...ledger.values()].reduce((n, l) => n + l.authorizations.length, 0),
        released: [...ledger.values()].reduce((n, l) => n + l.authorizations.filter((a) => a.released).length, 0),
        problems,
      },
    })
    process.stdout.write(`faults (checkout): ${JSON.stringify({ orders, failed: CHECKOUTS - orders, problems: problems.length, seed: SEED })}\n`)

    // The faults really happened, and shoppers still got orders through them.
    expect(faultsSeen).toBeGreaterThan(0)
    expect(orders).toBeGreaterThan(0)
    expect(adyenOrders).toBeGreaterThan(0)
    expect(problems).toEqual([])
  })

  it("gives every chargeback exactly one proof request at the service, and leaves nothing waiting once the faults stop", async () => {
    const started = Date.now()
    const orders = shoppers.filter((s) => s.orderId).map((s) => s.orderId as string)
    expect(orders.length).toBeGreaterThan(0)
    const rng = random(SEED ^ 0x5eed)
    const markers = await pool(CHARGEBACKS, 8, () => createMarkerScan(sandbox, account))
    const drops: string[] = []
    await setFaults(sandbox, { latencyMs: 30, errorRate: 0.15, resetRate: 0.05 })
    const conductor = conductDrops(
      sandbox,
      rng,
      [500, 1500],
      [
        { weight: 60, drop: { route: "disputes.proof.get", count: 2 } },
        { weight: 40, drop: undefined },
      ],
      drops
    )
    let deliveries: Awaited<ReturnType<typeof deliverUntilAccepted>>[]
    try {
      deliveries = await pool(CHARGEBACKS, DELIVERIES_AT_ONCE, (j) =>
        deliverUntilAccepted(
          medusa.url,
          {
            external_id: `dp_faults_${SEED}_${j}`,
            order_id: orders[j % orders.length],
            amount: "10.50",
            currency_code: "usd",
            reason: "fraudulent",
            scan_ids: [markers[j]],
          },
          // One accepted delivery in ten loses its 200 on the way back: the network replays it.
          { answerLost: () => rng() < 0.1 }
        )
      )
      // The job keeps submitting and polling under the same faults for a while.
      await sleep(FAULTY_POLLING_MS)
    } finally {
      await conductor.stop()
      await clearFaults(sandbox)
    }
    const delivered = Date.now()
    const problems: string[] = []
    deliveries.forEach((d, j) => {
      if (d.answer.status !== 200) problems.push(`chargeback dp_faults_${SEED}_${j}: the webhook never accepted it (${d.answer.status} ${d.answer.text.slice(0, 200)})`)
    })

    type Health = { health: { polling: { counts: Record<string, number> } } }
    const waiting = (counts: Record<string, number>) => (counts.to_submit ?? 0) + (counts.submitting ?? 0) + (counts.pending ?? 0)
    let counts: Record<string, number> = {}
    const drained = await waitFor(
      "nothing left waiting",
      async () => {
        const { body } = await call<Health>(medusa.url, "/admin/servicescan/health", { headers: admin })
        counts = body.health.polling.counts
        return waiting(counts) === 0
      },
      { timeoutMs: DRAIN_TIMEOUT_MS, intervalMs: 1000 }
    ).catch(() => false)
    if (!drained) {
      const { body } = await call<{ items: { id: string; external_id: string; status: string; proof_requests: { id: string; status: string; last_error: string | null }[] }[] }>(
        medusa.url,
        "/admin/servicescan/chargebacks?status=open,evidence_pending&limit=100&fields=id,external_id,status,proof_requests.id,proof_requests.status,proof_requests.last_error",
        { headers: admin }
      )
      problems.push(`still waiting ${DRAIN_TIMEOUT_MS / 1000} s after the faults stopped: ${JSON.stringify(counts)}`)
      for (const cb of body.items ?? []) {
        problems.push(`  chargeback ${cb.id} (${cb.external_id}) ${cb.status}: ${cb.proof_requests.map((p) => `${p.id} ${p.status}${p.last_error ? ` (${p.last_error.slice(0, 160)})` : ""}`).join("; ")}`)
      }
    }

    const remote = await serviceProofRequests(sandbox, account)
    const perMarker = new Map(markers.map((m) => [m, [] as { id: string; status: string }[]]))
    for (const pr of remote) for (const id of pr.scanIds) perMarker.get(id)?.push({ id: pr.id, status: pr.status })
    markers.forEach((marker, j) => {
      const found = perMarker.get(marker) ?? []
      if (found.length !== 1) {
        problems.push(`chargeback dp_faults_${SEED}_${j}: ${found.length} proof requests at the service (${found.map((f) => f.id).join(", ") || "none"})`)
      } else if (found[0].status !== "complete") {
        problems.push(`chargeback dp_faults_${SEED}_${j}: its proof request ${found[0].id} is ${found[0].status} at the service`)
      }
    })

    const puts = proxy.calls.filter((c) => c.route === "disputes.proofRequest.create")
    const checks = proxy.calls.filter((c) => c.route === "disputes.proof.get")
    const remoteIds = new Set(remote.map((pr) => pr.id))
    const idOf = (path: string) => path.split("?")[0].split("/").pop() as string
    Object.assign(report, {
      chargebacks_phase: {
        seconds_to_deliver: Math.round((delivered - started - FAULTY_POLLING_MS) / 1000),
        seconds_to_drain: Math.round((Date.now() - delivered) / 1000),
        webhook_deliveries: deliveries.reduce((n, d) => n + d.deliveries, 0),
        proof_requests_at_service: remote.filter((pr) => perMarker.size && pr.scanIds.some((id) => perMarker.has(id))).length,
        submissions: countBy(puts.map((c) => String(c.status))),
        // Status checks of real proof requests; the health endpoint's probes (a made-up id, 404) are counted apart.
        status_checks: countBy(checks.filter((c) => remoteIds.has(idOf(c.path))).map((c) => String(c.status))),
        health_probes: checks.filter((c) => !remoteIds.has(idOf(c.path))).length,
        drops_injected: countBy(drops),
        final_counts: counts,
        problems,
      },
    })
    process.stdout.write(`faults (chargebacks): ${JSON.stringify({ chargebacks: CHARGEBACKS, problems: problems.length, seed: SEED })}\n`)
    expect(problems).toEqual([])
  })
})

function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {}
  for (const v of values) out[v] = (out[v] ?? 0) + 1
  return out
}
