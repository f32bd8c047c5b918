import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { loadScanSourcesStep } from "./steps/load-scan-sources"

/** Which earlier order each of a chargeback's borrowed scans came from (see loadScanSourcesStep). */
export const listScanSourcesWorkflow = createWorkflow(
  "servicescan-list-scan-sources",
  (input: WorkflowData<{ chargeback_id: string }>) => new WorkflowResponse(loadScanSourcesStep(input))
)
