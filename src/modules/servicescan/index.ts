import { Module } from "@medusajs/framework/utils"
import validateOptionsLoader from "./loaders/validate-options"
import ServiceScanModuleService from "./service"

/** The module's registration name: `container.resolve(SERVICESCAN_MODULE)`. */
export const SERVICESCAN_MODULE = "servicescan"

export default Module(SERVICESCAN_MODULE, {
  service: ServiceScanModuleService,
  loaders: [validateOptionsLoader],
})

export { ServiceScanModuleService }
export * from "./types"
export { WorldpayDisputeGateway, type WorldpayDisputeGatewayOptions } from "./gateways/worldpay"
export * from "./gateways/types"
export { DisputeGatewayConfigurationError } from "./gateways/errors"
export type { ServiceScanModuleOptions } from "./options"
