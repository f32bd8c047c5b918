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

/**
 * The demo storefront's `POST /demo/chargeback`: the page's "Try a dispute" button asks the
 * storefront's server to play the card network, because the signing secret must stay server-side.
 * It is a signing oracle, so it only answers the storefront's own page:
 * - an `Origin` header naming this storefront (browsers send one with every POST; a request
 *   without one, or from another site, is refused), and a JSON content type (so another site's
 *   page cannot post it without a CORS preflight, which this server never grants);
 * - a JSON body `{ order_id, amount, currency_code }`; a body that is not JSON is a 400 that says
 *   so, never a 500 carrying the parser's message.
 * The plugin's webhook then checks the rest (the order exists, the amount fits its total).
 *
 * @param {{ method: string, headers: Record<string, string | string[] | undefined>, rawBody: string,
 *           port: number, medusaUrl: string, secret?: string }} request
 * @returns {Promise<{ status: number, body: Record<string, unknown> }>}
 */
export async function handleDemoChargeback({ headers, rawBody, port, medusaUrl, secret }) {
  const origin = typeof headers.origin === "string" ? headers.origin : undefined
  const ownOrigins = [`http://localhost:${port}`, `http://127.0.0.1:${port}`]
  if (!origin || !ownOrigins.includes(origin)) {
    return { status: 403, body: { message: "Only the demo storefront's own page may send a chargeback (Origin must be the storefront)" } }
  }
  const type = String(headers["content-type"] ?? "").split(";")[0].trim().toLowerCase()
  if (type !== "application/json") {
    return { status: 415, body: { message: "The body must be JSON (Content-Type: application/json)" } }
  }
  let body
  try {
    body = JSON.parse(rawBody || "{}")
  } catch {
    return { status: 400, body: { message: 'The body is not valid JSON; send {"order_id":"order_…","amount":"10.50","currency_code":"usd"}' } }
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    return { status: 400, body: { message: "The body must be a JSON object with order_id, amount and currency_code" } }
  }
  if (typeof body.order_id !== "string" || !/^order_[A-Za-z0-9]{1,64}$/.test(body.order_id)) {
    return { status: 400, body: { message: "order_id must be an order id (order_…)" } }
  }
  const amount = typeof body.amount === "number" ? String(body.amount) : body.amount
  if (typeof amount !== "string" || !/^\d{1,13}(\.\d{1,4})?$/.test(amount)) {
    return { status: 400, body: { message: 'amount must be a positive decimal number, e.g. "10.50"' } }
  }
  if (typeof body.currency_code !== "string" || !/^[A-Za-z]{3}$/.test(body.currency_code)) {
    return { status: 400, body: { message: 'currency_code must be an ISO 4217 code, e.g. "usd"' } }
  }
  let result
  try {
    result = await sendChargeback({ medusaUrl, orderId: body.order_id, amount, currencyCode: body.currency_code, secret })
  } catch {
    return { status: 502, body: { message: "Medusa did not answer the webhook; is it running?" } }
  }
  if (result.status !== 200) {
    const message = typeof result.body === "object" && result.body && typeof result.body.message === "string" ? result.body.message : `HTTP ${result.status}`
    // The webhook's 4xx is the caller's mistake (an unknown order, an amount above its total): pass it on.
    return { status: result.status >= 400 && result.status < 500 ? result.status : 502, body: { message: `The webhook refused the chargeback: ${message}` } }
  }
  return { status: 200, body: { ...result.body, external_id: result.externalId } }
}
