import type { IFileModuleService } from "@medusajs/framework/types"
import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { evidencePackFileName } from "../../../../../../lib/evidence-pack"
import { prepareEvidencePackWorkflow } from "../../../../../../workflows/prepare-evidence-pack"

/**
 * `GET /admin/servicescan/chargebacks/:id/evidence-pack`: the case's evidence
 * pack (PDF), made now when there is none yet. Streamed from the File Module
 * behind the admin session: the pack shows card scans, and no file URL ever
 * reaches a browser.
 */
export const GET = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const { result } = await prepareEvidencePackWorkflow(req.scope).run({ input: { chargeback_id: req.params.id } })
  if (!result.file_id) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `Chargeback ${req.params.id} has no evidence pack`)
  }
  const files = req.scope.resolve<IFileModuleService>(Modules.FILE)
  const bytes = await files.getAsBuffer(result.file_id)
  res.setHeader("Content-Type", "application/pdf")
  res.setHeader("Content-Length", String(bytes.length))
  res.setHeader("Content-Disposition", `attachment; filename="${evidencePackFileName(result.case_id)}"`)
  res.setHeader("Cache-Control", "private, no-store")
  res.end(bytes)
}
