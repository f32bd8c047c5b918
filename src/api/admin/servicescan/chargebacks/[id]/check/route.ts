import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { checkChargebackWorkflow } from "../../../../../../workflows/check-chargeback"
import { readAdminChargeback } from "../../../chargeback-response"
import type { AdminCheckChargebackType } from "../../../validators"

/** `POST /admin/servicescan/chargebacks/:id/check`: "check now", outside the poll schedule. */
export const POST = async (req: AuthenticatedMedusaRequest<AdminCheckChargebackType>, res: MedusaResponse) => {
  const { result } = await checkChargebackWorkflow(req.scope).run({
    input: { chargeback_id: req.params.id, resubmit: req.validatedBody.resubmit },
  })
  const chargeback = await readAdminChargeback(req.scope, req.params.id, req.queryConfig.fields)
  res.json({ chargeback, check: result })
}
