import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { receiveProcessorWebhook } from "../processor-webhook"

/**
 * `POST /hooks/servicescan/adyen`: Adyen's standard notification webhook
 * (docs/disputes.md, "Adyen"). HMAC and, when configured, Basic auth are
 * checked over the raw body by the Adyen gateway's code; `[accepted]` is
 * answered as soon as the items are stored.
 */
export const POST = async (req: MedusaRequest, res: MedusaResponse) => {
  await receiveProcessorWebhook("adyen", req, res)
}
