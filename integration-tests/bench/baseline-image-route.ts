import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { defineMiddlewares, validateAndTransformQuery } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { AdminGetScanImage } from "../../src/api/admin/servicescan/validators"
import { isUuidV4 } from "../../src/lib/uuid"

/**
 * The baseline of `bench:image-proxy`: Medusa's own authenticated admin pipeline answering a
 * scan's image from memory. It exists only in the bench's app (baseline-plugin.ts writes a
 * throw-away plugin folder whose route and middlewares files load this module): never in the
 * shipped `src/api`.
 *
 * Everything a request crosses before and after the route is the same as for
 * `GET /admin/servicescan/scans/:scanId/image`: Medusa's admin CORS and authentication, the
 * plugin's root middlewares (its request guard acts on every `/admin/servicescan` path), the same
 * query validator, and the same answer headers. What is left out is exactly what the proxy adds:
 * reading the scan's evidence rows and fetching the image from ServiceScan.
 */

/** The container key the bench registers the images under: scan id (lower case) → its bytes. */
export const BENCH_IMAGES_KEY = "servicescanBenchImages"

/** The baseline route's path, under the plugin's own `/admin/servicescan` prefix. */
export const BASELINE_IMAGE_ROUTE = "/admin/servicescan/bench-baseline/scans/:scanId/image"

/** The route's handler: the same checks and headers as the proxy, the bytes from memory. */
export const GET = async (req: MedusaRequest, res: MedusaResponse) => {
  const scanId = req.params.scanId
  if (!isUuidV4(scanId)) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, "scanId must be a UUIDv4")
  }
  const bytes = req.scope.resolve<Map<string, Buffer>>(BENCH_IMAGES_KEY).get(scanId.toLowerCase())
  if (!bytes) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `No bench image for scan ${scanId}`)
  }
  res.status(200)
  res.setHeader("Content-Type", "image/jpeg")
  res.setHeader("Content-Length", String(bytes.length))
  res.setHeader("Content-Disposition", `inline; filename="${scanId.toLowerCase()}.jpg"`)
  res.setHeader("Cache-Control", "private, no-store, no-transform")
  res.setHeader("X-Content-Type-Options", "nosniff")
  res.setHeader("X-ServiceScan-Image-Source", "memory")
  res.end(bytes)
}

/** The same query validator as the proxy's route (src/api/middlewares.ts). */
export const middlewares = defineMiddlewares({
  routes: [
    {
      matcher: BASELINE_IMAGE_ROUTE,
      methods: ["GET"],
      middlewares: [validateAndTransformQuery(AdminGetScanImage, { defaults: [], isList: false })],
    },
  ],
})
