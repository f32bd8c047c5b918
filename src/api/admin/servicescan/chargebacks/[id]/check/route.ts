import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { checkChargebackWorkflow } from "../../../../../../workflows/check-chargeback"
import type { AdminCheckChargebackType } from "../../../validators"

/** `POST /admin/servicescan/chargebacks/:id/check`: "check now", outside the poll schedule. */
export const POST = async (req: AuthenticatedMedusaRequest<AdminCheckChargebackType>, res: MedusaResponse) => {
  const { result } = await checkChargebackWorkflow(req.scope).run({
    input: { chargeback_id: req.params.id, resubmit: req.validatedBody.resubmit },
  })
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [chargeback],
  } = await query.graph({ entity: "chargeback", fields: req.queryConfig.fields, filters: { id: req.params.id } })
  res.json({ chargeback, check: result })
}
