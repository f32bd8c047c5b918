import type { DisputeCaseRow } from "../../modules/servicescan/types"
import type { RecordChargebacksItem } from "../record-chargebacks"

/**
 * The chargeback a processor case records on its order: the case id is the
 * dispute id (so recording is idempotent by case), the reply-by day is the
 * due date (to its end), the reason is the processor's.
 */
export function chargebackFromCase(row: DisputeCaseRow, orderId: string, scanIds: string[] = []): RecordChargebacksItem {
  return {
    // The disputed payment's own scan: sent with those of the order's payments (which include it when
    // the order still shows the payment), never recorded as scan ids an admin attached.
    payment_scan_ids: scanIds,
    external_id: row.case_id,
    order_id: orderId,
    amount: row.amount as number,
    currency_code: row.currency_code,
    reason: row.reason_description,
    reason_code: row.reason_code,
    due_by: row.reply_by ? `${row.reply_by}T23:59:59.000Z` : null,
    source: "processor",
    metadata: { dispute_case: { gateway: row.gateway, case_id: row.case_id, cycle: row.cycle } },
  }
}
