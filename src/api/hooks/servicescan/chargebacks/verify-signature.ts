import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { SERVICESCAN_MODULE } from "../../../../modules/servicescan"
import type ServiceScanModuleService from "../../../../modules/servicescan/service"
import { WEBHOOK_SIGNATURE_HEADER } from "../../../../modules/servicescan/lifecycle/webhook-signature"

const MESSAGES = {
  missing: `Missing ${WEBHOOK_SIGNATURE_HEADER} header`,
  malformed: `Malformed ${WEBHOOK_SIGNATURE_HEADER} header; expected t=<unix seconds>,v1=<hex HMAC-SHA256>`,
  stale: "Signature timestamp is outside the replay window",
  mismatch: "Signature does not match the body",
} as const

/**
 * Authenticates the webhook over the exact bytes received (`preserveRawBody`),
 * before anything else looks at the body: an unsigned request learns nothing,
 * not even whether its JSON would have been valid.
 */
export async function verifyServiceScanSignature(
  req: MedusaRequest,
  res: MedusaResponse,
  next: MedusaNextFunction
): Promise<void> {
  const service = req.scope.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const raw: unknown = req.rawBody
  const payload = Buffer.isBuffer(raw) ? raw : typeof raw === "string" ? raw : ""
  const check = service.verifyWebhookSignature(payload, req.headers[WEBHOOK_SIGNATURE_HEADER])
  if (check.ok) {
    next()
    return
  }
  if (check.reason === "not_configured") {
    res.status(503).json({ type: "not_configured", message: "The chargeback webhook has no signing secret configured" })
    return
  }
  res.status(401).json({ type: "unauthorized", message: MESSAGES[check.reason] })
}
