import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { acquireLockStep, releaseLockStep, useQueryGraphStep } from "@medusajs/medusa/core-flows"
import { randomUUID } from "node:crypto"
import { createProofRequestStep } from "./steps/create-proof-request"
import { refreshChargebackStatusesStep } from "./steps/refresh-chargeback-statuses"
import { submitProofRequestsStep } from "./steps/submit-proof-requests"
import { updateChargebackStep } from "./steps/update-chargeback"
import { validateChargebackOpenStep } from "./steps/validate-chargeback-open"

export type AttachScanIdsWorkflowInput = {
  chargeback_id: string
  /** UUIDv4s (the API validates them; others are ignored here). */
  scan_ids: string[]
}

/**
 * Attaches scan ids an admin found (another payment, a scan made in a store)
 * to a chargeback and asks ServiceScan about those not asked about yet, in a
 * new proof request. A chargeback with `no_evidence` goes back to
 * `evidence_pending`.
 */
export const attachScanIdsWorkflow = createWorkflow(
  "servicescan-attach-scan-ids",
  (input: WorkflowData<AttachScanIdsWorkflowInput>) => {
    // Not `key`: the workflow SDK mistakes a resolved object with a `key`
    // property for its own internal wrapper, and the lock step got no key at all.
    const lock = transform({ input }, ({ input }) => ({
      lock_key: `servicescan:chargeback-scans:${input.chargeback_id}`,
      ownerId: randomUUID(),
    }))
    acquireLockStep({ key: lock.lock_key, ownerId: lock.ownerId, timeout: 15, ttl: 120 })

    const { data: chargebacks } = useQueryGraphStep({
      entity: "chargeback",
      fields: ["id", "status", "extra_scan_ids", "proof_requests.status", "proof_requests.scan_ids"],
      filters: { id: input.chargeback_id },
      options: { throwIfKeyNotFound: true },
    })
    validateChargebackOpenStep({ chargeback: chargebacks[0] })

    const plan = transform({ input, chargebacks }, ({ input, chargebacks }) => {
      const chargeback = chargebacks[0] as {
        extra_scan_ids?: string[] | null
        proof_requests?: { status: string; scan_ids?: string[] | null }[] | null
      }
      const attached = input.scan_ids.map((id) => id.toLowerCase())
      // Scans already in a live or complete proof request are not asked about twice.
      const covered = new Set(
        (chargeback.proof_requests ?? [])
          .filter((pr) => pr.status !== "failed")
          .flatMap((pr) => pr.scan_ids ?? [])
          .map((id) => id.toLowerCase())
      )
      return {
        extra_scan_ids: [...new Set([...(chargeback.extra_scan_ids ?? []), ...attached])],
        new_scan_ids: [...new Set(attached.filter((id) => !covered.has(id)))],
      }
    })

    updateChargebackStep({ id: input.chargeback_id, extra_scan_ids: plan.extra_scan_ids })
    const proofRequest = createProofRequestStep({ chargeback_id: input.chargeback_id, scan_ids: plan.new_scan_ids })
    const submitIds = transform({ proofRequest }, ({ proofRequest }) => (proofRequest ? [proofRequest.id] : []))
    submitProofRequestsStep({ ids: submitIds })
    const chargebackIds = transform({ input }, ({ input }) => [input.chargeback_id])
    refreshChargebackStatusesStep({ chargeback_ids: chargebackIds })

    releaseLockStep({ key: lock.lock_key, ownerId: lock.ownerId })
    const result = transform({ proofRequest }, ({ proofRequest }) => ({ proof_request_id: proofRequest?.id ?? null }))
    return new WorkflowResponse(result)
  }
)
