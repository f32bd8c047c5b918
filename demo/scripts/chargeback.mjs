#!/usr/bin/env node
// Plays the card network: sends a signed chargeback for an order of the running demo to the
// plugin's webhook, POST /hooks/servicescan/chargebacks (see demo/README.md for the raw curl).
//
//   node demo/scripts/chargeback.mjs <order id> [--amount 10.50] [--currency usd] [--reason "…"] [--id dp_123]
//
// Without --amount, it logs in as the demo admin and charges back the order's whole total.
import { parseArgs } from "node:util"
import { sendChargeback } from "./lib/chargeback.mjs"

const USAGE = "Usage: node demo/scripts/chargeback.mjs <order id> [--amount 10.50] [--currency usd] [--reason text] [--id external id]"
let parsed
try {
  parsed = parseArgs({
    allowPositionals: true,
    options: {
      amount: { type: "string" },
      currency: { type: "string" },
      reason: { type: "string" },
      id: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  })
} catch (error) {
  console.error(`${error.message}\n${USAGE}`)
  process.exit(2)
}
const { values, positionals } = parsed
if (values.help || positionals.length !== 1) {
  console.log(USAGE)
  process.exit(values.help ? 0 : 2)
}
const orderId = positionals[0]
const medusaUrl = process.env.DEMO_MEDUSA_URL || `http://localhost:${process.env.DEMO_MEDUSA_PORT || 9000}`

let amount = values.amount
let currency = values.currency
try {
  if (amount === undefined || currency === undefined) {
    const login = await fetch(`${medusaUrl}/auth/user/emailpass`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        email: process.env.DEMO_ADMIN_EMAIL || "admin@servicescan.test",
        password: process.env.DEMO_ADMIN_PASSWORD || "servicescan-demo",
      }),
    })
    if (!login.ok) throw new Error(`logging in as the demo admin failed (${login.status}); pass --amount and --currency`)
    const { token } = await login.json()
    const res = await fetch(`${medusaUrl}/admin/orders/${encodeURIComponent(orderId)}?fields=id,total,currency_code`, {
      headers: { authorization: `Bearer ${token}` },
    })
    if (res.status === 404) throw new Error(`there is no order ${orderId}`)
    if (!res.ok) throw new Error(`reading the order failed (${res.status})`)
    const { order } = await res.json()
    amount ??= String(order.total)
    currency ??= order.currency_code
  }
  const result = await sendChargeback({ medusaUrl, orderId, amount, currencyCode: currency, reason: values.reason, externalId: values.id })
  if (result.status !== 200) {
    console.error(`The webhook answered ${result.status}: ${JSON.stringify(result.body)}`)
    process.exit(1)
  }
  const { chargeback_id: id, created } = result.body
  console.log(
    created
      ? `Chargeback ${id} recorded (external id ${result.externalId}, ${amount} ${currency.toUpperCase()}).\n` +
          `ServiceScan is asked for proof now; the evidence shows on the order in about 20 s:\n  ${medusaUrl}/app/orders/${orderId}`
      : `Chargeback ${id} already existed for external id ${result.externalId}: nothing changed.`
  )
} catch (error) {
  console.error(`Could not send the chargeback: ${error.cause?.code === "ECONNREFUSED" ? `nothing answers at ${medusaUrl}; is the demo running?` : error.message}`)
  process.exit(1)
}
