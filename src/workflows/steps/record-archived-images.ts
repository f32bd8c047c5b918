import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { ArchivedImage } from "./archive-scan-images"

type EvidenceArchiveState = {
  id: string
  archived_file_id: string | null
  archived_file_url: string | null
  archived_at: Date | null
  archive_error: string | null
}

/** Stores where each image was archived (or why it was not); compensation restores the previous values. */
export const recordArchivedImagesStep = createStep(
  "servicescan-record-archived-images",
  async (input: { archived: ArchivedImage[] }, { container }) => {
    if (!input.archived.length) {
      return new StepResponse([], [])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const previous = await service.listScanEvidences(
      { id: input.archived.map((item) => item.evidence_id) },
      { select: ["id", "archived_file_id", "archived_file_url", "archived_at", "archive_error"], take: null }
    )
    const now = new Date()
    const updated = await service.updateScanEvidences(
      input.archived.map((item) =>
        item.file_id
          ? { id: item.evidence_id, archived_file_id: item.file_id, archived_file_url: item.file_url, archived_at: now, archive_error: null }
          : { id: item.evidence_id, archive_error: item.error }
      )
    )
    return new StepResponse(updated, previous as EvidenceArchiveState[])
  },
  async (previous: EvidenceArchiveState[] | undefined, { container }) => {
    if (!previous?.length) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.updateScanEvidences(previous)
  }
)
