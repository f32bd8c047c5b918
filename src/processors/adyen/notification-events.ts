import {
  DisputeActivity,
  DisputeCaseRecord,
  OperationOutcome,
  ProcessorWebhook,
  PushedEvent,
  WebhookRejection,
} from "../types"
import { hasBasicCredentials, hasValidSignature, MalformedNotificationError, NotificationItem, parseNotification, parseNotificationItem } from "./notifications"

/**
 * What Adyen's notification items mean to the plugin: a dispute's events
 * fold into one case record, modification outcomes become
 * {@link OperationOutcome}s, everything else is acknowledged and ignored.
 */

/**
 * How old an item may be: Adyen retries a delivery it could not make for up
 * to 30 days (docs: webhooks/troubleshoot), so a genuine retry can be that
 * old; one day more for clocks and queues. Older is stale and creates
 * nothing. Not a defence on its own: `eventDate` is not signed (only eight
 * fields are). Replays are stopped by the stored key; rows must be kept at
 * least this long for that to hold.
 */
export const ADYEN_MAX_EVENT_AGE_MS = 31 * 24 * 60 * 60 * 1000

/** Dispute events that open or move a case, with the cycle they put it in. */
const CASE_CYCLES: Readonly<Record<string, string>> = {
  REQUEST_FOR_INFORMATION: "Retrieval Request",
  NOTIFICATION_OF_CHARGEBACK: "Notification of Chargeback",
  NOTIFICATION_OF_FRAUD: "Notification of Fraud",
  CHARGEBACK: "First Chargeback",
  SECOND_CHARGEBACK: "Second Chargeback",
  PREARBITRATION_OPEN: "Pre-Arbitration",
}

/** How far along a dispute each opening event is: a late-arriving earlier event never moves the case back. */
const CYCLE_RANK: Readonly<Record<string, number>> = {
  REQUEST_FOR_INFORMATION: 0,
  NOTIFICATION_OF_FRAUD: 0,
  NOTIFICATION_OF_CHARGEBACK: 1,
  CHARGEBACK: 2,
  SECOND_CHARGEBACK: 3,
  PREARBITRATION_OPEN: 4,
}

/** The scheme's decisions, as the outcome they record. */
const DECISIONS: Readonly<Record<string, "won" | "lost">> = {
  CHARGEBACK_REVERSED: "won",
  PREARBITRATION_WON: "won",
  PREARBITRATION_LOST: "lost",
}

/** The timeline's words for each dispute event. */
const ACTIVITY_TYPES: Readonly<Record<string, string>> = {
  REQUEST_FOR_INFORMATION: "Request for information",
  NOTIFICATION_OF_FRAUD: "Notification of fraud",
  NOTIFICATION_OF_CHARGEBACK: "Notification of chargeback",
  CHARGEBACK: "Chargeback",
  SECOND_CHARGEBACK: "Second chargeback",
  PREARBITRATION_OPEN: "Pre-arbitration opened",
  CHARGEBACK_REVERSED: "Chargeback reversed (Case Won)",
  PREARBITRATION_WON: "Pre-arbitration won (Case Won)",
  PREARBITRATION_LOST: "Pre-arbitration lost (Case Lost)",
}

/** Modification outcomes: the operation, and whether the event itself says it failed. */
const OPERATIONS: Readonly<Record<string, { operation: OperationOutcome["operation"]; failed?: true }>> = {
  CAPTURE: { operation: "capture" },
  CAPTURE_FAILED: { operation: "capture", failed: true },
  REFUND: { operation: "refund" },
  REFUND_FAILED: { operation: "refund", failed: true },
  // A refund the bank returned after all: the refund did not hold.
  REFUNDED_REVERSED: { operation: "refund", failed: true },
  CANCELLATION: { operation: "cancel" },
  TECHNICAL_CANCEL: { operation: "cancel" },
}

/** `disputeStatus` values after which the merchant can no longer answer. */
const CLOSED_STATUSES = new Set(["Responded", "Accepted", "Expired", "Lost", "Won", "Undefended"])

/**
 * Adyen's standard notification webhook behind {@link ProcessorWebhook}:
 * HMAC on every item (the current key, or an earlier one while queued items
 * drain), the webhook's Basic credentials when set, and items of this
 * merchant account only.
 */
export class AdyenWebhook implements ProcessorWebhook {
  readonly acknowledgement = "[accepted]"
  readonly maxAgeMs = ADYEN_MAX_EVENT_AGE_MS

  private readonly merchantAccount: string
  readonly #hmacKeys: readonly string[]
  readonly #basic: { user: string; password: string } | undefined

  constructor(options: { merchantAccount: string; hmacKeys: readonly string[]; basic?: { user: string; password: string } }) {
    this.merchantAccount = options.merchantAccount
    this.#hmacKeys = options.hmacKeys
    this.#basic = options.basic
  }

  receive(request: { body: Uint8Array; authorization?: string }): PushedEvent[] {
    if (this.#basic && !hasBasicCredentials(request.authorization, this.#basic.user, this.#basic.password)) {
      throw new WebhookRejection("the webhook's Basic credentials are missing or wrong", "forged")
    }
    let items: NotificationItem[]
    try {
      items = parseNotification(request.body).items
    } catch (error) {
      throw new WebhookRejection(error instanceof MalformedNotificationError ? error.message : "unreadable notification", "malformed")
    }
    // One forged item refuses the delivery: a genuine one is signed throughout.
    if (!items.every((item) => hasValidSignature(item, this.#hmacKeys))) {
      throw new WebhookRejection("an item's HMAC signature is missing or does not match", "forged")
    }
    if (!items.every((item) => item.merchantAccountCode === this.merchantAccount)) {
      throw new WebhookRejection("an item is for another merchant account", "forged")
    }
    return items.map(pushedEvent)
  }

  caseRecord(events: readonly PushedEvent[]): DisputeCaseRecord {
    const items: StoredItem[] = events.map((event) => parseNotificationItem(event.data)).sort(byDate)
    if (!items.length) {
      throw new TypeError("a case record needs at least one event")
    }
    // The furthest-along opening event carries the case's data; a decision closes it.
    const openings = items.filter((item) => item.eventCode in CASE_CYCLES)
    const base = openings.reduce<StoredItem | undefined>(
      (best, item) => (!best || (CYCLE_RANK[item.eventCode] ?? 0) >= (CYCLE_RANK[best.eventCode] ?? 0) ? item : best),
      undefined
    ) ?? items[items.length - 1]
    const decision = [...items].reverse().find((item) => item.eventCode in DECISIONS && item.success === "true")
    const latest = items[items.length - 1]
    const data = base.additionalData ?? {}
    const status = latest.additionalData?.disputeStatus
    const activities: DisputeActivity[] = items
      .filter((item) => item.eventCode in ACTIVITY_TYPES)
      .map((item) => ({
        date: dayOf(item.eventDate),
        type: ACTIVITY_TYPES[item.eventCode],
        settlementAmountMinor: item.amount.value,
        settlementCurrencyCode: item.amount.currency,
        notes: item.reason,
      }))
    if (status === "Responded") {
      activities.push({ date: dayOf(latest.eventDate), type: "Merchant represent (defense supplied)" })
    } else if (status === "Accepted") {
      activities.push({ date: dayOf(latest.eventDate), type: "Merchant accepts liability" })
    }
    activities.reverse()
    const transactionId = items.find((item) => item.originalReference)?.originalReference
    return {
      caseId: base.pspReference,
      merchantId: base.merchantAccountCode,
      transactionId,
      orderId: base.merchantReference || undefined,
      amountMinor: base.amount.value,
      currencyCode: base.amount.currency,
      cycle: CASE_CYCLES[base.eventCode],
      reasonCode: (data.chargebackReasonCode ?? data.rfiReasonCode ?? data.nofReasonCode)?.trim() || undefined,
      reasonDescription: base.reason,
      queue: status,
      awaitingMerchant:
        !decision && base.eventCode in CASE_CYCLES && data.defendable === "true" && !CLOSED_STATUSES.has(status ?? "Unresponded"),
      outcome: decision ? DECISIONS[decision.eventCode] : undefined,
      issuedOn: dayOf(base.eventDate),
      replyBy: data.defensePeriodEndsAt ? dayOf(data.defensePeriodEndsAt) : undefined,
      acquirerReferenceNumber: data.arn,
      cardType: base.paymentMethod,
      activities,
    }
  }
}

/** An item as stored (`PushedEvent.data`): the notification item without its signature. */
type StoredItem = Omit<NotificationItem, "additionalData"> & { additionalData?: Record<string, string> }

/**
 * The `additionalData` keys the case record reads, the only ones stored:
 * the rest may carry the shopper's email, IP address or card summary, which
 * the plugin has no use for (and the signature, which it checked already).
 */
const STORED_ADDITIONAL_DATA = [
  "chargebackReasonCode",
  "rfiReasonCode",
  "nofReasonCode",
  "disputeStatus",
  "defendable",
  "defensePeriodEndsAt",
  "arn",
] as const

/** What one item is, in processor-neutral terms. */
function pushedEvent(item: NotificationItem): PushedEvent {
  const additionalData = Object.fromEntries(
    STORED_ADDITIONAL_DATA.filter((key) => key in item.additionalData).map((key) => [key, item.additionalData[key]])
  )
  const data: StoredItem = { ...item, additionalData }
  const base = {
    // Adyen's own rule: an item is the same event when these three are (retries and replays alike).
    key: `${item.eventCode}:${item.pspReference}:${item.success}`,
    occurredAt: isoOf(item.eventDate),
    data: { ...data },
  }
  if (item.eventCode in CASE_CYCLES || item.eventCode in DECISIONS) {
    return { ...base, kind: "case", caseId: item.pspReference }
  }
  const operation = operationOf(item)
  return operation ? { ...base, kind: "operation", operation } : { ...base, kind: "ignored" }
}

/** A modification's outcome; null for an item that names no payment. */
function operationOf(item: NotificationItem): OperationOutcome | null {
  let known = OPERATIONS[item.eventCode]
  if (item.eventCode === "CANCEL_OR_REFUND") {
    // The answer to the operation the plugin sent: a cancel of a captured payment goes to
    // `/reversals`, which Adyen confirms this way whether it refunded (`modification.action`
    // "refund") or cancelled it. Either way it settles the payment's cancellation.
    known = { operation: "cancel" }
  }
  if (!known || !item.originalReference) {
    return null
  }
  const success = item.success === "true" && !known.failed
  return {
    operation: known.operation,
    paymentTransactionId: item.originalReference,
    transactionId: item.pspReference,
    success,
    ...(success ? {} : { reason: item.reason || item.eventCode }),
    occurredAt: isoOf(item.eventDate),
  }
}

/** `eventDate` as ISO 8601 in UTC; an unreadable one is the epoch, which the age bound then refuses as stale. */
function isoOf(eventDate: string): string {
  const time = Date.parse(eventDate)
  return new Date(Number.isNaN(time) ? 0 : time).toISOString()
}

/** The calendar day of an Adyen date-time, as Adyen wrote it (its own offset). */
function dayOf(dateTime: string): string {
  return /^\d{4}-\d{2}-\d{2}/.test(dateTime) ? dateTime.slice(0, 10) : isoOf(dateTime).slice(0, 10)
}

function byDate(a: StoredItem, b: StoredItem): number {
  return Date.parse(a.eventDate) - Date.parse(b.eventDate)
}
