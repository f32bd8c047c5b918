import { DisputeGatewayConfigurationError, DisputeGatewayProtocolError } from "../types"
import { WORLDPAY } from "./options"

/**
 * Worldpay's own errors, and how the dispute side makes the contract's
 * errors with Worldpay's name and wording. The payment gateway wraps a
 * CnpParseError in a GatewayProtocolError; the dispute side throws the
 * contract's errors directly.
 */

/** Thrown when a response is not a readable cnpAPI answer. */
export class CnpParseError extends Error {}

/** A Chargeback API answer that cannot be read: "Worldpay's Chargeback API answered <message>". */
export function chargebackAnswerError(message: string, cause?: unknown): DisputeGatewayProtocolError {
  return new DisputeGatewayProtocolError(`Worldpay's Chargeback API answered ${message}`, {
    gateway: WORLDPAY,
    cause,
  })
}

/** Options the dispute gateway cannot work with, given to its constructor. */
export function disputeConfigurationError(message: string): DisputeGatewayConfigurationError {
  return new DisputeGatewayConfigurationError(`Worldpay dispute gateway: ${message}`, { gateway: WORLDPAY })
}
