import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { jsonBoundsProblem } from "./json-bounds"

/** Providers of this plugin are registered as `pp_servicescan_<id>`. */
const OUR_PROVIDER = /^pp_servicescan_/
const PROVIDER_ID = /^pp_servicescan_[A-Za-z0-9_-]{1,100}$/
const COLLECTION_ID = /^[A-Za-z0-9_]{1,100}$/

/**
 * What the storefront sends is `{ form_id, response_code }`; a few keys more
 * are tolerated (the provider ignores them), nothing deep or large.
 */
export const SESSION_DATA_BOUNDS = { maxDepth: 4, maxBytes: 8 * 1024 }

/**
 * On Medusa's own `POST /store/payment-collections/:id/payment-sessions`, for
 * this plugin's providers only: Medusa stores the session's `data` before the
 * provider sees it, so a NUL or a value nested thousands deep was a 500 from
 * the database or the workflow engine, not the provider's clear 400. Other
 * providers' sessions pass untouched.
 */
export function boundServiceScanSessionData(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction): void {
  const body = req.body as { provider_id?: unknown; data?: unknown } | undefined
  if (!body || typeof body.provider_id !== "string" || !OUR_PROVIDER.test(body.provider_id)) {
    next()
    return
  }
  const problem = sessionProblem(req.originalUrl, body.provider_id, body.data)
  next(problem ? new MedusaError(MedusaError.Types.INVALID_DATA, problem) : undefined)
}

function sessionProblem(originalUrl: string, providerId: string, data: unknown): string | null {
  if (!PROVIDER_ID.test(providerId)) {
    return "provider_id is not a ServiceScan provider id"
  }
  // /store/payment-collections/<id>/payment-sessions
  const segment = originalUrl.split("?")[0].split("/")[3] ?? ""
  let id: string
  try {
    id = decodeURIComponent(segment)
  } catch {
    return "id must be a payment collection id"
  }
  if (!COLLECTION_ID.test(id)) {
    return "id must be a payment collection id"
  }
  if (data === undefined) {
    return null
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    return "data must be an object, e.g. { form_id, response_code }"
  }
  return jsonBoundsProblem("data", data, SESSION_DATA_BOUNDS)
}
