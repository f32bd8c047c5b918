import type { MedusaError } from "@medusajs/framework/utils"
import type { GatewayResult, ProcessorGateway } from "../../processors/types"
import { declineError } from "./errors"
import { hashId } from "./ids"
import type { FailedCall, ProviderLog } from "./provider-log"

/** Fresh request ids a refund or capture may take after replayed declines (see `ProcessorCalls.processor`). */
const MAX_TRIES_AFTER_DECLINE = 5

/** One call to the processor, as its failure is logged. */
export type ProcessorCall = FailedCall & {
  request_id: string
  /** The card is one the customer saved: a decline is told as the saved card's. */
  savedCard?: boolean
}

/**
 * How the provider makes its remote calls: a throw or a decline is mapped
 * (errors.ts) and logged here and nowhere else, through the provider's log.
 */
export class ProcessorCalls {
  constructor(private readonly log: ProviderLog) {}

  /**
   * Sends one processor transaction.
   * - `approvalOnly`: anything but an approval is refused (an authorization is never "already done").
   * - `renewKey`: the processor answers a repeated request id with the original result, declines
   *   included, and a capture's or refund's id repeats for every try of the same operation. A decline
   *   moved no money, so a replayed one goes again under a fresh id (at most MAX_TRIES_AFTER_DECLINE).
   * - `onDecline`: what to do before the decline is thrown.
   */
  async processor(
    call: ProcessorCall,
    send: (requestId: string) => Promise<GatewayResult>,
    options: { approvalOnly?: boolean; renewKey?: string; onDecline?: (result: GatewayResult) => Promise<void> } = {}
  ): Promise<{ result: GatewayResult; requestId: string }> {
    let requestId = call.request_id
    for (let attempt = 1; ; attempt++) {
      const result = await this.remote({ ...call, request_id: requestId, stage: "processor" }, () => send(requestId))
      if (options.approvalOnly ? result.outcome === "approved" : result.outcome !== "declined") {
        return { result, requestId }
      }
      if (options.renewKey && result.duplicate && attempt < MAX_TRIES_AFTER_DECLINE) {
        requestId = hashId(`${options.renewKey}:after-decline:${attempt}`)
        continue
      }
      await options.onDecline?.(result)
      throw this.fail(declineError(result, { ...this.log.context(call.operation), savedCard: call.savedCard }), {
        ...call,
        request_id: requestId,
        stage: "processor",
        // Whether an authorization's decline was replayed: the velocity limit counts it once.
        duplicate: call.operation === "authorize" ? (result.duplicate ?? false) : undefined,
      })
    }
  }

  /** Makes one remote call (the exchange, a processor call or lookup); a throw is mapped and logged. */
  async remote<T>(call: FailedCall, send: () => Promise<T>): Promise<T> {
    try {
      return await send()
    } catch (error) {
      throw this.fail(error, call)
    }
  }

  /** The error to throw for a failure, mapped through errors.ts and logged once (`ProviderLog.failure`). */
  fail(error: unknown, call: FailedCall): MedusaError {
    return this.log.failure(error, call)
  }

  /** Releases a partial approval; a failure is logged, the shopper's decline stands. */
  async releaseQuietly(
    gateway: ProcessorGateway,
    transactionId: string,
    requestId: string,
    target: "authorization" | "capture"
  ): Promise<void> {
    try {
      await gateway.cancel({ requestId, transactionId, target, paymentTransactionId: transactionId })
    } catch (error) {
      this.log.write("error", {
        operation: "authorize",
        event: "partial_approval_not_released",
        request_id: requestId,
        cnp_txn_id: transactionId,
        detail: error instanceof Error ? error.message : String(error),
      })
    }
  }
}
