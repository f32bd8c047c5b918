import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { useQueryGraphStep } from "@medusajs/medusa/core-flows"
import { ClaimedProofRequest, ProofRequestStatus } from "../modules/servicescan/types"
import { archiveScanImagesWorkflow } from "./archive-scan-images"
import { ensureServiceAvailableStep } from "./steps/ensure-service-available"
import { syncProofRequestsWorkflow } from "./sync-proof-requests"

export type CheckChargebackWorkflowInput = {
  chargeback_id: string
  /**
   * Also re-send proof requests whose submission outcome is unknown (or that
   * failed). ServiceScan may then hold two proof requests for the same scans;
   * that is harmless, and only a person can judge it is needed.
   */
  resubmit?: boolean
}

/**
 * An admin's "check now": sends what waits to be sent, checks pending proof
 * requests at once instead of at their next poll time, and archives images
 * that were not archived yet. If polling stopped on a configuration error, it
 * first checks whether the configuration works again.
 */
export const checkChargebackWorkflow = createWorkflow(
  "servicescan-check-chargeback",
  (input: WorkflowData<CheckChargebackWorkflowInput>) => {
    ensureServiceAvailableStep()
    const { data: chargebacks } = useQueryGraphStep({
      entity: "chargeback",
      fields: ["id", "proof_requests.id", "proof_requests.status", "proof_requests.remote_id"],
      filters: { id: input.chargeback_id },
      options: { throwIfKeyNotFound: true },
    })
    const proofRequests = transform({ chargebacks, input }, ({ chargebacks, input }) =>
      ((chargebacks[0]?.proof_requests ?? []) as { id: string; status: ProofRequestStatus; remote_id: string | null }[])
        .filter(Boolean)
        .map((pr): ClaimedProofRequest => ({ ...pr, chargeback_id: input.chargeback_id }))
    )
    const summary = syncProofRequestsWorkflow.runAsStep({
      input: { proof_requests: proofRequests, resubmit: input.resubmit },
    })
    const completeIds = transform({ proofRequests }, ({ proofRequests }) => proofRequests.map((pr) => pr.id))
    archiveScanImagesWorkflow.runAsStep({ input: { proof_request_ids: completeIds } })
    return new WorkflowResponse(summary)
  }
)
