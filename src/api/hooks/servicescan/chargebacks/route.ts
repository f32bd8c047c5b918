import type { MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { recordChargebackWorkflow } from "../../../../workflows/record-chargeback"
import type { WebhookChargebackType } from "./validators"

/**
 * `POST /hooks/servicescan/chargebacks`: a signed chargeback notification
 * (see docs/disputes.md for the signature). The signature is checked by a
 * middleware before the body is even validated. 200 for a new or a repeated
 * delivery alike: the sender only needs to know it may stop retrying.
 */
export const POST = async (req: MedusaRequest<WebhookChargebackType>, res: MedusaResponse) => {
  const { result } = await recordChargebackWorkflow(req.scope).run({
    input: { ...req.validatedBody, source: "webhook" },
  })
  res.status(200).json({ chargeback_id: result.chargeback_id, created: result.created })
}
