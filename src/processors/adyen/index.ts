import type { ProcessorDefinition } from "../definition"
import { AdyenDisputeGateway } from "./dispute-gateway"
import { ADYEN, AdyenConfig, adyenCheckoutUrl, adyenDisputesUrl, adyenOptionsSchema, adyenSecrets } from "./options"
import { AdyenGateway } from "./payment-gateway"

/**
 * Adyen: the Checkout API v71 for payments (`AdyenGateway`), and the Disputes
 * API v30 with its notification webhook for disputes. Both sides read the one
 * options schema (`adyenOptionsSchema`), so a store writes the same object as
 * the provider's `gateway` and the module's `disputeGateway`.
 */
export const adyen = {
  type: ADYEN,
  payment: {
    schema: adyenOptionsSchema,
    shape: '{ type: "adyen", merchantAccount, apiKey (or user, password), environment or checkoutUrl }',
    create: (config: AdyenConfig, http) => {
      const { type: _type, ...options } = config
      return new AdyenGateway({ ...options, ...http })
    },
    secrets: (config: AdyenConfig) => adyenSecrets(config),
    urls: (config: AdyenConfig) => ({ checkoutUrl: adyenCheckoutUrl(config) }),
  },
  dispute: {
    schema: adyenOptionsSchema,
    shape: '{ type: "adyen", merchantAccount, apiKey (or user, password), hmacKey, environment or disputesUrl }',
    create: (config: AdyenConfig, http) => {
      const { type: _type, ...options } = config
      return new AdyenDisputeGateway({ ...options, ...http })
    },
    urls: (config: AdyenConfig) => ({ disputesUrl: adyenDisputesUrl(config) }),
  },
} satisfies ProcessorDefinition<AdyenConfig, AdyenConfig>

export { AdyenGateway, adyenIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH } from "./payment-gateway"
export type { AdyenOperation } from "./payment-gateway"
export { AdyenDisputeGateway } from "./dispute-gateway"
export { AdyenWebhook, ADYEN_MAX_EVENT_AGE_MS } from "./notification-events"
export { cardTypeOf, classifyPayment, declineOfServiceError } from "./result-codes"
export * from "./options"
