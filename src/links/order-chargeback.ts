import { defineLink } from "@medusajs/framework/utils"
import OrderModule from "@medusajs/medusa/order"
import ServiceScanModule from "../modules/servicescan"

/**
 * An order has any number of chargebacks:
 * `query.graph({ entity: "order", fields: ["chargebacks.*", "chargebacks.proof_requests.scans.*"] })`.
 */
export default defineLink(OrderModule.linkable.order, {
  linkable: ServiceScanModule.linkable.chargeback,
  isList: true,
})
