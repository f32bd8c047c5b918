import { createWorkflow, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { recordPaymentRefsStep } from "./steps/record-payment-refs"

/** Records the processor's names of the ServiceScan payments of placed orders (see `PaymentRef`). */
export const recordPaymentRefsWorkflow = createWorkflow(
  "servicescan-record-payment-refs",
  (input: WorkflowData<{ order_ids: string[] }>) => new WorkflowResponse(recordPaymentRefsStep(input))
)
