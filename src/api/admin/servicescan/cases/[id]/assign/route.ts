import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { assignDisputeCaseWorkflow } from "../../../../../../workflows/assign-dispute-case"
import type { AdminAssignDisputeCaseType } from "../../validators"

/** `POST /admin/servicescan/cases/:id/assign`: an unmatched case belongs to this order; its chargeback is recorded there. */
export const POST = async (req: AuthenticatedMedusaRequest<AdminAssignDisputeCaseType>, res: MedusaResponse) => {
  const { result } = await assignDisputeCaseWorkflow(req.scope).run({
    input: { case_id: req.params.id, order_id: req.validatedBody.order_id },
  })
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [dispute_case],
  } = await query.graph({ entity: "dispute_case", fields: req.queryConfig.fields, filters: { id: result.case_id } })
  res.json({ dispute_case, chargeback_id: result.chargeback_id })
}
