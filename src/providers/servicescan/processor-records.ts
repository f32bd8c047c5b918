import type { GatewayResult, ProcessorGateway } from "../../processors/types"

/**
 * What the processor's own records say about a request id (the gateway's
 * optional `lookup`, cnpAPI `queryTransaction`): whether an authorization
 * exists and whether it was released since. Read there, never from any
 * process's memory, because the server and the workers must agree. A gateway
 * without `lookup` knows of nothing.
 */

/**
 * Whether the processor released what `requestId` authorized (or voided what
 * it charged, with `automatic` capture), by its own records. False when the
 * gateway cannot look transactions up.
 */
export async function releasedAtProcessor(
  gateway: ProcessorGateway,
  requestId: string,
  automatic: boolean
): Promise<boolean> {
  if (!gateway.lookup) {
    return false
  }
  const found = await gateway.lookup({ requestId, type: automatic ? "void" : "authReversal" })
  return found.some((answer) => answer.outcome !== "declined")
}

/** The authorization (or sale) the processor holds under `requestId` and has not released, if any. */
export async function liveAtProcessor(
  gateway: ProcessorGateway,
  requestId: string,
  automatic: boolean
): Promise<GatewayResult | undefined> {
  if (!gateway.lookup) {
    return undefined
  }
  const found = await gateway.lookup({ requestId, type: automatic ? "sale" : "authorization" })
  const approved = found.find((answer) => answer.outcome === "approved" && answer.transactionId)
  if (!approved || (await releasedAtProcessor(gateway, requestId, automatic))) {
    return undefined
  }
  return approved
}
