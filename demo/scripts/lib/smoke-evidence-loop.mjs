// The smoke test's evidence loop check: a chargeback raised at the processor (the sandbox's
// Worldpay) on the smoke checkout's order must come back into the plugin by itself (the case import
// job, every few seconds in the demo), be proven with the order's scan, and be represented by the
// demo's `autoRespond: "represent-valid"`, with exactly one evidence document and one representment
// counted at the processor.
import { findOrderToDispute, followCase, raiseProcessorChargeback } from "./processor-chargeback.mjs"

function assert(condition, message) {
  if (!condition) throw new Error(message)
}

/** @returns {Promise<string>} the step's detail line (it contains "represented"). */
export async function checkEvidenceLoop({ urls, sandbox, token, order }) {
  const found = await findOrderToDispute({ medusaUrl: urls.medusa, token, orderId: order.id })
  const { cnpTxnId, scanId } = found
  assert(scanId, "the checkout's payment has no scan id")
  const kase = await raiseProcessorChargeback({ sandboxUrl: sandbox.url, cnpTxnId, reasonCode: "4837" })
  const { stages, row, processor } = await followCase({
    medusaUrl: urls.medusa,
    sandboxUrl: sandbox.url,
    token,
    caseId: kase.caseId,
    timeoutMs: 120_000,
  })
  assert(row.status === "matched" && row.order_id === order.id, `the case was not matched to order ${order.id}: ${row.status} ${row.order_id ?? row.match_note}`)
  assert(row.response_status === "represented", `the case ended ${row.response_status}${row.response_error ? ` (${row.response_error})` : ""}, not represented`)
  const documentId = `servicescan-evidence-${kase.caseId}.pdf`
  const represents = processor.activities.filter((a) => a.activityType === "Merchant Represent")
  assert(represents.length === 1, `the processor shows ${represents.length} Merchant Represent activities (expected 1)`)
  assert(
    processor.documents.length === 1 && processor.documents[0].documentId === documentId && processor.documents[0].contentType === "application/pdf",
    `the processor holds ${JSON.stringify(processor.documents.map((d) => d.documentId))} (expected ${documentId})`
  )
  assert(processor.currentQueue !== "Merchant", "the case is still in the merchant's queue at the processor")
  // The proof request that went out for this case carried the payment's scan.
  const proofs = await (await fetch(`${sandbox.url}/__sandbox/proof-requests`)).json()
  assert(
    proofs.items.some((p) => p.scanIds.map((id) => id.toLowerCase()).includes(scanId.toLowerCase())),
    "no proof request at ServiceScan carries the payment's scan"
  )
  return `case ${kase.caseId} raised at the processor on order #${found.order.display_id}: ${stages.join(" → ")}; the processor holds ${documentId} (${processor.documents[0].size} bytes) and one Merchant Represent, queue ${processor.currentQueue}`
}
