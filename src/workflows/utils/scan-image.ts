import type { Readable } from "node:stream"
import type { IFileModuleService, Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { MAX_ARCHIVED_IMAGE_BYTES } from "../../modules/servicescan/services/evidence-vault"

/**
 * The one home of "which copy of a scan's image is read": the store's own
 * sealed archive in the File Module first, ServiceScan only when there is no
 * usable archive. The evidence pack and the admin image route both read
 * through here, so a pack builds from the archive while ServiceScan is down.
 * How a file is sealed and opened stays in the module's evidence vault
 * (`lib/sealed-evidence`).
 */

type Scope = Pick<MedusaContainer, "resolve">
/** A scan's evidence rows as `listImageSources` answers them. */
export type ScanImageSource = Awaited<ReturnType<ServiceScanModuleService["listImageSources"]>>[number]

/**
 * The most bytes read of one archived file: the largest image the archive
 * takes, plus generous room for the seal's own header. Anything longer was
 * not written by us, and is refused before it fills memory.
 */
export const MAX_SEALED_IMAGE_BYTES = MAX_ARCHIVED_IMAGE_BYTES + 64 * 1024

/**
 * The archived copy of a scan's image, opened and verified whole, or null when
 * none of its evidence rows has one, or when the one it has cannot be read or
 * opened (a wiped local store, an altered file): that is logged, and the
 * caller may still ask ServiceScan. `sources` saves a read when the caller
 * already has the scan's rows.
 */
export async function readArchivedScanImage(scope: Scope, scanId: string, sources?: ScanImageSource[]): Promise<Buffer | null> {
  const service = scope.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const rows = sources ?? (await service.listImageSources(scanId))
  const archived = rows.find((row) => row.archived_file_id && row.archive_key)
  if (!archived?.archived_file_id || !archived.archive_key) {
    return null
  }
  try {
    const files = scope.resolve<IFileModuleService>(Modules.FILE)
    const sealed = await readBounded(await files.getDownloadStream(archived.archived_file_id), MAX_SEALED_IMAGE_BYTES)
    return service.getEvidenceVault().open(sealed, archived.archive_key, { kind: "scan-image", scanId })
  } catch (error) {
    scope
      .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
      .warn(`servicescan: archived image of scan ${scanId} unreadable, asking ServiceScan: ${(error as Error).message}`)
    return null
  }
}

/**
 * A valid scan's image, whole: the archived copy (`readArchivedScanImage`),
 * else ServiceScan's, read up to `MAX_ARCHIVED_IMAGE_BYTES`. Throws what the
 * service's read throws when there is no archive and the service fails.
 */
export async function readScanImage(scope: Scope, scanId: string): Promise<{ bytes: Buffer; source: "archive" | "servicescan" }> {
  const archived = await readArchivedScanImage(scope, scanId)
  if (archived) {
    return { bytes: archived, source: "archive" }
  }
  const service = scope.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  return { bytes: await service.downloadServiceImage(scanId), source: "servicescan" }
}

/** Reads a stream whole, failing (and closing it) as soon as it passes `limit` bytes. */
async function readBounded(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let length = 0
  try {
    for await (const chunk of stream) {
      const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array)
      length += bytes.length
      if (length > limit) {
        throw new Error(`the archived file is longer than ${limit} bytes`)
      }
      chunks.push(bytes)
    }
  } finally {
    stream.destroy()
  }
  return Buffer.concat(chunks, length)
}
