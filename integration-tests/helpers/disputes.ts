import type { MedusaContainer } from "@medusajs/framework/types"
import { importServiceScanDisputeCases } from "../../src/jobs/_run-dispute-case-import"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import type { DisputeCaseRow } from "../../src/modules/servicescan/types"
import type { ProcessorName } from "./processors"
import { sandboxFetch } from "./sandbox"

/**
 * The dispute side of each processor, for suites parameterised over
 * helpers/processors.ts `PROCESSORS`: how a dispute is raised and decided at
 * the sandbox, how it reaches the app (Worldpay: the case import reads it;
 * Adyen: the sandbox pushes it to the webhook), and what the processor holds
 * of our answer, counted in one vocabulary.
 */

/** Our answer as the processor holds it. */
export type AnswerAtProcessor = {
  /** Representments (Worldpay "Merchant Represent" activities; Adyen: the dispute's defense, at most one). */
  represents: number
  /** Acceptances of liability. */
  acceptances: number
  /** The documents on the case: Worldpay's by id, Adyen's by defense document type. */
  documents: { name: string; contentType: string; size: number }[]
  /** The defense reason Adyen was given (Worldpay has none). */
  defenseReason: string | null
}

export type DisputeDriver = {
  name: ProcessorName
  /** Raises a dispute on a payment (its processor id: cnpTxnId, pspReference); answers the case id. */
  raise(paymentId: string, options?: { replyBy?: string }): Promise<string>
  /** Brings the case into the app as the processor does, and waits for it to be stored. */
  bringIn(container: MedusaContainer, caseId: string): Promise<void>
  /** The card scheme decides for the merchant; brought in as `bringIn`. */
  decideWon(container: MedusaContainer, caseId: string): Promise<void>
  answer(caseId: string): Promise<AnswerAtProcessor>
}

type WorldpayCase = {
  activities: { activityType: string }[]
  documents: { documentId: string; contentType: string; size: number }[]
}

type AdyenDispute = {
  defense: { defenseReasonCode: string } | null
  acceptedAt: string | null
  documents: { defenseDocumentTypeCode: string; contentType: string; size: number }[]
}

const WORLDPAY_DISPUTES: DisputeDriver = {
  name: "worldpay",
  async raise(paymentId, options = {}) {
    const { status, body } = await sandboxFetch<{ caseId: string }>("/__sandbox/chargebacks", {
      body: { cnpTxnId: paymentId, ...(options.replyBy ? { replyBy: options.replyBy } : {}) },
    })
    if (status !== 201) throw new Error(`raising a Worldpay case answered ${status}`)
    return body.caseId
  },
  async bringIn(container) {
    await importServiceScanDisputeCases(container)
  },
  async decideWon(container, caseId) {
    await sandboxFetch(`/__sandbox/chargebacks/${caseId}/decide`, { body: { outcome: "won" } })
    await importServiceScanDisputeCases(container)
  },
  async answer(caseId) {
    const { body } = await sandboxFetch<WorldpayCase>(`/__sandbox/chargebacks/${caseId}`)
    return {
      represents: body.activities.filter((a) => a.activityType === "Merchant Represent").length,
      acceptances: body.activities.filter((a) => a.activityType === "Merchant Accepts Liability").length,
      documents: body.documents.map((d) => ({ name: d.documentId, contentType: d.contentType, size: d.size })),
      defenseReason: null,
    }
  },
}

/** Waits until `done` holds (the webhook's work runs after its answer, in a subscriber). */
export async function eventually(done: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** The stored case of a processor case id, if any. */
export async function storedCase(container: MedusaContainer, caseId: string): Promise<DisputeCaseRow | undefined> {
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const [row] = (await service.listDisputeCases({ case_id: caseId }, { take: 1 })) as DisputeCaseRow[]
  return row
}

type Notification = { id: string; eventCode: string; status: string; pspReference: string; /** The body as sent, signed. */ body: unknown }

/** The sandbox's notifications about a dispute (its outbox). */
export async function adyenNotifications(pspReference: string): Promise<Notification[]> {
  return (await sandboxFetch<{ items: Notification[] }>(`/__sandbox/adyen/notifications?pspReference=${pspReference}`)).body.items
}

/** Waits until the sandbox delivered every notification about the dispute (answered 2xx). */
async function delivered(pspReference: string, eventCode?: string): Promise<void> {
  await eventually(async () => {
    const items = (await adyenNotifications(pspReference)).filter((n) => !eventCode || n.eventCode === eventCode)
    return items.length > 0 && items.every((n) => n.status === "delivered")
  }, `the sandbox's ${eventCode ?? "dispute"} notifications for ${pspReference} to be delivered`)
}

/**
 * Waits until the app applied every notification the sandbox delivered about the dispute: the
 * webhook answered once the items were stored, and the case follows from them in a subscriber.
 */
async function applied(container: MedusaContainer, pspReference: string): Promise<void> {
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const sent = new Set((await adyenNotifications(pspReference)).map((n) => n.eventCode))
  await eventually(async () => {
    const stored = await service.listProcessorEvents({ gateway: "adyen", case_id: pspReference }, { take: null })
    return stored.length >= sent.size && stored.every((event) => event.processed_at !== null)
  }, `the app to apply the notifications about ${pspReference}`)
}

const ADYEN_DISPUTES: DisputeDriver = {
  name: "adyen",
  async raise(paymentId, options = {}) {
    const { status, body } = await sandboxFetch<{ pspReference: string }>("/__sandbox/adyen/disputes", {
      body: {
        paymentPspReference: paymentId,
        ...(options.replyBy ? { defensePeriodEndsAt: `${options.replyBy}T23:59:59+00:00` } : {}),
      },
    })
    if (status !== 201) throw new Error(`raising an Adyen dispute answered ${status}`)
    return body.pspReference
  },
  async bringIn(container, caseId) {
    await delivered(caseId)
    await applied(container, caseId)
  },
  async decideWon(container, caseId) {
    await sandboxFetch(`/__sandbox/adyen/disputes/${caseId}/decide`, { body: { outcome: "won" } })
    await delivered(caseId, "CHARGEBACK_REVERSED")
    await applied(container, caseId)
  },
  async answer(caseId) {
    const { body } = await sandboxFetch<AdyenDispute>(`/__sandbox/adyen/disputes/${caseId}`)
    return {
      represents: body.defense ? 1 : 0,
      acceptances: body.acceptedAt ? 1 : 0,
      documents: body.documents.map((d) => ({ name: d.defenseDocumentTypeCode, contentType: d.contentType, size: d.size })),
      defenseReason: body.defense?.defenseReasonCode ?? null,
    }
  },
}

/** The dispute side of each processor, by name. */
export const DISPUTE_DRIVERS: Readonly<Record<ProcessorName, DisputeDriver>> = {
  worldpay: WORLDPAY_DISPUTES,
  adyen: ADYEN_DISPUTES,
}

/** Points the sandbox's demo Adyen merchant's notifications at the app under test. */
export async function pointAdyenWebhookAt(appUrl: string): Promise<void> {
  const { status } = await sandboxFetch("/__sandbox/adyen/merchants/ServiceScanDemoECOM", {
    body: { webhookUrl: `${appUrl.replace(/\/+$/, "")}/hooks/servicescan/adyen` },
  })
  if (status !== 200) throw new Error(`setting the Adyen webhook URL answered ${status}`)
}
