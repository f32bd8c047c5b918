import type ServiceScanModuleService from "../../modules/servicescan/service"
import { OrderWithPayments, savedCardPayments } from "./collect-order-scan-ids"

/**
 * For each order paid with a saved card, the scans of the other orders'
 * payments made earlier with the same card (same token fingerprint): the
 * proof that the card's holder had it in hand, which a payment with a saved
 * card cannot carry itself. Orders without such payments are absent.
 */
export async function findCardScanIds(
  service: ServiceScanModuleService,
  orders: (OrderWithPayments & { id: string })[]
): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {}
  for (const order of orders) {
    const payments = savedCardPayments(order)
    if (!payments.length) {
      continue
    }
    const latest = new Date(Math.max(...payments.map((payment) => payment.authorized_at.getTime())))
    const scans = await service.listScansOfCards({
      fingerprints: payments.map((payment) => payment.fingerprint),
      before: latest,
      exclude_order_ids: [order.id],
    })
    if (scans.length) {
      found[order.id] = [...new Set(scans.map((scan) => scan.scan_id.toLowerCase()))]
    }
  }
  return found
}
