import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

export type ChargebackOrderLink = { chargeback_id: string; order_id: string }

const definition = (link: ChargebackOrderLink) => ({
  [Modules.ORDER]: { order_id: link.order_id },
  [SERVICESCAN_MODULE]: { chargeback_id: link.chargeback_id },
})

/**
 * `linkChargebackToOrderStep` for a page of chargebacks, with the same rule for its compensation.
 *
 * The links are written through the order-chargeback link's own module, not `link.create`.
 * For a link whose other side is single (a chargeback has one order), `link.create` first looks
 * for any of the page's chargebacks on another order, in one `LIMIT 1` query with an OR arm per
 * link. PostgreSQL plans that query, with 250 arms, as a sequential scan of the whole link table,
 * expecting a match early, and finds none. So every page cost a scan of every link ever made:
 * 130 ms a page at 10,000 links and 1.5 s at 100,000 (bench/README.md, `bench:chargebacks`).
 * The check cannot find anything here: these chargebacks were created by this workflow's
 * previous step, with new ids, and each appears once in the page. The link module's write is
 * the same upsert `link.create` ends with, so a retried step writes the same rows again.
 */
export const linkChargebacksToOrdersStep = createStep(
  "servicescan-link-chargebacks-to-orders",
  async (links: ChargebackOrderLink[], { container }) => {
    if (links.length) {
      const orderChargebacks = container
        .resolve(ContainerRegistrationKeys.LINK)
        .getLinkModule(Modules.ORDER, "order_id", SERVICESCAN_MODULE, "chargeback_id")
      if (!orderChargebacks) {
        throw new MedusaError(MedusaError.Types.UNEXPECTED_STATE, "The order-chargeback link is not loaded (src/links/order-chargeback.ts)")
      }
      await orderChargebacks.create(links.map((link): [string, string] => [link.order_id, link.chargeback_id]))
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
