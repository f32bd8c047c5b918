import { MedusaError } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { isFinalChargebackStatus } from "../../modules/servicescan/types"

/** Refuses to add evidence to a dispute that is over. Changes nothing. */
export const validateChargebackOpenStep = createStep(
  "servicescan-validate-chargeback-open",
  async (input: { chargeback: { id: string; status: string } }) => {
    if (isFinalChargebackStatus(input.chargeback.status)) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `Chargeback ${input.chargeback.id} is ${input.chargeback.status}; no evidence can be added`
      )
    }
    return new StepResponse(undefined)
  }
)
