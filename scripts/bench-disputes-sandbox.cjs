// The service side of `npm run bench:disputes`, in its own process: the
// sandbox seeded with N completed proof requests (one labelled scan each)
// through its in-memory state, which it exposes for tests (20,000+ control API
// calls would only measure the seeding); the proof requests have exactly the
// shape the service's own PUT gives them. On "seed <database url>" on stdin it
// writes the matching pending rows into the plugin's tables (after the
// measured process has migrated them), so that the measured process never
// holds the N ids. Answers one JSON line per step on stdout.
const { randomUUID } = require("node:crypto")
const readline = require("node:readline")
const pg = require("pg")
const { startSandbox } = require("servicescan-sandbox")

const N = Number(process.argv[2])
/** Every tenth scan is labelled fraud, so the run writes both verdicts. */
const FRAUD_EVERY = 10

async function seedDatabase(databaseUrl, seeded) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  const now = new Date(Date.now() - 60_000)
  const BATCH = 2_000
  for (let start = 0; start < seeded.length; start += BATCH) {
    const rows = seeded.slice(start, start + BATCH)
    const chargebacks = rows.map(() => `chbk_bench_${randomUUID()}`)
    const proofs = rows.map(() => `sspr_bench_${randomUUID()}`)
    await client.query(
      `INSERT INTO servicescan_chargeback (id, external_id, order_id, amount, raw_amount, currency_code, status, source)
       SELECT id, 'dp_' || id, 'order_bench', 10.5, '{"value":"10.5","precision":20}'::jsonb, 'usd', 'evidence_pending', 'webhook'
         FROM unnest($1::text[]) AS id`,
      [chargebacks]
    )
    await client.query(
      `INSERT INTO servicescan_proof_request (id, chargeback_id, remote_id, status, scan_ids, next_poll_at, submitted_at)
       SELECT p.id, p.chargeback_id, p.remote_id, 'pending', ARRAY[p.scan_id], $5, $5
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS p(id, chargeback_id, remote_id, scan_id)`,
      [proofs, chargebacks, rows.map((r) => r.remoteId), rows.map((r) => r.scanId), now]
    )
    await client.query(
      `INSERT INTO servicescan_scan_evidence (id, proof_request_id, scan_id)
       SELECT 'ssev_bench_' || md5(p.id), p.id, p.scan_id FROM unnest($1::text[], $2::text[]) AS p(id, scan_id)`,
      [proofs, rows.map((r) => r.scanId)]
    )
  }
  await client.query("ANALYZE")
  await client.end()
}

startSandbox({ port: 0, logger: false }).then((s) => {
  const accountId = s.demo.accountId
  const now = new Date().toISOString()
  const seeded = []
  for (let i = 0; i < N; i++) {
    const scanId = randomUUID()
    const groundTruth = i % FRAUD_EVERY === 0 ? "invalid" : "valid"
    s.state.scans.set(scanId, { id: scanId, accountId, groundTruth, imageDeleted: false, cardNumber: null, source: "control", createdAt: now })
    const remoteId = randomUUID()
    s.state.proofRequests.set(remoteId, {
      id: remoteId,
      accountId,
      scanIds: [scanId],
      status: "complete",
      results: [{ scanId, groundTruth }],
      createdAt: now,
      completedAt: now,
    })
    seeded.push({ scanId, remoteId })
  }
  process.stdout.write(JSON.stringify({ url: s.url, count: seeded.length }) + "\n")
  readline.createInterface({ input: process.stdin }).on("line", (line) => {
    const [command, databaseUrl] = line.split(" ")
    if (command !== "seed") return
    seedDatabase(databaseUrl, seeded).then(
      () => process.stdout.write(JSON.stringify({ seeded: seeded.length }) + "\n"),
      (error) => process.stdout.write(JSON.stringify({ error: String(error?.stack ?? error) }) + "\n")
    )
  })
})
