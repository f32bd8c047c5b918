import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { listScanSourcesWorkflow } from "../../../../../../workflows/list-scan-sources"

/**
 * `GET /admin/servicescan/chargebacks/:id/scan-sources`: for the scans of the
 * chargeback's evidence that were taken for another order (a payment with a
 * saved card borrows the scans of the card's earlier payments), that order:
 * `{ scan_sources: [{ scan_id, order_id, order_display_id }] }`. The same list
 * comes as `scan_sources` with a chargeback read with its proof requests.
 */
export const GET = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const { result } = await listScanSourcesWorkflow(req.scope).run({
    input: { chargeback_ids: [req.params.id], require_all: true },
  })
  res.json({ scan_sources: result[req.params.id] ?? [] })
}
