import { isUuidV4 } from "../../lib/uuid"
import { SERVICESCAN_PROVIDER_PREFIX } from "./checkout-session"

export type OrderWithPayments = {
  payment_collections?: Array<{
    payments?: Array<{ provider_id?: string | null; data?: Record<string, unknown> | null } | null> | null
  } | null> | null
} | null | undefined

function servicescanPayments(order: OrderWithPayments): Record<string, unknown>[] {
  return (order?.payment_collections ?? []).flatMap((collection) =>
    (collection?.payments ?? []).flatMap((payment) =>
      payment?.provider_id?.startsWith(SERVICESCAN_PROVIDER_PREFIX) && payment.data ? [payment.data] : []
    )
  )
}

/**
 * The scan ids of an order: the payment provider stores the hosted form's id
 * as `scan_id` in each ServiceScan payment's data (this project's rule: a
 * payment's scan id is its form id). A payment with a saved card has no scan
 * of its own; the scan of the form that saved the card (`saved_card.scan_id`)
 * stands for it. Only UUIDv4s, lower-cased, once each.
 */
export function collectOrderScanIds(order: OrderWithPayments): string[] {
  const ids = new Set<string>()
  for (const data of servicescanPayments(order)) {
    const savedCard = data.saved_card as { scan_id?: unknown } | undefined
    for (const scanId of [data.scan_id, savedCard?.scan_id]) {
      if (isUuidV4(scanId)) {
        ids.add(scanId.toLowerCase())
      }
    }
  }
  return [...ids]
}

/**
 * The order's payments made with a saved card: the card's token fingerprint
 * and when the payment was authorized. Earlier payments with the same
 * fingerprint carry scans of that card (see `listScansOfCards`).
 */
export function savedCardPayments(order: OrderWithPayments): { fingerprint: string; authorized_at: Date }[] {
  return servicescanPayments(order).flatMap((data) => {
    const authorizedAt = typeof data.authorized_at === "string" ? new Date(data.authorized_at) : undefined
    return data.source === "saved_card" &&
      typeof data.token_fingerprint === "string" &&
      data.token_fingerprint &&
      authorizedAt &&
      !Number.isNaN(authorizedAt.getTime())
      ? [{ fingerprint: data.token_fingerprint, authorized_at: authorizedAt }]
      : []
  })
}
