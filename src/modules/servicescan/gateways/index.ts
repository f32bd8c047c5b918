import type { RetryEvent } from "../../../lib/http"
import type { WorldpayDisputeGatewayConfig } from "../options"
import { DisputeGateway } from "./types"
import { WorldpayDisputeGateway } from "./worldpay"

export * from "./types"
export { WorldpayDisputeGateway } from "./worldpay"

/** Builds the dispute gateway the module's options name; null when none is configured. */
export function createDisputeGateway(
  config: WorldpayDisputeGatewayConfig | DisputeGateway | undefined,
  common: { timeoutMs: number; maxRetries: number; maxDocumentBytes: number; onRetry?: (event: RetryEvent) => void }
): DisputeGateway | null {
  if (!config) {
    return null
  }
  if ("type" in config && config.type === "worldpay") {
    return new WorldpayDisputeGateway({ ...config, ...common })
  }
  return config as DisputeGateway
}
