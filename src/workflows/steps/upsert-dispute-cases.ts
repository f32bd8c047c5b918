import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type { DisputeCaseRecord } from "../../processors/types"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type UpsertDisputeCasesStepInput = { gateway: string; cases: DisputeCaseRecord[]; today: string }

/** Stores a page of cases as the processor publishes them (see `upsertDisputeCases`); undone by restoring them. */
export const upsertDisputeCasesStep = createStep(
  "servicescan-upsert-dispute-cases",
  async (input: UpsertDisputeCasesStepInput, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const { rows, created, previous } = await service.upsertDisputeCases(input.gateway, input.cases, input.today)
    return new StepResponse({ rows, created }, { created, previous })
  },
  async (undo, { container }) => {
    if (!undo) {
      return
    }
    await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).undoDisputeCaseUpsert(undo)
  }
)
