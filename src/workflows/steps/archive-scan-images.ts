import type { IFileModuleService } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { describeError } from "../../modules/servicescan/service"
import { mapWithConcurrency } from "../../modules/servicescan/utils/concurrency"
import type { EvidenceToArchive } from "./list-evidence-to-archive"

export type ArchivedImage =
  | { evidence_id: string; file_id: string; file_url: string; error: null }
  | { evidence_id: string; file_id: null; file_url: null; error: string }

/** Images copied at once; a handful keeps memory flat (each is read whole, as the File Module takes base64). */
const ARCHIVE_CONCURRENCY = 4

/**
 * Copies scans' images from ServiceScan into Medusa's File Module, privately
 * (they show a payment card). An image that cannot be fetched is reported,
 * not thrown: the others are still archived and the proxy falls back to the
 * service. Compensation deletes the files this step created.
 */
export const archiveScanImagesStep = createStep(
  "servicescan-archive-scan-images",
  async (input: { evidence: EvidenceToArchive[] }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const files = container.resolve<IFileModuleService>(Modules.FILE)
    const results = await mapWithConcurrency(input.evidence, ARCHIVE_CONCURRENCY, async (item): Promise<ArchivedImage> => {
      try {
        const bytes = await service.downloadServiceImage(item.scan_id)
        const file = await files.createFiles({
          filename: `servicescan-scan-${item.scan_id}.jpg`,
          mimeType: "image/jpeg",
          content: bytes.toString("base64"),
          access: "private",
        })
        return { evidence_id: item.id, file_id: file.id, file_url: file.url, error: null }
      } catch (error) {
        return { evidence_id: item.id, file_id: null, file_url: null, error: describeError(error) }
      }
    })
    const archived = results.filter((result): result is ArchivedImage => result !== undefined)
    const created = archived.flatMap((result) => (result.file_id ? [result.file_id] : []))
    return new StepResponse(archived, created)
  },
  async (fileIds: string[] | undefined, { container }) => {
    if (!fileIds?.length) {
      return
    }
    await container.resolve<IFileModuleService>(Modules.FILE).deleteFiles(fileIds)
  }
)
