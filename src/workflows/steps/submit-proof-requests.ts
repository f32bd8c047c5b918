import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type SubmitProofRequestsStepInput = {
  ids: string[]
  /** Also re-send proof requests whose submission outcome is unknown before their wait is over, or that failed. An admin's decision. */
  resubmit?: boolean
  /** Claimed as due by the poll job. */
  due?: boolean
  now?: string
}

/**
 * Sends proof requests to ServiceScan (`PUT /disputes/proofRequest`).
 *
 * No compensation, on purpose: a proof request created at ServiceScan cannot
 * be deleted there, and rolling our row back to `to_submit` would send it a
 * second time (lifecycle/proof-request.ts decides every move of the row). Service errors do not fail the step; they are recorded on the
 * proof request (status, `last_error`, next attempt) so the workflow goes on.
 */
export const submitProofRequestsStep = createStep(
  "servicescan-submit-proof-requests",
  async (input: SubmitProofRequestsStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const results = await service.submitProofRequests(input.ids, {
      resubmit: input.resubmit,
      due: input.due,
      now: input.now ? new Date(input.now) : undefined,
    })
    return new StepResponse(results)
  }
)
