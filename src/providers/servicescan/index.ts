import { ModuleProvider, Modules } from "@medusajs/framework/utils"
import { ServiceScanProviderService } from "./service"

/**
 * The ServiceScan payment provider. Register it in the payment module (not in
 * `plugins`):
 *
 * ```ts
 * modules: [{
 *   resolve: "@medusajs/medusa/payment",
 *   options: {
 *     providers: [{
 *       resolve: "medusa-plugin-servicescan/providers/servicescan",
 *       id: "servicescan", // provider id: pp_servicescan_servicescan
 *       options: { checkoutUrl, clientScriptUrl, shareableKey, paymentTokenApiKey, gateway },
 *     }],
 *   },
 * }]
 * ```
 */
export default ModuleProvider(Modules.PAYMENT, {
  services: [ServiceScanProviderService],
})

export { ServiceScanProviderService }
export type {
  ResolvedServiceScanOptions,
  ServiceScanFormConfigOptions,
  ServiceScanOptions,
} from "./options"
export { parseServiceScanOptions } from "./options"
export type {
  AuthorizeRequest,
  CancelRequest,
  CaptureRequest,
  DeclineReason,
  GatewayCard,
  GatewayOutcome,
  GatewayRequestBase,
  GatewayResult,
  ProcessorGateway,
  RefundRequest,
} from "../../processors/types"
export {
  GatewayConfigurationError,
  GatewayError,
  GatewayProtocolError,
  isProcessorGateway,
} from "../../processors/types"
export { WorldpayGateway } from "../../processors/worldpay"
export type { WorldpayGatewayConfig, WorldpayGatewayOptions } from "../../processors/worldpay"
export { ServiceScanPaymentError } from "./errors"
export type { FailureCategory, FailureStage, PaymentOperation, ProcessorResponse } from "./failures"
export type {
  ServiceScanCaptureRecord,
  ServiceScanFormConfig,
  ServiceScanPaymentData,
  ServiceScanPaymentStatus,
  ServiceScanRefundRecord,
  ServiceScanSessionData,
} from "./types"
