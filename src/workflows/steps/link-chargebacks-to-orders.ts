import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type ChargebackOrderLink = { chargeback_id: string; order_id: string }

const definition = (link: ChargebackOrderLink) => ({
  [Modules.ORDER]: { order_id: link.order_id },
  [SERVICESCAN_MODULE]: { chargeback_id: link.chargeback_id },
})

/** `linkChargebackToOrderStep` for a page of chargebacks, with the same rule for its compensation. */
export const linkChargebacksToOrdersStep = createStep(
  "servicescan-link-chargebacks-to-orders",
  async (links: ChargebackOrderLink[], { container }) => {
    if (links.length) {
      await container.resolve(ContainerRegistrationKeys.LINK).create(links.map(definition))
    }
    return new StepResponse(undefined, links)
  },
  async (links, { container }) => {
    if (!links?.length) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const keep = await Promise.all(links.map((link) => service.chargebackHasRemoteProof(link.chargeback_id)))
    const dismiss = links.filter((_, index) => !keep[index])
    if (dismiss.length) {
      await container.resolve(ContainerRegistrationKeys.LINK).dismiss(dismiss.map(definition))
    }
  }
)
