import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type ClaimDueSoonCasesStepInput = {
  /** `YYYY-MM-DD`: the first and the last reply-by day announced. */
  today: string
  until: string
  /** ISO time the claim is stamped with (what the compensation matches). */
  at: string
  limit: number
}

/**
 * Marks cases due soon as announced, once per case ever, and answers them.
 * The compensation clears the mark of the rows this claim made, so a run that
 * failed before its events were emitted announces them next time.
 */
export const claimDueSoonCasesStep = createStep(
  "servicescan-claim-due-soon-cases",
  async (input: ClaimDueSoonCasesStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const cases = await service.claimDueSoonCases({ today: input.today, until: input.until, at: new Date(input.at), limit: input.limit })
    return new StepResponse(cases, { ids: cases.map((row) => row.id), at: input.at })
  },
  async (claim, { container }) => {
    if (claim?.ids.length) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).releaseDueSoonCases(claim.ids, new Date(claim.at))
    }
  }
)
