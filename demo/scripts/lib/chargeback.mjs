// Sends a signed chargeback notification to the plugin's webhook, as a processor's dispute feed
// would: POST /hooks/servicescan/chargebacks with
//   x-servicescan-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
import { createHmac, randomBytes } from "node:crypto"

export const DEMO_WEBHOOK_SECRET = "whsec_servicescan_demo_0123456789"

export function signChargeback(body, secret = DEMO_WEBHOOK_SECRET, timestamp = Math.floor(Date.now() / 1000)) {
  const mac = createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")
  return `t=${timestamp},v1=${mac}`
}

/**
 * @param {{ medusaUrl: string, orderId: string, amount: string | number, currencyCode: string,
 *           reason?: string, reasonCode?: string, externalId?: string, secret?: string }} input
 * @returns {Promise<{ status: number, body: any, externalId: string }>}
 */
export async function sendChargeback(input) {
  const externalId = input.externalId ?? `dp_demo_${randomBytes(6).toString("hex")}`
  const body = JSON.stringify({
    external_id: externalId,
    order_id: input.orderId,
    amount: String(input.amount),
    currency_code: input.currencyCode,
    reason: input.reason ?? "Cardholder says they did not make this purchase",
    reason_code: input.reasonCode ?? "10.4",
    due_by: new Date(Date.now() + 10 * 24 * 3600 * 1000).toISOString(),
  })
  const res = await fetch(`${input.medusaUrl}/hooks/servicescan/chargebacks`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-servicescan-signature": signChargeback(body, input.secret) },
    body,
  })
  const text = await res.text()
  let parsed = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // keep the text
  }
  return { status: res.status, body: parsed, externalId }
}
