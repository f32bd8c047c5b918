import type { CreateNotificationDTO } from "@medusajs/framework/types"
import type { ResolvedServiceScanModuleOptions } from "../../modules/servicescan/options"
import {
  CaseDecidedEvent,
  CaseDueSoonEvent,
  CaseNeedsAttentionEvent,
  PaymentOperationFailedEvent,
  ServiceScanEvents,
} from "../../modules/servicescan/types"

/** One of the three dispute case alert events, with its payload. */
export type DisputeCaseAlertEvent =
  | { name: typeof ServiceScanEvents.CASE_NEEDS_ATTENTION; data: CaseNeedsAttentionEvent }
  | { name: typeof ServiceScanEvents.CASE_DUE_SOON; data: CaseDueSoonEvent }
  | { name: typeof ServiceScanEvents.CASE_DECIDED; data: CaseDecidedEvent }

/** An event the alerts send: a dispute case's, or a payment operation the processor failed later. */
export type CaseAlertEvent =
  | DisputeCaseAlertEvent
  | { name: typeof ServiceScanEvents.PAYMENT_OPERATION_FAILED; data: PaymentOperationFailedEvent }

/**
 * What a failed operation's email template receives as `data`: ids and the
 * processor's words only (no card data, no amount, no secret). The same
 * `title` and `description` are the feed's.
 */
export type PaymentOperationFailedAlertData = {
  event: typeof ServiceScanEvents.PAYMENT_OPERATION_FAILED
  title: string
  description: string
  operation: PaymentOperationFailedEvent["operation"]
  transaction_id: string
  payment_transaction_id: string
  payment_id: string | null
  order_id: string | null
  order_display_id: number | null
  reason: string | null
  occurred_at: string
}

/**
 * What an alert's email template receives as `data` (docs/disputes.md: Alerts).
 * Ids, days and words only: no card data (no last four, no card type), no
 * amount, no secret. The same `title` and `description` are the feed's.
 */
export type CaseAlertData = {
  event: DisputeCaseAlertEvent["name"]
  title: string
  description: string
  gateway: string | null
  case_id: string | null
  chargeback_id: string | null
  order_id: string | null
  /** The order's number as the admin shows it (`#12`), when the order is known. */
  order_display_id: number | null
  reply_by: string | null
  days_left: number | null
  reason: CaseNeedsAttentionEvent["reason"] | null
  outcome: CaseDecidedEvent["outcome"] | null
}

/** The template Medusa's admin feed renders (`data.title`, `data.description`): its notification drawer reads only those. */
export const FEED_TEMPLATE = "admin-ui"

/** "worldpay" → "Worldpay": the processor as a sentence names it. */
function processorName(gateway: string | null): string {
  return gateway ? gateway.charAt(0).toUpperCase() + gateway.slice(1) : "The processor"
}

function days(n: number): string {
  return n === 0 ? "today" : n === 1 ? "in 1 day" : `in ${n} days`
}

/** The alert's words and fields, without a channel. */
export function caseAlertData(event: DisputeCaseAlertEvent, orderDisplayId: number | null): CaseAlertData {
  const order = orderDisplayId !== null ? `order #${orderDisplayId}` : event.data.order_id ? `order ${event.data.order_id}` : null
  const base = {
    event: event.name,
    gateway: event.data.gateway,
    case_id: event.data.case_id,
    order_id: event.data.order_id,
    order_display_id: orderDisplayId,
    reply_by: null,
    days_left: null,
    reason: null,
    outcome: null,
  }
  switch (event.name) {
    case ServiceScanEvents.CASE_NEEDS_ATTENTION: {
      const { data } = event
      const caseName = `${processorName(data.gateway)} case ${data.case_id}`
      const by = data.reply_by ? ` before ${data.reply_by}` : ""
      const [title, description] =
        data.reason === "unmatched"
          ? [
              "Chargeback case needs an order",
              `${caseName} matches no payment of this store. Assign it to its order under Disputes, Unmatched cases${by}.`,
            ]
          : data.reason === "auto_respond_off"
            ? [
                "Chargeback case needs an answer",
                `${caseName} on ${order ?? "an order"} has its evidence. Send it or accept liability under Disputes${by}: automatic answers are off.`,
              ]
            : [
                "Chargeback case needs a decision",
                `${caseName} on ${order ?? "an order"}: no scan was judged valid, so it is not answered automatically. Decide under Disputes${by}.`,
              ]
      return { ...base, title, description, chargeback_id: data.chargeback_id, reply_by: data.reply_by, reason: data.reason }
    }
    case ServiceScanEvents.CASE_DUE_SOON: {
      const { data } = event
      return {
        ...base,
        title: `Chargeback case due ${days(data.days_left)}`,
        description: `${processorName(data.gateway)} case ${data.case_id}${order ? ` on ${order}` : ", not matched to an order,"} waits for an answer by ${data.reply_by}.`,
        chargeback_id: data.chargeback_id,
        reply_by: data.reply_by,
        days_left: data.days_left,
      }
    }
    case ServiceScanEvents.CASE_DECIDED: {
      const { data } = event
      const subject = data.case_id ? `${processorName(data.gateway)} case ${data.case_id}` : "The chargeback"
      const verdict =
        data.outcome === "won" ? "was won" : data.outcome === "lost" ? "was lost" : "was closed"
      return {
        ...base,
        title: `Chargeback ${data.outcome}`,
        description: `${subject}${order ? ` on ${order}` : ""} ${verdict}${data.decided_by === "admin" ? " (set by an admin)" : ""}.`,
        chargeback_id: data.id,
        outcome: data.outcome,
      }
    }
  }
}

const OPERATION_NAMES: Readonly<Record<PaymentOperationFailedEvent["operation"], string>> = {
  capture: "capture",
  refund: "refund",
  cancel: "cancel",
}

/** A failed operation's words and fields, without a channel. */
export function paymentOperationFailedAlertData(event: PaymentOperationFailedEvent, orderDisplayId: number | null): PaymentOperationFailedAlertData {
  const name = OPERATION_NAMES[event.operation]
  const subject = orderDisplayId !== null ? `order #${orderDisplayId}` : event.order_id ? `order ${event.order_id}` : null
  const whose = event.payment_id
    ? `of payment ${event.payment_id}${subject ? ` on ${subject}` : ""}`
    : `of processor payment ${event.payment_transaction_id}, which no payment of this store records,`
  return {
    event: ServiceScanEvents.PAYMENT_OPERATION_FAILED,
    title: `${name.charAt(0).toUpperCase()}${name.slice(1)} failed at the processor`,
    description:
      `The processor failed the ${name} ${event.id} ${whose} after accepting it${event.reason ? ` (${event.reason})` : ""}. ` +
      "Medusa still records it: check the payment at the processor and correct the order.",
    operation: event.operation,
    transaction_id: event.id,
    payment_transaction_id: event.payment_transaction_id,
    payment_id: event.payment_id,
    order_id: event.order_id,
    order_display_id: orderDisplayId,
    reason: event.reason,
    occurred_at: event.occurred_at,
  }
}

/** What makes one alert one alert, whichever process and however often its event is delivered. */
export function caseAlertKey(event: CaseAlertEvent): string {
  switch (event.name) {
    case ServiceScanEvents.PAYMENT_OPERATION_FAILED:
      // One per operation: a success turns into a failure once, and a failure is final.
      return `servicescan:payment_operation.failed:${event.data.id}`
    case ServiceScanEvents.CASE_NEEDS_ATTENTION:
      return `servicescan:case.needs_attention:${event.data.id}:${event.data.reason}`
    case ServiceScanEvents.CASE_DUE_SOON:
      return `servicescan:case.due_soon:${event.data.id}`
    case ServiceScanEvents.CASE_DECIDED:
      return `servicescan:case.decided:${event.data.id}:${event.data.outcome}`
  }
}

/**
 * The notifications of one alert event: one on the `feed` channel (the
 * admin's bell: every admin sees a notification sent `to` ""), unless the
 * `alerts.feed` option is false, and one per `alerts.emailTo` address on the
 * `email` channel when `alerts.emailTemplate` names a template. Each carries
 * an idempotency key of the alert and the channel (and the address), so a
 * repeated event sends nothing twice.
 */
export function caseAlertNotifications(
  event: CaseAlertEvent,
  settings: ResolvedServiceScanModuleOptions["alerts"],
  orderDisplayId: number | null
): CreateNotificationDTO[] {
  let data: CaseAlertData | PaymentOperationFailedAlertData
  let resource: { resource_type: string; resource_id: string }
  if (event.name === ServiceScanEvents.PAYMENT_OPERATION_FAILED) {
    data = paymentOperationFailedAlertData(event.data, orderDisplayId)
    resource = event.data.payment_id
      ? { resource_type: "payment", resource_id: event.data.payment_id }
      : { resource_type: "processor_transaction", resource_id: event.data.payment_transaction_id }
  } else {
    const caseData = caseAlertData(event, orderDisplayId)
    data = caseData
    resource = { resource_type: caseData.chargeback_id ? "chargeback" : "dispute_case", resource_id: caseData.chargeback_id ?? event.data.id }
  }
  const key = caseAlertKey(event)
  const notifications: CreateNotificationDTO[] = []
  if (settings.feed) {
    notifications.push({
      to: "",
      channel: "feed",
      template: FEED_TEMPLATE,
      data: { title: data.title, description: data.description },
      ...resource,
      idempotency_key: `${key}:feed`,
    })
  }
  if (settings.emailTemplate && settings.emailTo) {
    for (const to of settings.emailTo) {
      notifications.push({
        to,
        channel: "email",
        template: settings.emailTemplate,
        data,
        ...resource,
        idempotency_key: `${key}:email:${to.toLowerCase()}`,
      })
    }
  }
  return notifications
}
