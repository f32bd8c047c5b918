import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { SERVER_ONLY_EVIDENCE_FIELDS } from "../admin/servicescan/query-config"

/**
 * Path segments no `?fields=` of Medusa's own routes may name. Through the
 * order ↔ chargeback link, `GET /admin/orders/:id?fields=*chargebacks.proof_requests.scans`
 * would otherwise answer every column of the scan evidence (Medusa's order
 * routes have no allow-list). Chargebacks and proof requests stay readable
 * there; their scans are read through the plugin's own routes.
 */
const RESTRICTED_SEGMENTS = ["scans", ...SERVER_ONLY_EVIDENCE_FIELDS]

/**
 * Adds those segments to the request's restricted fields, which Medusa's
 * `validateAndTransformQuery` strips on every route without an `allowed`
 * list (routes with one never allowed them). Runs on every admin and store
 * request, before any route middleware; it only adds to a list.
 */
export function restrictEvidenceFields(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction): void {
  req.restrictedFields?.add(RESTRICTED_SEGMENTS)
  next()
}
