import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { readAdminChargeback } from "../../chargeback-response"

/** `GET /admin/servicescan/chargebacks/:id`: the chargeback with its proof requests and scans. */
export const GET = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const chargeback = await readAdminChargeback(req.scope, req.params.id, req.queryConfig.fields, { throwIfKeyNotFound: true })
  res.json({ chargeback })
}
