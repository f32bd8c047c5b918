import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import type { Logger } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { isUuidV4 } from "../../../../../../lib/uuid"
import { SERVICESCAN_MODULE } from "../../../../../../modules/servicescan"
import type ServiceScanModuleService from "../../../../../../modules/servicescan/service"
import { readArchivedScanImage } from "../../../../../../workflows/utils/scan-image"
import { FRAUDULENT_SCAN, imageErrorResponse } from "../../../image-errors"
import type { AdminGetScanImageType } from "../../../validators"

/**
 * `GET /admin/servicescan/scans/:scanId/image[?download=1]`: a scan's image,
 * from the sealed File Module archive or streamed from ServiceScan. The secret
 * key and the archive's key stay here: the browser only ever talks to this
 * route. Inline by default (thumbnails), as an attachment with `download=1`.
 * Only scans of this store's evidence are served, and the service's URL is
 * always built from the configured base URL and the scan id, never taken
 * from a stored or received `image_url`.
 */
export const GET = async (req: AuthenticatedMedusaRequest<unknown, AdminGetScanImageType>, res: MedusaResponse) => {
  const scanId = req.params.scanId
  if (!isUuidV4(scanId)) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, "scanId must be a UUIDv4")
  }
  const service = req.scope.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const evidence = await service.listImageSources(scanId)
  if (!evidence.length) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `No chargeback evidence of this store has scan ${scanId}`)
  }
  const disposition = `${req.validatedQuery.download ? "attachment" : "inline"}; filename="${scanId.toLowerCase()}.jpg"`

  // The archive first, read whole and verified before a byte is sent (the same reader as the
  // evidence pack's); when it is missing or does not open, ServiceScan may still have the image.
  const archived = await readArchivedScanImage(req.scope, scanId, evidence)
  if (archived) {
    writeImageHeaders(res, { contentLength: archived.length, disposition, source: "archive" })
    res.end(archived)
    return
  }

  // Our own record already says fraud: no call can change that answer.
  if (evidence.every((row) => row.ground_truth === "invalid")) {
    sendError(res, FRAUDULENT_SCAN)
    return
  }

  let image
  try {
    image = await service.openServiceImage(scanId)
  } catch (error) {
    const mapped = imageErrorResponse(error)
    if (!mapped) {
      throw error
    }
    sendError(res, mapped)
    return
  }
  try {
    // Nothing is promised before the first bytes exist: an answer that breaks
    // off at once (our timeout, a reset) still gets a proper error.
    await image.body.firstBytes()
  } catch (error) {
    image.body.destroy()
    sendError(res, imageErrorResponse(error) ?? UPSTREAM_BROKE)
    req.scope
      .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
      .warn(`servicescan: image of scan ${scanId} broke off before any byte: ${(error as Error).message}`)
    return
  }
  writeImageHeaders(res, { contentLength: image.contentLength, disposition, source: "servicescan" })
  try {
    // Sent as it arrives, from pooled read buffers (lib/http/streamed-get): nothing holds the image.
    await image.body.pipeTo(res)
    res.end()
  } catch {
    // The admin went away, or the source broke mid-way: headers are sent, so
    // the only honest signal left is a cut connection.
    res.destroy()
  } finally {
    image.body.destroy()
  }
}

const UPSTREAM_BROKE = {
  status: 502,
  type: "upstream_error",
  code: "upstream_error",
  message: "ServiceScan's image broke off before any byte arrived; try again later",
}

function writeImageHeaders(
  res: MedusaResponse,
  meta: { contentLength?: number; disposition: string; source: string }
): void {
  res.status(200)
  // Always JPEG, whatever the upstream says: the service serves JPEGs only, and an
  // `image/svg+xml` on the admin's origin would be a document that runs scripts.
  res.setHeader("Content-Type", "image/jpeg")
  if (meta.contentLength !== undefined) {
    res.setHeader("Content-Length", String(meta.contentLength))
  }
  res.setHeader("Content-Disposition", meta.disposition)
  // A card scan: never cached by shared caches, never sniffed into something else, never
  // re-encoded on the way (a compression middleware would also hold our write callbacks).
  res.setHeader("Cache-Control", "private, no-store, no-transform")
  res.setHeader("X-Content-Type-Options", "nosniff")
  res.setHeader("X-ServiceScan-Image-Source", meta.source)
}

function sendError(res: MedusaResponse, error: { status: number; type: string; code: string; message: string }): void {
  res.status(error.status).json({ type: error.type, code: error.code, message: error.message })
}
