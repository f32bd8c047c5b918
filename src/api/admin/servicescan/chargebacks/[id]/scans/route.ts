import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { attachScanIdsWorkflow } from "../../../../../../workflows/attach-scan-ids"
import { readAdminChargeback } from "../../../chargeback-response"
import type { AdminAttachScanIdsType } from "../../../validators"

/** `POST /admin/servicescan/chargebacks/:id/scans`: attaches scan ids and asks ServiceScan about the new ones. */
export const POST = async (req: AuthenticatedMedusaRequest<AdminAttachScanIdsType>, res: MedusaResponse) => {
  const { result } = await attachScanIdsWorkflow(req.scope).run({
    input: { chargeback_id: req.params.id, scan_ids: req.validatedBody.scan_ids },
  })
  const chargeback = await readAdminChargeback(req.scope, req.params.id, req.queryConfig.fields)
  res.json({ chargeback, proof_request_id: result.proof_request_id })
}
