import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { attachScanIdsWorkflow } from "../../../../../../workflows/attach-scan-ids"
import type { AdminAttachScanIdsType } from "../../../validators"

/** `POST /admin/servicescan/chargebacks/:id/scans`: attaches scan ids and asks ServiceScan about the new ones. */
export const POST = async (req: AuthenticatedMedusaRequest<AdminAttachScanIdsType>, res: MedusaResponse) => {
  const { result } = await attachScanIdsWorkflow(req.scope).run({
    input: { chargeback_id: req.params.id, scan_ids: req.validatedBody.scan_ids },
  })
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [chargeback],
  } = await query.graph({ entity: "chargeback", fields: req.queryConfig.fields, filters: { id: req.params.id } })
  res.json({ chargeback, proof_request_id: result.proof_request_id })
}
