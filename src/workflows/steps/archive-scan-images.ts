import type { IFileModuleService } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { EvidenceKeyMissingError, sealedEvidenceFilename } from "../../lib/sealed-evidence"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { describeError } from "../../modules/servicescan/services/disputes-api"
import { mapWithConcurrency } from "../../modules/servicescan/services/concurrency"
import type { EvidenceToArchive } from "./list-evidence-to-archive"

export type ArchivedImage =
  | { evidence_id: string; file_id: string; archive_key: string; superseded_file_id: string | null; error: null }
  | { evidence_id: string; file_id: null; archive_key: null; superseded_file_id: string | null; error: string }

/** Images copied at once; a handful keeps memory flat (each is read whole, as the File Module takes base64). */
const ARCHIVE_CONCURRENCY = 4

/**
 * Copies scans' images from ServiceScan into Medusa's File Module, sealed
 * with a key of their own, wrapped under the module's `evidenceKey`
 * (src/lib/sealed-evidence.ts): they show a payment card, and a file
 * provider's "private" may still be served publicly (the local provider's
 * is). The provider's URL is dropped; only the file id and the wrapped key
 * are kept, in our database. An image that cannot be fetched or sealed (no
 * `evidenceKey`) is reported, not thrown: the others are still archived and
 * the proxy falls back to the service. Compensation deletes the files this
 * step created.
 */
export const archiveScanImagesStep = createStep(
  "servicescan-archive-scan-images",
  async (input: { evidence: EvidenceToArchive[] }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const files = container.resolve<IFileModuleService>(Modules.FILE)
    const vault = service.getEvidenceVault()
    const results = await mapWithConcurrency(input.evidence, ARCHIVE_CONCURRENCY, async (item): Promise<ArchivedImage> => {
      const superseded_file_id = item.superseded_file_id
      try {
        // Checked before the download: without a key nothing is fetched only to be dropped.
        if (!vault.configured) {
          throw new EvidenceKeyMissingError()
        }
        const { sealed, key } = vault.seal(await service.downloadServiceImage(item.scan_id), { kind: "scan-image", scanId: item.scan_id })
        const file = await files.createFiles({
          filename: sealedEvidenceFilename(),
          mimeType: "application/octet-stream",
          content: sealed.toString("base64"),
          access: "private",
        })
        return { evidence_id: item.id, file_id: file.id, archive_key: key, superseded_file_id, error: null }
      } catch (error) {
        return { evidence_id: item.id, file_id: null, archive_key: null, superseded_file_id, error: describeError(error) }
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
