import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { loadScanSourcesStep } from "./steps/load-scan-sources"

/** Which earlier order each of the chargebacks' borrowed scans came from, by chargeback id (see loadScanSourcesStep). */
export const listScanSourcesWorkflow = createWorkflow(
  "servicescan-list-scan-sources",
  (input: WorkflowData<{ chargeback_ids: string[]; require_all?: boolean }>) => new WorkflowResponse(loadScanSourcesStep(input))
)
