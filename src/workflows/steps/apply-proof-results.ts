import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type { FetchOutcome, ProofResultsSnapshot } from "../../modules/servicescan/types"
import type ServiceScanModuleService from "../../modules/servicescan/service"

/** Stores what the status checks found: ground truths, statuses, next poll times. */
export const applyProofResultsStep = createStep(
  "servicescan-apply-proof-results",
  async (input: { outcomes: FetchOutcome[]; now?: string }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const { completed, snapshot } = await service.applyProofResults(input.outcomes, {
      now: input.now ? new Date(input.now) : undefined,
    })
    return new StepResponse(completed, snapshot)
  },
  async (snapshot: ProofResultsSnapshot | undefined, { container }) => {
    if (!snapshot) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    await service.restoreProofResults(snapshot)
  }
)
