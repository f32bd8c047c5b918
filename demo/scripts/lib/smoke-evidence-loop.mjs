// The smoke test's evidence loop check: a chargeback raised at the processor on the smoke
// checkout's order must come back into the plugin by itself (Worldpay: the case import job, every
// few seconds in the demo; Adyen: the signed notification the sandbox pushes to
// /hooks/servicescan/adyen), be proven with the order's scan, and be represented by the demo's
// `autoRespond: "represent-valid"`, with exactly one evidence document and one defense counted at
// the processor.
import { findOrderToDispute, followCase } from "./processor-chargeback.mjs"

function assert(condition, message) {
  if (!condition) throw new Error(message)
}

/** @returns {Promise<string>} the step's detail line (it contains "represented"). */
export async function checkEvidenceLoop({ urls, sandbox, token, order, processor }) {
  const found = await findOrderToDispute({ medusaUrl: urls.medusa, token, orderId: order.id })
  const { transactionId, scanId } = found
  assert(found.processor === processor, `the order was paid through ${found.processor.label}, not ${processor.label}`)
  assert(scanId, "the checkout's payment has no scan id")
  // A card-absent fraud reason: the one a card scan answers (Mastercard's 4837; Adyen: the brand's default).
  const kase = await processor.raise({ sandboxUrl: sandbox.url, transactionId, reasonCode: processor.name === "worldpay" ? "4837" : undefined })
  const { stages, row, atProcessor } = await followCase({
    medusaUrl: urls.medusa,
    sandboxUrl: sandbox.url,
    processor,
    token,
    caseId: kase.caseId,
    timeoutMs: 120_000,
  })
  assert(row.status === "matched" && row.order_id === order.id, `the case was not matched to order ${order.id}: ${row.status} ${row.order_id ?? row.match_note}`)
  assert(row.response_status === "represented", `the case ended ${row.response_status}${row.response_error ? ` (${row.response_error})` : ""}, not represented`)
  assert(atProcessor.defenses === 1, `the processor shows ${atProcessor.defenses} defenses (expected 1): ${atProcessor.where}`)
  assert(
    atProcessor.documents.length === 1 && atProcessor.documents[0].contentType === "application/pdf",
    `the processor holds ${JSON.stringify(atProcessor.documents.map((d) => d.name))} (expected one PDF evidence pack)`
  )
  assert(atProcessor.answered, `the case is still waiting for the merchant at the processor: ${atProcessor.where}`)
  // The proof request that went out for this case carried the payment's scan.
  const proofs = await (await fetch(`${sandbox.url}/__sandbox/proof-requests`)).json()
  assert(
    proofs.items.some((p) => p.scanIds.map((id) => id.toLowerCase()).includes(scanId.toLowerCase())),
    "no proof request at ServiceScan carries the payment's scan"
  )
  const document = atProcessor.documents[0]
  return `${processor.label} case ${kase.caseId} on order #${found.order.display_id}, ${processor.disputeDelivery}: ${stages.join(" → ")}; the processor holds ${document.name} (${document.size} bytes), ${atProcessor.where}`
}
