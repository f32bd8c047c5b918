import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseMatch } from "../../modules/servicescan/types"

export type WriteDisputeCaseMatchesStepInput = {
  /** What each case's match becomes. */
  next: DisputeCaseMatch[]
  /** What it was (the compensation writes it back). */
  previous: DisputeCaseMatch[]
}

/**
 * Writes the match of a page of imported cases (matched to an order, or why not; the chargeback
 * recorded for it) in one statement; the compensation writes the previous values back.
 */
export const writeDisputeCaseMatchesStep = createStep(
  "servicescan-write-dispute-case-matches",
  async (input: WriteDisputeCaseMatchesStepInput, { container }) => {
    await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).writeDisputeCaseMatches(input.next)
    return new StepResponse(input.next.length, input.previous)
  },
  async (previous, { container }) => {
    if (previous?.length) {
      await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).writeDisputeCaseMatches(previous)
    }
  }
)
