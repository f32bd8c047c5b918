/**
 * The processor refused the gateway's credentials or account: HTTP 401/403
 * from a chargeback API. Retrying cannot help; the merchant's configuration
 * (user, password, API access at the processor) must change. The message
 * says what to check and never carries the credentials themselves.
 *
 * Beside `DisputeGatewayRefusal` and `DisputeGatewayProtocolError` of
 * `./types`; proposed to move there.
 */
export class DisputeGatewayConfigurationError extends Error {
  readonly gateway: string
  /** The HTTP status the processor answered, e.g. 401. */
  readonly status?: number

  constructor(message: string, options: { gateway: string; status?: number; cause?: unknown }) {
    super(message, { cause: options.cause })
    this.name = "DisputeGatewayConfigurationError"
    this.gateway = options.gateway
    this.status = options.status
  }
}
