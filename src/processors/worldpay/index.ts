import type { ProcessorDefinition } from "../definition"
import { WorldpayDisputeGateway } from "./dispute-gateway"
import {
  WORLDPAY,
  WorldpayDisputeGatewayConfig,
  worldpayDisputeGatewaySchema,
  WorldpayGatewayConfig,
  worldpayGatewaySchema,
} from "./options"
import { WorldpayGateway } from "./payment-gateway"

/**
 * Worldpay eCommerce: cnpAPI for payments (`WorldpayGateway`) and eComm's
 * Chargeback API for disputes (`WorldpayDisputeGateway`), with one merchant's
 * cnpAPI user and password for both.
 */
export const worldpay = {
  type: WORLDPAY,
  payment: {
    schema: worldpayGatewaySchema,
    shape: '{ type: "worldpay", url, merchantId, user, password }',
    create: (config: WorldpayGatewayConfig, http) =>
      new WorldpayGateway({
        url: config.url,
        merchantId: config.merchantId,
        user: config.user,
        password: config.password,
        reportGroup: config.reportGroup,
        version: config.version,
        ...http,
      }),
    secrets: (config: WorldpayGatewayConfig) => [config.password],
    urls: (config: WorldpayGatewayConfig) => ({ url: config.url }),
  },
  dispute: {
    schema: worldpayDisputeGatewaySchema,
    shape: '{ type: "worldpay", url, user, password }',
    create: (config: WorldpayDisputeGatewayConfig, http) => new WorldpayDisputeGateway({ ...config, ...http }),
    urls: (config: WorldpayDisputeGatewayConfig) => ({ url: config.url }),
  },
} satisfies ProcessorDefinition<WorldpayGatewayConfig, WorldpayDisputeGatewayConfig>

export { WorldpayDisputeGateway } from "./dispute-gateway"
export { WorldpayGateway } from "./payment-gateway"
export { classifyResponseCode } from "./response-codes"
export type { CnpTransactionType } from "./response-codes"
export { CHARGEBACK_MEDIA_TYPE, CHARGEBACK_NAMESPACE } from "./chargeback-xml"
export * from "./options"
