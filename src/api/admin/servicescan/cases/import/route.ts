import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { MedusaError } from "@medusajs/framework/utils"
import { importServiceScanDisputeCases } from "../../../../../jobs/_run-dispute-case-import"

/** `POST /admin/servicescan/cases/import`: "import now", outside the job's schedule (the same run, under the same lock). */
export const POST = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const report = await importServiceScanDisputeCases(req.scope)
  if (report.skipped === "not_configured") {
    throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "No dispute gateway is configured (the servicescan module's disputeGateway option)")
  }
  if (report.skipped === "locked") {
    throw new MedusaError(MedusaError.Types.CONFLICT, "An import is already running")
  }
  res.json({ import: report })
}
