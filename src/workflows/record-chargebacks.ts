import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { createChargebacksStep } from "./steps/create-chargebacks"
import type { CreateChargebackStepInput } from "./steps/create-chargeback"
import { createProofRequestsStep } from "./steps/create-proof-requests"
import { findChargebacksByExternalIdsStep } from "./steps/find-chargebacks-by-external-ids"
import { linkChargebacksToOrdersStep } from "./steps/link-chargebacks-to-orders"
import { loadOrderScanIdsStep } from "./steps/load-order-scan-ids"
import { refreshChargebackStatusesStep } from "./steps/refresh-chargeback-statuses"
import { submitProofRequestsStep } from "./steps/submit-proof-requests"

export type RecordChargebacksItem = CreateChargebackStepInput & {
  /** Scan ids to send on top of those of the order's payments (recorded as the chargeback's extra scan ids). */
  scan_ids?: string[]
  /** The disputed payment's own scan ids, known to the caller (an imported case); sent, not recorded as extra. */
  payment_scan_ids?: string[]
}

export type RecordChargebacksWorkflowInput = { chargebacks: RecordChargebacksItem[] }

export type RecordChargebacksItemResult = {
  external_id: string
  /** Null when it could not be recorded (see `error`). */
  chargeback_id: string | null
  /** False when a chargeback with this external id already existed (on the same order). */
  created: boolean
  error?: string
}

/**
 * Records a page of chargebacks at once: the case import's path (thousands of
 * cases after an outage). The same rules as `recordChargebackWorkflow`, set-based:
 * idempotent by `external_id` (a known one on the same order is a repeat; on
 * another order it is refused, in its item's `error`), the order's scan ids and
 * the given ones become a proof request, which is sent (the poll job sends what
 * could not be).
 */
export const recordChargebacksWorkflow = createWorkflow(
  "servicescan-record-chargebacks",
  (input: WorkflowData<RecordChargebacksWorkflowInput>) => {
    const externalIds = transform({ input }, ({ input }) => [...new Set(input.chargebacks.map((c) => c.external_id))])
    const known = findChargebacksByExternalIdsStep(externalIds)
    const fresh = transform({ input, known }, ({ input, known }) => {
      const seen = new Set<string>()
      return input.chargebacks.filter((c) => !known[c.external_id] && !seen.has(c.external_id) && seen.add(c.external_id))
    })
    const orderIds = transform({ fresh }, ({ fresh }) => fresh.map((c) => c.order_id))
    const scanIds = loadOrderScanIdsStep(orderIds)

    const plan = transform({ fresh, scanIds }, ({ fresh, scanIds }) => {
      const recordable = fresh.filter((c) => scanIds[c.order_id] !== undefined)
      return {
        chargebacks: recordable.map(({ scan_ids: extra, payment_scan_ids: _payment, ...chargeback }) => ({
          ...chargeback,
          reason: chargeback.reason ?? null,
          reason_code: chargeback.reason_code ?? null,
          due_by: chargeback.due_by ?? null,
          metadata: chargeback.metadata ?? null,
          extra_scan_ids: [...new Set((chargeback.extra_scan_ids ?? extra ?? []).map((id) => id.toLowerCase()))],
        })),
        scans: Object.fromEntries(
          recordable.map((c) => [
            c.external_id,
            [
              ...new Set(
                [...scanIds[c.order_id], ...(c.scan_ids ?? []), ...(c.payment_scan_ids ?? [])].map((id) => id.toLowerCase())
              ),
            ],
          ])
        ),
      }
    })
    const created = createChargebacksStep(plan.chargebacks)

    const links = transform({ created }, ({ created }) => created.map((c) => ({ chargeback_id: c.id, order_id: c.order_id })))
    linkChargebacksToOrdersStep(links)

    const proofInputs = transform({ created, plan }, ({ created, plan }) =>
      created.map((c) => ({ chargeback_id: c.id, scan_ids: plan.scans[c.external_id] ?? [] }))
    )
    const proofRequests = createProofRequestsStep(proofInputs)
    const submitIds = transform({ proofRequests }, ({ proofRequests }) => ({ ids: proofRequests.map((pr) => pr.id) }))
    submitProofRequestsStep(submitIds)
    const chargebackIds = transform({ created }, ({ created }) => ({ chargeback_ids: created.map((c) => c.id) }))
    refreshChargebackStatusesStep(chargebackIds)

    const result = transform({ input, known, created, scanIds }, ({ input, known, created, scanIds }) => {
      const made = new Map(created.map((c) => [c.external_id, c.id]))
      const items: RecordChargebacksItemResult[] = input.chargebacks.map((c) => {
        const existing = known[c.external_id]
        if (existing) {
          return existing.order_id === c.order_id
            ? { external_id: c.external_id, chargeback_id: existing.id, created: false }
            : {
                external_id: c.external_id,
                chargeback_id: null,
                created: false,
                error: `Chargeback ${c.external_id} is already recorded on order ${existing.order_id}, not ${c.order_id}`,
              }
        }
        if (scanIds[c.order_id] === undefined) {
          return { external_id: c.external_id, chargeback_id: null, created: false, error: `Order ${c.order_id} was not found` }
        }
        return { external_id: c.external_id, chargeback_id: made.get(c.external_id) ?? null, created: made.has(c.external_id) }
      })
      return { items }
    })
    return new WorkflowResponse(result)
  }
)
