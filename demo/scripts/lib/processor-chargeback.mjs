// The evidence loop in the demo: a chargeback raised where a real one lands, at the processor.
// The sandbox plays both processors; its control API opens a case on the order's payment, exactly
// as the card network would (processors.mjs: Worldpay by cnpTxnId, Adyen by pspReference). Nothing
// is sent to Medusa by this script: Worldpay's case is found by the plugin's case import job at the
// sandbox's Chargeback API, Adyen's dispute arrives as a signed notification the sandbox pushes to
// /hooks/servicescan/adyen. Either way the plugin matches it to the order, asks ServiceScan for
// proof, and the `autoRespond` policy of the demo's config (represent-valid) sends the evidence
// pack and represents (Worldpay) or defends (Adyen) the case.
import { processorOfProvider } from "./processors.mjs"
import { requestJson as call, answerMessage as messageOf } from "./util.mjs"

/** What the demo's admin sees while a case moves, in order. */
const FINAL_RESPONSES = ["represented", "liability_accepted", "expired"]

/** The demo admin's bearer token. */
export async function adminLogin({ medusaUrl, email, password }) {
  const res = await call(`${medusaUrl}/auth/user/emailpass`, { method: "POST", body: { email, password } })
  if (res.status !== 200 || !res.body?.token) throw new Error(`logging in as the demo admin (${email}) answered ${res.status}: ${messageOf(res)}`)
  return res.body.token
}

/**
 * An order with its ServiceScan payment's processor transaction id (`cnp_txn_id` in the payment's
 * data): by its id, or by its number (`display_id`), else the newest order.
 */
export async function findOrderToDispute({ medusaUrl, token, displayId, orderId }) {
  const fields = "id,display_id,email,total,currency_code,created_at,*payment_collections.payments"
  let order
  if (orderId !== undefined) {
    const res = await call(`${medusaUrl}/admin/orders/${encodeURIComponent(orderId)}?fields=${fields}`, { token })
    if (res.status !== 200) throw new Error(`reading order ${orderId} answered ${res.status}: ${messageOf(res)}`)
    order = res.body.order
  } else {
    const search = displayId === undefined ? "order=-created_at&limit=1" : `q=${encodeURIComponent(String(displayId))}&limit=50`
    const res = await call(`${medusaUrl}/admin/orders?${search}&fields=${fields}`, { token })
    if (res.status !== 200) throw new Error(`listing orders answered ${res.status}: ${messageOf(res)}`)
    const orders = res.body.orders ?? []
    order = displayId === undefined ? orders[0] : orders.find((o) => String(o.display_id) === String(displayId))
  }
  if (!order) {
    throw new Error(displayId === undefined ? "the store has no order yet: pay for something on the storefront first" : `there is no order #${displayId}`)
  }
  const payments = (order.payment_collections ?? []).flatMap((c) => c.payments ?? [])
  // `cnp_txn_id` holds the processor's id of the payment whichever the processor (Adyen: its pspReference).
  const payment = payments.find((p) => processorOfProvider(p.provider_id) && typeof p.data?.cnp_txn_id === "string" && p.data.cnp_txn_id !== "")
  if (!payment) {
    throw new Error(`order #${order.display_id} was not paid through ServiceScan at a processor (no payment holds a processor transaction id), so no chargeback can land on it`)
  }
  return { order, payment, processor: processorOfProvider(payment.provider_id), transactionId: payment.data.cnp_txn_id, scanId: payment.data.scan_id ?? null }
}

/**
 * Follows a case through the plugin's admin API until our answer is final (represented, liability
 * accepted, expired) or `timeoutMs` passes. `onChange` hears each new stage, e.g. "imported",
 * "evidence_pending", "evidence_ready", "represented". Answers the stages seen, the plugin's case
 * and the case as the processor (`processor`, from processors.mjs) holds it.
 */
export async function followCase({ medusaUrl, sandboxUrl, processor, token, caseId, timeoutMs = 120_000, onChange = () => {} }) {
  const deadline = Date.now() + timeoutMs
  const stages = []
  const note = (stage) => {
    if (stage && stages.at(-1) !== stage) {
      stages.push(stage)
      onChange(stage)
    }
  }
  for (;;) {
    const list = await call(`${medusaUrl}/admin/servicescan/cases?q=${encodeURIComponent(caseId)}`, { token })
    if (list.status !== 200) throw new Error(`GET /admin/servicescan/cases answered ${list.status}: ${messageOf(list)}`)
    const row = (list.body.items ?? []).find((item) => item.case_id === caseId)
    if (row) {
      if (!stages.length) note(row.status === "unmatched" ? "unmatched" : "imported")
      if (row.response_status !== "none") {
        note(row.response_status)
      } else if (row.chargeback_id) {
        const chargeback = await call(`${medusaUrl}/admin/servicescan/chargebacks/${row.chargeback_id}`, { token })
        if (chargeback.status === 200) note(chargeback.body.chargeback.status)
      }
      if (row.status === "unmatched" || FINAL_RESPONSES.includes(row.response_status)) {
        return { stages, row, atProcessor: await processor.read({ sandboxUrl, caseId }) }
      }
    }
    if (Date.now() > deadline) {
      const where = stages.length ? `it got as far as ${stages.join(" → ")}` : "the case import job has not brought it in"
      throw new Error(`case ${caseId} was not answered within ${Math.round(timeoutMs / 1000)} s: ${where}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 1000))
  }
}
