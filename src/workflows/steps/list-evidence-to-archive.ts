import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type EvidenceToArchive = {
  id: string
  scan_id: string
  /** A copy archived before images were sealed: replaced, then deleted. */
  superseded_file_id: string | null
}

/**
 * Valid scans of the given proof requests without a sealed copy in the File
 * Module yet (never archived, or archived in the clear by an earlier version).
 * Reads only.
 */
export const listEvidenceToArchiveStep = createStep(
  "servicescan-list-evidence-to-archive",
  async (input: { proof_request_ids: string[] }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    if (!input.proof_request_ids.length || !service.getSettings().archive_images) {
      return new StepResponse<EvidenceToArchive[]>([])
    }
    const rows = await service.listScanEvidences(
      { proof_request_id: input.proof_request_ids, ground_truth: "valid", archive_key: null },
      { select: ["id", "scan_id", "archived_file_id"], take: null }
    )
    return new StepResponse<EvidenceToArchive[]>(
      rows.map((row) => ({ id: row.id, scan_id: row.scan_id, superseded_file_id: row.archived_file_id ?? null }))
    )
  }
)
