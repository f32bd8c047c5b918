import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { ArchivedImage } from "./archive-scan-images"

type EvidenceArchiveState = {
  id: string
  archived_file_id: string | null
  archive_key: string | null
  archived_at: Date | null
  archive_error: string | null
}

/**
 * Stores where each sealed copy is and its wrapped key (or why there is none);
 * compensation restores the previous values. Answers the files the new
 * copies replace, for deletion once this is recorded.
 */
export const recordArchivedImagesStep = createStep(
  "servicescan-record-archived-images",
  async (input: { archived: ArchivedImage[] }, { container }) => {
    if (!input.archived.length) {
      return new StepResponse({ superseded_file_ids: [] as string[] }, [] as EvidenceArchiveState[])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const previous = await service.listScanEvidences(
      { id: input.archived.map((item) => item.evidence_id) },
      { select: ["id", "archived_file_id", "archive_key", "archived_at", "archive_error"], take: null }
    )
    const now = new Date()
    await service.updateScanEvidences(
      input.archived.map((item) =>
        item.file_id
          ? { id: item.evidence_id, archived_file_id: item.file_id, archive_key: item.archive_key, archived_at: now, archive_error: null }
          : { id: item.evidence_id, archive_error: item.error }
      )
    )
    const superseded_file_ids = input.archived.flatMap((item) =>
      item.file_id && item.superseded_file_id ? [item.superseded_file_id] : []
    )
    return new StepResponse({ superseded_file_ids }, previous as EvidenceArchiveState[])
  },
  async (previous: EvidenceArchiveState[] | undefined, { container }) => {
    if (!previous?.length) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.updateScanEvidences(previous)
  }
)
