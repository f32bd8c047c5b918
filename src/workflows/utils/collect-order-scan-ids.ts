import { isUuidV4 } from "../../lib/uuid"

/** Payments made through a ServiceScan provider, whatever id the store registered it under. */
const SERVICESCAN_PROVIDER_PREFIX = "pp_servicescan_"

export type OrderWithPayments = {
  payment_collections?: Array<{
    payments?: Array<{ provider_id?: string | null; data?: Record<string, unknown> | null } | null> | null
  } | null> | null
} | null | undefined

/**
 * The scan ids of an order: the payment provider stores the hosted form's id
 * as `scan_id` in each ServiceScan payment's data (this project's rule: a
 * payment's scan id is its form id). Only UUIDv4s, lower-cased, once each.
 */
export function collectOrderScanIds(order: OrderWithPayments): string[] {
  const ids = new Set<string>()
  for (const collection of order?.payment_collections ?? []) {
    for (const payment of collection?.payments ?? []) {
      if (!payment?.provider_id?.startsWith(SERVICESCAN_PROVIDER_PREFIX)) {
        continue
      }
      const scanId = payment.data?.scan_id
      if (isUuidV4(scanId)) {
        ids.add(scanId.toLowerCase())
      }
    }
  }
  return [...ids]
}
