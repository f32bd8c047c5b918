// What `npm run demo` prints once the store is up: where everything is, the test cards, and the
// ways to raise a chargeback.
import { ADMIN_EMAIL, ADMIN_PASSWORD, LOG_DIR, PROCESSOR, PROOF_DELAY_MS, rel, started } from "./settings.mjs"
import { bold, cyan, dim, formatDuration, green } from "./util.mjs"

export function printBanner({ urls, seed, pg, databaseUrl, sandbox }) {
  const row = (label, value, note = "") => `    ${label.padEnd(12)} ${value}${note ? `   ${dim(note)}` : ""}\n`
  const db = pg ? `embedded, port ${pg.port}, data in ${rel(pg.dataDir)}` : "DATABASE_URL"
  let out = `\n  ${green(bold("The demo store is running"))} ${dim(`(ready in ${formatDuration(Date.now() - started)})`)}\n\n`
  out += row("Storefront", cyan(urls.storefront), "pay for something here")
  out += row("Admin", cyan(`${urls.medusa}/app`), `${ADMIN_EMAIL} / ${ADMIN_PASSWORD}`)
  out += row("Medusa API", urls.medusa, `publishable key ${seed.publishableKey}`)
  out += row("Processor", `${PROCESSOR.label} (${PROCESSOR.providerId})`, "DEMO_PROCESSOR=worldpay|adyen picks the one the storefront pays through")
  out += row("Sandbox", sandbox.url, `fake ServiceScan, Worldpay and Adyen; proof requests answer after ${formatDuration(PROOF_DELAY_MS)}`)
  out += row("PostgreSQL", databaseUrl.replace(/:[^:@/]+@/, ":****@"), db)
  out += `\n  ${bold("Test cards")} ${dim("any future expiry (12/30), any CVV (123)")}\n`
  for (const [number, outcome] of [
    ["4457 1199 2239 0123", "approved"],
    ["4000 0000 0000 9995", "declined: insufficient funds"],
    ["4457 1199 2239 0124", "refused by the form: the number fails the Luhn check"],
    ["4000 0000 0000 0259", "approved, but its scan is judged fraudulent in a dispute"],
  ]) {
    out += `    ${number}   ${dim(outcome)}\n`
  }
  out += `    ${dim('"Scan card" in the form plays the camera scanner; only scanned cards leave dispute evidence.')}\n`
  out += `\n  ${bold("Chargebacks")} ${dim("(the evidence reaches the order about 20 s after the chargeback)")}\n`
  out += `    storefront   after paying, press "Simulate a chargeback"\n`
  out += `    admin        an order's page → Chargebacks → Record chargeback; all of them under Disputes\n`
  out += `    webhook      node demo/scripts/chargeback.mjs <order id>   ${dim("(a signed POST /hooks/servicescan/chargebacks)")}\n`
  out += `    processor    npm run demo:chargeback -- [order number]   ${dim(`(a case at the sandbox's ${PROCESSOR.label}, ${PROCESSOR.disputeDelivery}: proven and represented by itself)`)}\n`
  out += `\n  ${dim(`Logs in ${rel(LOG_DIR)}/ · demo/README.md explains everything · Ctrl-C stops it all`)}\n\n`
  process.stdout.write(out)
}
