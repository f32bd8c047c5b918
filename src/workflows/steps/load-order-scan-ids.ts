import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { findCardScanIds } from "../utils/card-scan-ids"
import { collectOrderScanIds, OrderWithPayments } from "../utils/collect-order-scan-ids"

/**
 * Reads only: the scan ids of each order's ServiceScan payments, with, for a
 * payment made with a saved card, the scans of earlier payments with that
 * card; an order that does not exist is absent.
 */
export const loadOrderScanIdsStep = createStep(
  "servicescan-load-order-scan-ids",
  async (orderIds: string[], { container }) => {
    const ids = [...new Set(orderIds)]
    if (!ids.length) {
      return new StepResponse<Record<string, string[]>>({})
    }
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const { data } = await query.graph({
      entity: "order",
      fields: ["id", "payment_collections.payments.provider_id", "payment_collections.payments.data"],
      filters: { id: ids },
    })
    const orders = data as (OrderWithPayments & { id: string })[]
    const cardScans = await findCardScanIds(container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE), orders)
    return new StepResponse<Record<string, string[]>>(
      Object.fromEntries(
        orders.map((order) => [order.id, [...new Set([...collectOrderScanIds(order), ...(cardScans[order.id] ?? [])])]])
      )
    )
  }
)
