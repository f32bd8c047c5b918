import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { listSavedCardsWorkflow } from "../../../../workflows/list-saved-cards"

/**
 * `GET /store/servicescan/payment-methods`: the signed-in customer's saved
 * cards, most recent first, as `{ payment_methods: [{ id, provider_id, brand,
 * last4, saved_at }] }`. Brand and last four only: never a token.
 */
export const GET = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const { result } = await listSavedCardsWorkflow(req.scope).run({ input: { customer_id: req.auth_context.actor_id } })
  res.json({ payment_methods: result })
}
