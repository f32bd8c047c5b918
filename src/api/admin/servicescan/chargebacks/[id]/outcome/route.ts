import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { setChargebackOutcomeWorkflow } from "../../../../../../workflows/set-chargeback-outcome"
import { readAdminChargeback } from "../../../chargeback-response"
import type { AdminSetChargebackOutcomeType } from "../../../validators"

/** `POST /admin/servicescan/chargebacks/:id/outcome`: `won`, `lost` or `closed`. */
export const POST = async (req: AuthenticatedMedusaRequest<AdminSetChargebackOutcomeType>, res: MedusaResponse) => {
  await setChargebackOutcomeWorkflow(req.scope).run({
    input: { id: req.params.id, outcome: req.validatedBody.outcome },
  })
  const chargeback = await readAdminChargeback(req.scope, req.params.id, req.queryConfig.fields)
  res.json({ chargeback })
}
