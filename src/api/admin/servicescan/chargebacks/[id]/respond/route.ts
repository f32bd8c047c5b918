import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { respondToDisputeWorkflow } from "../../../../../../workflows/respond-to-dispute"
import type { AdminRespondToDisputeType } from "../../../cases/validators"

/**
 * `POST /admin/servicescan/chargebacks/:id/respond`: "Send evidence" (represent,
 * with the evidence pack as a document on the case) or "Accept liability".
 * A processor's refusal is a 422 naming its reason; the case records it.
 */
export const POST = async (req: AuthenticatedMedusaRequest<AdminRespondToDisputeType>, res: MedusaResponse) => {
  const { result } = await respondToDisputeWorkflow(req.scope).run({
    input: { chargeback_id: req.params.id, action: req.validatedBody.action, decided_by: "admin" },
  })
  if (result.error && result.refused) {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, `The processor refused the answer: ${result.error}`)
  }
  if (result.error) {
    // Not the admin's input: the processor could not be reached or its answer was lost. The case stays
    // "under way"; trying again reads the case first and sends nothing twice.
    res.status(502).json({
      type: "upstream_error",
      message: `The processor's answer did not arrive (${result.error}). Try again: nothing is sent twice.`,
    })
    return
  }
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [chargeback],
  } = await query.graph({ entity: "chargeback", fields: req.queryConfig.fields, filters: { id: req.params.id } })
  res.json({ chargeback })
}
