import type { BigNumberInput } from "@medusajs/framework/types"
import { createWorkflow, transform, when, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import {
  acquireLockStep,
  releaseLockStep,
  useQueryGraphStep,
} from "@medusajs/medusa/core-flows"
import { randomUUID } from "node:crypto"
import { ChargebackSource } from "../modules/servicescan/types"
import { createChargebackStep, CreateChargebackStepInput, CreatedChargeback } from "./steps/create-chargeback"
import { createProofRequestStep } from "./steps/create-proof-request"
import { findChargebackByExternalIdStep } from "./steps/find-chargeback-by-external-id"
import { loadCardScanIdsStep } from "./steps/load-card-scan-ids"
import { linkChargebackToOrderStep } from "./steps/link-chargeback-to-order"
import { refreshChargebackStatusesStep } from "./steps/refresh-chargeback-statuses"
import { submitProofRequestsStep } from "./steps/submit-proof-requests"
import { validateChargebackForOrderStep } from "./steps/validate-chargeback-for-order"
import { collectOrderScanIds, OrderWithPayments } from "./utils/collect-order-scan-ids"

export type RecordChargebackWorkflowInput = Omit<CreateChargebackStepInput, "source" | "extra_scan_ids"> & {
  /** Scan ids to send on top of those of the order's payments. */
  scan_ids?: string[]
  /** Defaults to `api` (another part of the store calling the workflow). */
  source?: ChargebackSource
}

export type RecordChargebackWorkflowOutput = {
  chargeback_id: string
  /** False when a chargeback with this external id already existed. */
  created: boolean
}

type RecordedChargeback = CreatedChargeback & { scan_ids: string[] }

/**
 * Records a chargeback on an order and asks ServiceScan for proof: checks the
 * chargeback against the order (currency, total), collects the scan ids of
 * the order's ServiceScan payments (and any given), creates the proof request
 * and sends it. The one entry point for the admin API, the webhook and other
 * code, idempotent by `external_id`: a lock serialises concurrent deliveries
 * of the same dispute, and where the lock does not reach (two processes with
 * per-process locking) the unique index on `external_id` does, the later
 * delivery answering as a repeat (`created: false`).
 *
 * The service being down does not fail the workflow: the proof request waits
 * as `to_submit` and the poll job sends it.
 */
export const recordChargebackWorkflow = createWorkflow(
  "servicescan-record-chargeback",
  (input: WorkflowData<RecordChargebackWorkflowInput>) => {
    // Not `key`: the workflow SDK mistakes a resolved object with a `key`
    // property for its own internal wrapper, and the lock step got no key at
    // all (concurrent deliveries were never serialised).
    const lock = transform({ input }, ({ input }) => ({
      lock_key: `servicescan:chargeback:${input.external_id}`,
      ownerId: randomUUID(),
    }))
    acquireLockStep({ key: lock.lock_key, ownerId: lock.ownerId, timeout: 15, ttl: 120, executeOnSubWorkflow: true })

    const existing = findChargebackByExternalIdStep({ external_id: input.external_id, order_id: input.order_id })

    const recorded = when("servicescan-record-new-chargeback", { existing }, ({ existing }) => !existing).then(() => {
      const { data: orders } = useQueryGraphStep({
        entity: "order",
        fields: [
          "id",
          "currency_code",
          "total",
          "payment_collections.payments.provider_id",
          "payment_collections.payments.data",
        ],
        filters: { id: input.order_id },
        options: { throwIfKeyNotFound: true },
      }).config({ name: "servicescan-get-order-payments" })

      const order = transform({ orders }, ({ orders }) => orders[0] as OrderWithPayments & { id: string; currency_code: string; total: BigNumberInput })
      validateChargebackForOrderStep({ amount: input.amount, currency_code: input.currency_code, order })
      // A payment with a saved card has no scan of its own: earlier payments with that card have.
      const cardScans = loadCardScanIdsStep(orders as (OrderWithPayments & { id: string })[])

      const data = transform({ input, order, cardScans }, ({ input, order, cardScans }) => {
        const extra = (input.scan_ids ?? []).map((id) => id.toLowerCase())
        return {
          chargeback: {
            external_id: input.external_id,
            order_id: input.order_id,
            amount: input.amount,
            currency_code: input.currency_code,
            reason: input.reason ?? null,
            reason_code: input.reason_code ?? null,
            due_by: input.due_by ?? null,
            metadata: input.metadata ?? null,
            source: input.source ?? ("api" as const),
            extra_scan_ids: [...new Set(extra)],
          },
          scan_ids: [...new Set([...collectOrderScanIds(order), ...(cardScans[input.order_id] ?? []), ...extra])],
        }
      })

      const chargeback = createChargebackStep(data.chargeback)
      return transform({ chargeback, data }, ({ chargeback, data }): RecordedChargeback => ({ ...chargeback, scan_ids: data.scan_ids }))
    })

    // Only the delivery that created the chargeback gathers evidence; one that
    // lost a race to a concurrent delivery of the same dispute sends nothing.
    when("servicescan-gather-evidence", { recorded }, ({ recorded }) => recorded?.created === true).then(() => {
      // The condition above guarantees a created chargeback here.
      const plan = transform({ recorded }, ({ recorded }) => {
        const { id, order_id, scan_ids } = recorded as RecordedChargeback
        return { link: { chargeback_id: id, order_id }, proof: { chargeback_id: id, scan_ids }, chargeback_ids: [id] }
      })
      linkChargebackToOrderStep(plan.link)
      const proofRequest = createProofRequestStep(plan.proof)
      const submitIds = transform({ proofRequest }, ({ proofRequest }) => (proofRequest ? [proofRequest.id] : []))
      submitProofRequestsStep({ ids: submitIds })
      refreshChargebackStatusesStep({ chargeback_ids: plan.chargeback_ids })
    })

    releaseLockStep({ key: lock.lock_key, ownerId: lock.ownerId, executeOnSubWorkflow: true })

    const result = transform({ existing, recorded }, ({ existing, recorded }): RecordChargebackWorkflowOutput => ({
      chargeback_id: existing?.id ?? (recorded as RecordedChargeback).id,
      created: !existing && recorded?.created === true,
    }))
    return new WorkflowResponse(result)
  }
)
