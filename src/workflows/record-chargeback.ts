import { createWorkflow, transform, when, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import {
  acquireLockStep,
  releaseLockStep,
  useQueryGraphStep,
} from "@medusajs/medusa/core-flows"
import { randomUUID } from "node:crypto"
import { ChargebackSource } from "../modules/servicescan/types"
import { createChargebackStep, CreateChargebackStepInput } from "./steps/create-chargeback"
import { createProofRequestStep } from "./steps/create-proof-request"
import { findChargebackByExternalIdStep } from "./steps/find-chargeback-by-external-id"
import { loadCardScanIdsStep } from "./steps/load-card-scan-ids"
import { linkChargebackToOrderStep } from "./steps/link-chargeback-to-order"
import { refreshChargebackStatusesStep } from "./steps/refresh-chargeback-statuses"
import { submitProofRequestsStep } from "./steps/submit-proof-requests"
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

/**
 * Records a chargeback on an order and asks ServiceScan for proof: collects the
 * scan ids of the order's ServiceScan payments (and any given), creates the
 * proof request and sends it. The one entry point for the admin API, the
 * webhook and other code, idempotent by `external_id`: a lock serialises
 * concurrent deliveries of the same dispute, and the unique index on
 * `external_id` backs it up.
 *
 * The service being down does not fail the workflow: the proof request waits
 * as `to_submit` and the poll job sends it.
 */
export const recordChargebackWorkflow = createWorkflow(
  "servicescan-record-chargeback",
  (input: WorkflowData<RecordChargebackWorkflowInput>) => {
    const lock = transform({ input }, ({ input }) => ({
      key: `servicescan:chargeback:${input.external_id}`,
      ownerId: randomUUID(),
    }))
    acquireLockStep({ key: lock.key, ownerId: lock.ownerId, timeout: 15, ttl: 120, executeOnSubWorkflow: true })

    const existing = findChargebackByExternalIdStep({ external_id: input.external_id, order_id: input.order_id })

    const createdId = when("servicescan-record-new-chargeback", { existing }, ({ existing }) => !existing).then(() => {
      const { data: orders } = useQueryGraphStep({
        entity: "order",
        fields: ["id", "payment_collections.payments.provider_id", "payment_collections.payments.data"],
        filters: { id: input.order_id },
        options: { throwIfKeyNotFound: true },
      }).config({ name: "servicescan-get-order-payments" })
      // A payment with a saved card has no scan of its own: earlier payments with that card have.
      const cardScans = loadCardScanIdsStep(orders as (OrderWithPayments & { id: string })[])

      const data = transform({ input, orders, cardScans }, ({ input, orders, cardScans }) => {
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
          scan_ids: [
            ...new Set([...collectOrderScanIds(orders[0] as OrderWithPayments), ...(cardScans[input.order_id] ?? []), ...extra]),
          ],
        }
      })

      const chargeback = createChargebackStep(data.chargeback)

      const link = transform({ chargeback }, ({ chargeback }) => ({
        chargeback_id: chargeback.id,
        order_id: chargeback.order_id,
      }))
      linkChargebackToOrderStep(link)

      const proofRequest = createProofRequestStep({ chargeback_id: chargeback.id, scan_ids: data.scan_ids })
      const submitIds = transform({ proofRequest }, ({ proofRequest }) => (proofRequest ? [proofRequest.id] : []))
      submitProofRequestsStep({ ids: submitIds })

      const chargebackIds = transform({ chargeback }, ({ chargeback }) => [chargeback.id])
      refreshChargebackStatusesStep({ chargeback_ids: chargebackIds })

      return chargeback.id
    })

    releaseLockStep({ key: lock.key, ownerId: lock.ownerId, executeOnSubWorkflow: true })

    const result = transform({ existing, createdId }, ({ existing, createdId }): RecordChargebackWorkflowOutput => ({
      chargeback_id: existing?.id ?? (createdId as string),
      created: !existing,
    }))
    return new WorkflowResponse(result)
  }
)
