import { MedusaError } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

/**
 * Before an admin's "check now": if polling stopped on a configuration error,
 * one probe decides whether it is fixed (the key may have been repaired at the
 * operator's end). Still broken: the admin gets the reason, not a silent no-op.
 * Changes no data.
 */
export const ensureServiceAvailableStep = createStep(
  "servicescan-ensure-service-available",
  async (_input: void, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    if (await service.getConfigurationErrorHere()) {
      const probe = await service.probe()
      if (!probe.reachable && probe.configuration_error) {
        throw new MedusaError(
          MedusaError.Types.NOT_ALLOWED,
          `ServiceScan is not usable with the current configuration: ${probe.error}`
        )
      }
    }
    return new StepResponse(undefined)
  }
)
