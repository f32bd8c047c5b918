import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { sameCheckout } from "../../modules/servicescan/lifecycle/form-binding"
import { formBoundElsewhereError } from "../../providers/servicescan/errors"
import { SERVER_ONLY_KEYS, storefrontInputSchema } from "../../providers/servicescan/types"
import { jsonBoundsProblem } from "./json-bounds"
import { storeCustomerId } from "./store-customer"

/** Providers of this plugin are registered as `pp_servicescan_<id>`. */
const OUR_PROVIDER = /^pp_servicescan_/
const PROVIDER_ID = /^pp_servicescan_[A-Za-z0-9_-]{1,100}$/
const COLLECTION_ID = /^[A-Za-z0-9_]{1,100}$/

/**
 * What the storefront sends is `{ form_id, response_code }` (and the widget's
 * `device_id`, checked here: it is kept as evidence); a few keys more
 * are tolerated (the provider ignores them), nothing deep or large.
 */
export const SESSION_DATA_BOUNDS = { maxDepth: 4, maxBytes: 8 * 1024 }

/**
 * On Medusa's own `POST /store/payment-collections/:id/payment-sessions`, for
 * this plugin's providers only: Medusa stores the session's `data` before the
 * provider sees it, so a NUL or a value nested thousands deep was a 500 from
 * the database or the workflow engine, not the provider's clear 400. And a
 * refusal by the provider comes after Medusa has already replaced the
 * collection's session (its compensation restores it under a new id), so the
 * provider's own checks of what the storefront sends (its schema, the keys
 * only the server sets) run here first, with the provider's messages.
 *
 * A form id is bound here to the checkout it is first sent into: this cart's
 * payment collection and the customer signed in (or a guest). The same form id
 * from another collection or another customer is refused (400) before Medusa
 * stores anything and long before any exchange; the storefront re-sending it
 * into the same collection for the same shopper (a retry) passes. See the
 * FormBinding model.
 *
 * Other providers' sessions pass untouched.
 */
export async function boundServiceScanSessionData(
  req: MedusaRequest,
  _res: MedusaResponse,
  next: MedusaNextFunction
): Promise<void> {
  const body = req.body as { provider_id?: unknown; data?: unknown } | undefined
  if (!body || typeof body.provider_id !== "string" || !OUR_PROVIDER.test(body.provider_id)) {
    next()
    return
  }
  const problem = sessionProblem(req.originalUrl, body.provider_id, body.data)
  if (problem) {
    next(new MedusaError(MedusaError.Types.INVALID_DATA, problem))
    return
  }
  // Medusa 2.21.2 answers an unknown collection with a 500 (its workflow reads the missing row's amount).
  const id = decodeURIComponent(req.originalUrl.split("?")[0].split("/")[3])
  const { data } = await req.scope
    .resolve(ContainerRegistrationKeys.QUERY)
    .graph({ entity: "payment_collection", fields: ["id"], filters: { id } })
  if (!data.length) {
    next(new MedusaError(MedusaError.Types.NOT_FOUND, `Payment collection ${id} was not found`))
    return
  }
  const formId = (body.data as { form_id?: unknown } | undefined)?.form_id
  if (typeof formId === "string") {
    const checkout = { payment_collection_id: id, customer_id: storeCustomerId(req) }
    const bound = await req.scope.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).bindFormToCheckout(formId, checkout)
    if (!sameCheckout(bound, checkout)) {
      next(formBoundElsewhereError())
      return
    }
  }
  next()
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
  const bounds = jsonBoundsProblem("data", data, SESSION_DATA_BOUNDS)
  if (bounds) {
    return bounds
  }
  const record = data as Record<string, unknown>
  const forbidden = SERVER_ONLY_KEYS.find((key) => key in record)
  if (forbidden) {
    return `data.${forbidden} is set by the server and cannot be sent with a payment session (send only form_id and response_code).`
  }
  const storefront = storefrontInputSchema.safeParse({
    form_id: record.form_id ?? undefined,
    response_code: record.response_code ?? undefined,
    // Empty is none, as the provider reads it (the widget sends "" outside a secure context).
    device_id: record.device_id === "" ? undefined : (record.device_id ?? undefined),
  })
  return storefront.success ? null : storefront.error.issues[0]?.message ?? "data is not valid"
}
