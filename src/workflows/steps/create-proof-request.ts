import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type CreateProofRequestStepInput = {
  chargeback_id: string
  scan_ids: string[]
}

/**
 * Records a proof request as `to_submit`, with one evidence row per scan, due
 * at once: if the submission that follows never happens (a crash), the poll
 * job sends it. Nothing is created for an empty list of scan ids.
 */
export const createProofRequestStep = createStep(
  "servicescan-create-proof-request",
  async (input: CreateProofRequestStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const scanIds = service.normalizeScanIds(input.scan_ids)
    if (!scanIds.length) {
      return new StepResponse(null, null)
    }
    const proofRequest = await service.createProofRequestWithScans({
      chargeback_id: input.chargeback_id,
      scan_ids: scanIds,
    })
    return new StepResponse(proofRequest, proofRequest.id)
  },
  async (proofRequestId, { container }) => {
    if (!proofRequestId) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const [row] = await service.listProofRequests({ id: proofRequestId }, { select: ["id", "status", "remote_id"] })
    // Once the PUT may have been sent (submitting) or was answered (remote id),
    // deleting the row would forget a proof request that exists at ServiceScan,
    // and the next attempt would create a duplicate. Keep it.
    if (row && !row.remote_id && row.status === "to_submit") {
      await service.deleteProofRequests(proofRequestId)
    }
  }
)
