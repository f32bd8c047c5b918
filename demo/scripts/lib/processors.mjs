// The two processors the demo store pays through, side by side (demo/medusa-config.ts registers a
// ServiceScan provider for each), and what the demo's scripts need to know of each: which provider
// pays, which sandbox routes count its calls, and how a chargeback is raised there and read back.
// DEMO_PROCESSOR (worldpay, the default, or adyen) picks the one the storefront pays through.
//
// Where the two differ is the point of the demo: Worldpay's cases sit in its Chargeback API until
// the plugin's case import job polls them; Adyen pushes a dispute as a signed notification to
// /hooks/servicescan/adyen. Either way the plugin proves it with the scan and represents it.

/**
 * @typedef {{
 *   name: "worldpay" | "adyen",
 *   label: string,
 *   providerId: string,
 *   paymentRoutes: { authorize: string },
 *   disputeDelivery: string,
 *   raise: (input: { sandboxUrl: string, transactionId: string, reasonCode?: string, amount?: number }) => Promise<RaisedCase>,
 *   read: (input: { sandboxUrl: string, caseId: string }) => Promise<ProcessorCase>,
 *   moves: (input: { sandboxUrl: string, transactionId: string }) => Promise<string[]>,
 * }} DemoProcessor
 * @typedef {{ caseId: string, reasonCode: string, reason: string, amount: number, currency: string, replyBy: string }} RaisedCase
 * @typedef {{ where: string, answered: boolean, defenses: number, documents: { name: string, size: number, contentType: string }[] }} ProcessorCase
 */
import { answerMessage as messageOf, requestJson as call } from "./util.mjs"

/** @type {DemoProcessor} */
const worldpay = {
  name: "worldpay",
  label: "Worldpay",
  providerId: "pp_servicescan_servicescan",
  // The sandbox's route name (`GET /__sandbox/stats`) of its authorizations.
  paymentRoutes: { authorize: "cnp.online" },
  disputeDelivery: "imported by the case import job (polled)",
  async raise({ sandboxUrl, transactionId, reasonCode, amount }) {
    const res = await call(`${sandboxUrl}/__sandbox/chargebacks`, {
      method: "POST",
      body: { cnpTxnId: transactionId, ...(reasonCode ? { reasonCode } : {}), ...(amount !== undefined ? { amount } : {}) },
    })
    if (res.status !== 201) throw new Error(`the sandbox's Worldpay refused to raise the case (${res.status}): ${messageOf(res)}`)
    const kase = res.body
    return {
      caseId: kase.caseId,
      reasonCode: kase.reasonCode,
      reason: `${kase.cycle}, ${kase.reasonCodeDescription}`,
      amount: kase.chargebackAmount,
      currency: kase.chargebackCurrencyType,
      replyBy: kase.replyByDay,
    }
  },
  async read({ sandboxUrl, caseId }) {
    const res = await call(`${sandboxUrl}/__sandbox/chargebacks/${encodeURIComponent(caseId)}`)
    if (res.status !== 200) throw new Error(`reading case ${caseId} at the sandbox answered ${res.status}: ${messageOf(res)}`)
    const kase = res.body
    return {
      where: `queue ${kase.currentQueue}; activities ${kase.activities.map((a) => a.activityType).join(" ← ")}`,
      answered: kase.currentQueue !== "Merchant",
      defenses: kase.activities.filter((a) => a.activityType === "Merchant Represent").length,
      documents: kase.documents.map((d) => ({ name: d.documentId, size: d.size, contentType: d.contentType })),
    }
  },
  async moves({ sandboxUrl, transactionId }) {
    const { body } = await call(`${sandboxUrl}/__sandbox/processor/transactions`)
    const ids = new Set([transactionId])
    const kinds = []
    for (const t of body.items) {
      if (t.source !== "http" || t.duplicate) continue
      if (ids.has(t.cnpTxnId) || ids.has(t.originalCnpTxnId)) {
        ids.add(t.cnpTxnId)
        kinds.push(t.type === "credit" ? `refund ${t.amount}` : `${t.type}${t.amount == null ? "" : ` ${t.amount}`}`)
      }
    }
    return kinds
  },
}

/** @type {DemoProcessor} */
const adyen = {
  name: "adyen",
  label: "Adyen",
  providerId: "pp_servicescan_adyen",
  paymentRoutes: { authorize: "adyen.payments" },
  disputeDelivery: "pushed by a signed webhook to /hooks/servicescan/adyen",
  async raise({ sandboxUrl, transactionId, reasonCode, amount }) {
    const res = await call(`${sandboxUrl}/__sandbox/adyen/disputes`, {
      method: "POST",
      body: { paymentPspReference: transactionId, ...(reasonCode ? { reasonCode } : {}), ...(amount !== undefined ? { amount } : {}) },
    })
    if (res.status !== 201) throw new Error(`the sandbox's Adyen refused to raise the dispute (${res.status}): ${messageOf(res)}`)
    const dispute = res.body
    return {
      caseId: dispute.pspReference,
      reasonCode: dispute.reasonCode,
      reason: dispute.reason,
      amount: dispute.amount.value,
      currency: dispute.amount.currency,
      replyBy: dispute.defensePeriodEndsAt,
    }
  },
  async read({ sandboxUrl, caseId }) {
    const res = await call(`${sandboxUrl}/__sandbox/adyen/disputes/${encodeURIComponent(caseId)}`)
    if (res.status !== 200) throw new Error(`reading dispute ${caseId} at the sandbox answered ${res.status}: ${messageOf(res)}`)
    const dispute = res.body
    return {
      where: `status ${dispute.status}; notifications ${dispute.events.map((e) => e.eventCode).join(", ")}${dispute.defense ? `; defended with ${dispute.defense.defenseReasonCode}` : ""}`,
      answered: dispute.defense !== null || dispute.acceptedAt !== null,
      defenses: dispute.defense ? 1 : 0,
      documents: dispute.documents.map((d) => ({ name: `${d.defenseDocumentTypeCode} (${d.name})`, size: d.size, contentType: d.contentType })),
    }
  },
  async moves({ sandboxUrl, transactionId }) {
    const { body } = await call(`${sandboxUrl}/__sandbox/adyen/transactions`)
    return body.items
      .filter((t) => t.pspReference === transactionId || t.paymentPspReference === transactionId)
      .map((t) => `${t.type}${t.amount ? ` ${t.amount.value}` : ""}${t.replays ? ` (${t.replays} replays)` : ""}`)
  },
}

/** Both, in the order `npm run demo:smoke` runs them. */
export const DEMO_PROCESSORS = [worldpay, adyen]

/** The processor of a ServiceScan provider id, or undefined. */
export const processorOfProvider = (providerId) => DEMO_PROCESSORS.find((p) => p.providerId === providerId)

/**
 * The processor DEMO_PROCESSOR names (default Worldpay); a misspelt name stops the demo with the choices.
 * @param {string | undefined} value
 * @returns {DemoProcessor}
 */
export function chosenProcessor(value = process.env.DEMO_PROCESSOR) {
  const name = (value ?? "").trim().toLowerCase() || "worldpay"
  const found = DEMO_PROCESSORS.find((p) => p.name === name)
  if (!found) throw Object.assign(new Error(`DEMO_PROCESSOR must be ${DEMO_PROCESSORS.map((p) => p.name).join(" or ")}, got "${value}"`), { expected: true })
  return found
}
