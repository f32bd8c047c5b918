import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { setChargebackOutcomeWorkflow } from "../../../../../../workflows/set-chargeback-outcome"
import type { AdminSetChargebackOutcomeType } from "../../../validators"

/** `POST /admin/servicescan/chargebacks/:id/outcome`: `won`, `lost` or `closed`. */
export const POST = async (req: AuthenticatedMedusaRequest<AdminSetChargebackOutcomeType>, res: MedusaResponse) => {
  await setChargebackOutcomeWorkflow(req.scope).run({
    input: { id: req.params.id, outcome: req.validatedBody.outcome },
  })
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [chargeback],
  } = await query.graph({ entity: "chargeback", fields: req.queryConfig.fields, filters: { id: req.params.id } })
  res.json({ chargeback })
}
