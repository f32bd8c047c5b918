import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { collectOrderScanIds, OrderWithPayments } from "../utils/collect-order-scan-ids"

/** Reads only: the scan ids of each order's ServiceScan payments; an order that does not exist is absent. */
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
    return new StepResponse<Record<string, string[]>>(
      Object.fromEntries(
        (data as (OrderWithPayments & { id: string })[]).map((order) => [order.id, collectOrderScanIds(order)])
      )
    )
  }
)
