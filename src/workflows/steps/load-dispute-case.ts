import { MedusaError } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseRow } from "../../modules/servicescan/types"

/** Reads only: a case by its id, or the case of a chargeback. 404 when there is none. */
export const loadDisputeCaseStep = createStep(
  "servicescan-load-dispute-case",
  async (input: { id?: string; chargeback_id?: string }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const filter = input.id ? { id: input.id } : { chargeback_id: input.chargeback_id }
    const [row] = (await service.listDisputeCases(filter, { take: 1 })) as DisputeCaseRow[]
    if (!row) {
      throw new MedusaError(
        MedusaError.Types.NOT_FOUND,
        input.id
          ? `Dispute case ${input.id} was not found`
          : `Chargeback ${input.chargeback_id} has no processor case: answer it in the processor's portal, or wait for the case import`
      )
    }
    return new StepResponse(row)
  }
)
