import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

/** Status checks at ServiceScan (`GET /disputes/proof/<id>`). Reads only: nothing to compensate. */
export const fetchProofResultsStep = createStep(
  "servicescan-fetch-proof-results",
  async (input: { proof_requests: { id: string; remote_id: string | null }[] }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    return new StepResponse(await service.fetchProofResults(input.proof_requests))
  }
)
