import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

/** `createProofRequestStep` for a page of chargebacks: two inserts, the same compensation per proof request. */
export const createProofRequestsStep = createStep(
  "servicescan-create-proof-requests",
  async (inputs: { chargeback_id: string; scan_ids: string[] }[], { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const created = (await service.createProofRequestsWithScans(inputs)).filter(
      (row): row is NonNullable<typeof row> => row !== null
    )
    return new StepResponse(created, created.map((row) => row.id))
  },
  async (ids, { container }) => {
    if (!ids?.length) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const rows = await service.listProofRequests({ id: ids }, { select: ["id", "status", "remote_id"], take: null })
    // As in createProofRequestStep: once its PUT may have gone out, the row is kept.
    const drop = rows.filter((row) => !row.remote_id && row.status === "to_submit").map((row) => row.id)
    if (drop.length) {
      await service.deleteProofRequests(drop)
    }
  }
)
