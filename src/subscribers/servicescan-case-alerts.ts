import type { SubscriberArgs, SubscriberConfig } from "@medusajs/framework"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import {
  CaseDecidedEvent,
  CaseDueSoonEvent,
  CaseNeedsAttentionEvent,
  PaymentOperationFailedEvent,
  ServiceScanEvents,
} from "../modules/servicescan/types"
import { sendCaseAlertsWorkflow } from "../workflows/send-case-alerts"
import type { CaseAlertEvent } from "../workflows/utils/case-alerts"

type AlertEventData = CaseNeedsAttentionEvent | CaseDueSoonEvent | CaseDecidedEvent | PaymentOperationFailedEvent

/** The event as the alert workflow takes it, or null for a name this subscriber does not handle. */
function asAlertEvent(name: string, data: AlertEventData): CaseAlertEvent | null {
  switch (name) {
    case ServiceScanEvents.CASE_NEEDS_ATTENTION:
      return { name, data: data as CaseNeedsAttentionEvent }
    case ServiceScanEvents.CASE_DUE_SOON:
      return { name, data: data as CaseDueSoonEvent }
    case ServiceScanEvents.CASE_DECIDED:
      return { name, data: data as CaseDecidedEvent }
    case ServiceScanEvents.PAYMENT_OPERATION_FAILED:
      return { name, data: data as PaymentOperationFailedEvent }
    default:
      return null
  }
}

/**
 * Sends each case alert, and each payment operation the processor failed
 * later, to the admin's bell (the Notification Module's `feed`
 * channel) and, when configured, by email. A store that removed the
 * Notification Module gets none; a failed send is logged, and the event's
 * next delivery sends only what failed (idempotency keys).
 */
export default async function caseAlertsHandler({ event: { name, data }, container }: SubscriberArgs<AlertEventData>) {
  const event = asAlertEvent(name, data)
  if (!event || !container.hasRegistration(Modules.NOTIFICATION)) {
    return
  }
  try {
    await sendCaseAlertsWorkflow(container).run({ input: event })
  } catch (error) {
    container
      .resolve(ContainerRegistrationKeys.LOGGER)
      .error(`servicescan: the alert ${name} for ${data.id} was not sent: ${(error as Error).message}`)
  }
}

export const config: SubscriberConfig = {
  event: [
    ServiceScanEvents.CASE_NEEDS_ATTENTION,
    ServiceScanEvents.CASE_DUE_SOON,
    ServiceScanEvents.CASE_DECIDED,
    ServiceScanEvents.PAYMENT_OPERATION_FAILED,
  ],
}
