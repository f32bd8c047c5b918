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
export { WorldpayDisputeGateway, type WorldpayDisputeGatewayOptions } from "../../processors/worldpay"
export {
  DISPUTE_GATEWAY_METHODS,
  DisputeGatewayConfigurationError,
  DisputeGatewayProtocolError,
  DisputeGatewayRefusal,
  isDisputeGateway,
  WebhookRejection,
} from "../../processors/types"
export type {
  DisputeActivity,
  DisputeCaseRecord,
  DisputeGateway,
  DisputeUpdateResult,
  ProcessorWebhook,
  PushedEvent,
} from "../../processors/types"
export type { ServiceScanModuleOptions } from "./options"
