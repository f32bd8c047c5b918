import type { IFileModuleService } from "@medusajs/framework/types"
import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError, Modules } from "@medusajs/framework/utils"
import { evidencePackFileName } from "../../../../../../lib/evidence-pack"
import { SERVICESCAN_MODULE } from "../../../../../../modules/servicescan"
import type ServiceScanModuleService from "../../../../../../modules/servicescan/service"
import { prepareEvidencePackWorkflow } from "../../../../../../workflows/prepare-evidence-pack"

const PDF_MAGIC = Buffer.from("%PDF-", "latin1")

/**
 * `GET /admin/servicescan/chargebacks/:id/evidence-pack`: the case's evidence
 * pack (PDF), made now when there is none yet. Read from its sealed copy in
 * the File Module and opened here, behind the admin session: the pack shows
 * card scans, and no file URL ever reaches a browser.
 */
export const GET = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const { result } = await prepareEvidencePackWorkflow(req.scope).run({ input: { chargeback_id: req.params.id } })
  if (!result.file_id) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `Chargeback ${req.params.id} has no evidence pack`)
  }
  const stored = await req.scope.resolve<IFileModuleService>(Modules.FILE).getAsBuffer(result.file_id)
  let bytes: Buffer
  if (result.key) {
    try {
      bytes = req.scope
        .resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
        .getEvidenceVault()
        .open(stored, result.key, { kind: "evidence-pack", disputeCaseId: result.dispute_case_id })
    } catch (error) {
      throw new MedusaError(
        MedusaError.Types.UNEXPECTED_STATE,
        `The evidence pack of chargeback ${req.params.id} is stored but does not open: ${(error as Error).message}`
      )
    }
  } else if (stored.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) {
    // Stored in clear by an earlier version, until the migration seals it.
    bytes = stored
  } else {
    throw new MedusaError(MedusaError.Types.UNEXPECTED_STATE, `The evidence pack of chargeback ${req.params.id} is stored without its key`)
  }
  res.setHeader("Content-Type", "application/pdf")
  res.setHeader("Content-Length", String(bytes.length))
  res.setHeader("Content-Disposition", `attachment; filename="${evidencePackFileName(result.case_id)}"`)
  res.setHeader("Cache-Control", "private, no-store")
  res.end(bytes)
}
