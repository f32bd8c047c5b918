#!/usr/bin/env node
// Plays the card network where a chargeback really lands, at the processor: raises a case at the
// sandbox's processor on an order of the running demo (the one its payment went through: Worldpay
// or Adyen), then follows it until the plugin has answered it.
//
//   npm run demo:chargeback -- [order number] [--reason 4837] [--no-wait]
//
// Without an order number, the newest order. The plugin does the rest by itself: Worldpay's case is
// read by its case import job from the Chargeback API (every 5 s in the demo); Adyen's dispute is
// pushed by the sandbox as a signed notification to /hooks/servicescan/adyen. The plugin matches
// it to the order, asks ServiceScan for the scan's proof, and the demo's
// `autoRespond: "represent-valid"` sends the evidence pack and represents (defends) the case.
import { parseArgs } from "node:util"
import { adminLogin, findOrderToDispute, followCase } from "./lib/processor-chargeback.mjs"

const USAGE = "Usage: npm run demo:chargeback -- [order number, default the newest order] [--reason <reason code, e.g. 4837>] [--no-wait]"
let parsed
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      reason: { type: "string" },
      "no-wait": { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
  })
} catch (error) {
  console.error(`${error.message}\n${USAGE}`)
  process.exit(2)
}
const { values, positionals } = parsed
if (values.help || positionals.length > 1) {
  console.log(USAGE)
  process.exit(values.help ? 0 : 2)
}
const displayId = positionals[0]?.replace(/^#/, "")
if (displayId !== undefined && !/^\d{1,12}$/.test(displayId)) {
  console.error(`The order number is the one the storefront and the admin show (e.g. 3 or #3), got "${positionals[0]}"\n${USAGE}`)
  process.exit(2)
}

const medusaUrl = process.env.DEMO_MEDUSA_URL || `http://localhost:${process.env.DEMO_MEDUSA_PORT || 9000}`
const sandboxUrl = process.env.SERVICESCAN_SANDBOX_URL || `http://127.0.0.1:${process.env.DEMO_SANDBOX_PORT || 4010}`
const started = Date.now()
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(0)} s`

try {
  const token = await adminLogin({
    medusaUrl,
    email: process.env.DEMO_ADMIN_EMAIL || "admin@servicescan.test",
    password: process.env.DEMO_ADMIN_PASSWORD || "servicescan-demo",
  })
  const { order, processor, transactionId, scanId } = await findOrderToDispute({ medusaUrl, token, displayId })
  const kase = await processor.raise({ sandboxUrl, transactionId, reasonCode: values.reason })
  console.log(
    `Case ${kase.caseId} raised at the processor (the sandbox's ${processor.label}) on order #${order.display_id} (${order.id}):\n` +
      `  reason ${kase.reasonCode} "${kase.reason}", ${kase.amount} ${kase.currency} minor units, ` +
      `payment ${transactionId}, reply by ${kase.replyBy}; ${processor.disputeDelivery}` +
      (scanId ? "" : "\n  Note: this payment was not scanned, so ServiceScan has no scan to prove it with; the policy will not represent it.")
  )
  if (values["no-wait"]) {
    console.log(`It reaches the plugin within seconds; follow it on the order: ${medusaUrl}/app/orders/${order.id}`)
    process.exit(0)
  }
  console.log("Following it (the plugin does everything by itself; Ctrl-C stops watching, not the loop):")
  const { row, atProcessor } = await followCase({
    medusaUrl,
    sandboxUrl,
    processor,
    token,
    caseId: kase.caseId,
    timeoutMs: Number(process.env.DEMO_CHARGEBACK_TIMEOUT_MS || 180_000),
    onChange: (stage) => console.log(`  ${elapsed().padStart(5)}  ${stage}`),
  })
  if (row.status === "unmatched") {
    console.log(`The plugin could not match the case to an order: ${row.match_note}`)
    process.exit(1)
  }
  const documents = atProcessor.documents.map((d) => `${d.name} (${d.size} bytes)`).join(", ") || "none"
  console.log(
    `Case ${kase.caseId}: ${row.response_status}. At the processor (${processor.label}): ${atProcessor.where}; documents ${documents}.\n` +
      `See it on the order: ${medusaUrl}/app/orders/${order.id}`
  )
  process.exit(row.response_status === "represented" || row.response_status === "liability_accepted" ? 0 : 1)
} catch (error) {
  const refused = error.cause?.code === "ECONNREFUSED"
  console.error(`Could not raise the chargeback: ${refused ? `nothing answers at ${medusaUrl} or ${sandboxUrl}; is the demo running (npm run demo)?` : error.message}`)
  process.exit(1)
}
