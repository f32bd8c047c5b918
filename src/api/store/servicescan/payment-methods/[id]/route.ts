import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { deleteSavedCardWorkflow } from "../../../../../workflows/delete-saved-card"
import { StoreSavedCardParams } from "../validators"

/**
 * `DELETE /store/servicescan/payment-methods/:id`: deletes one of the
 * signed-in customer's saved cards. 404 for a card that is not theirs.
 */
export const DELETE = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const params = StoreSavedCardParams.safeParse(req.params)
  if (!params.success) {
    throw new MedusaError(MedusaError.Types.INVALID_DATA, params.error.issues[0].message)
  }
  const { id } = params.data
  await deleteSavedCardWorkflow(req.scope).run({ input: { customer_id: req.auth_context.actor_id, card_id: id } })
  res.json({ id, object: "payment_method", deleted: true })
}
