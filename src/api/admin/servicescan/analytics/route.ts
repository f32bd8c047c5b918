import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { SERVICESCAN_MODULE } from "../../../../modules/servicescan"
import type ServiceScanModuleService from "../../../../modules/servicescan/service"
import type { AdminGetDisputeAnalyticsType } from "./validators"

/**
 * `GET /admin/servicescan/analytics?from=YYYY-MM&to=YYYY-MM&currency_code=usd`:
 * the Disputes page's analytics, by month: chargebacks and their ratio to this
 * plugin's orders against the card networks' lines, outcomes, money recovered
 * and at stake, scans and verdicts (docs/disputes.md, "Analytics").
 */
export const GET = async (req: AuthenticatedMedusaRequest<unknown, AdminGetDisputeAnalyticsType>, res: MedusaResponse) => {
  const { from, to, currency_code } = req.validatedQuery
  const analytics = await req.scope
    .resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    .getDisputeAnalytics({ from, to, currency: currency_code })
  res.json({ analytics })
}
