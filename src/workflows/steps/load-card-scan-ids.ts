import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { findCardScanIds } from "../utils/card-scan-ids"
import type { OrderWithPayments } from "../utils/collect-order-scan-ids"

/** Reads only: per order paid with a saved card, the scans of earlier payments with that card (see findCardScanIds). */
export const loadCardScanIdsStep = createStep(
  "servicescan-load-card-scan-ids",
  async (orders: (OrderWithPayments & { id: string })[], { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    return new StepResponse<Record<string, string[]>>(await findCardScanIds(service, orders))
  }
)
