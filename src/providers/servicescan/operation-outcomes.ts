import type { OperationOutcome } from "../../processors/types"
import type { LaterOutcome, ServiceScanPaymentData } from "./types"

/**
 * A processor's later word on a capture, refund or cancel it took without
 * deciding it (Adyen's `201 received`; the payment data records it
 * `outcome: "pending"`), applied to the payment data. Pure: the workflow
 * `apply-operation-outcome` reads and writes the payment around it.
 *
 * - Idempotent: an outcome already applied (the same notification delivered
 *   again) changes nothing, and a decided record is never decided again, so
 *   out-of-order deliveries cannot flip a failure back to a success.
 * - A failed capture stops counting as captured, and a failed refund as
 *   refunded (amounts.ts skips them), so the next capture or refund is sized
 *   by what the processor really holds. A failed cancel leaves the payment as
 *   it was before the cancel.
 * - Medusa's own Capture and Refund rows are not changed here: the payment
 *   module has no way to undo one. The workflow tells the merchant.
 */

/** What applying one outcome did. */
export type OutcomeEffect =
  /** The record was pending and is now decided. */
  | "applied"
  /** The record was decided already (a repeated or late notification). */
  | "unchanged"
  /** No record of this operation on this payment (not saved yet, or made outside Medusa). */
  | "unmatched"

/** The payment data after `outcome`, and what changed. */
export function applyOperationOutcome(
  payment: ServiceScanPaymentData,
  outcome: OperationOutcome
): { data: ServiceScanPaymentData; effect: OutcomeEffect } {
  const decided: LaterOutcome = {
    outcome: outcome.success ? "succeeded" : "failed",
    ...(outcome.success || !outcome.reason ? {} : { outcome_reason: outcome.reason }),
    outcome_at: outcome.occurredAt,
  }
  switch (outcome.operation) {
    case "capture": {
      const index = payment.captures.findIndex((capture) => capture.cnp_txn_id === outcome.transactionId)
      if (index < 0) {
        return { data: payment, effect: "unmatched" }
      }
      if (!isPending(payment.captures[index])) {
        return { data: payment, effect: "unchanged" }
      }
      const captures = payment.captures.map((capture, at) => (at === index ? { ...capture, ...decided } : capture))
      const captured = captures.filter((capture) => capture.outcome !== "failed").reduce((sum, c) => sum + c.amount_minor, 0)
      const status = payment.status === "canceled" ? "canceled" : captured >= payment.amount_minor ? "captured" : "authorized"
      return { data: { ...payment, captures, status }, effect: "applied" }
    }
    case "refund": {
      const index = payment.refunds.findIndex((refund) => refund.cnp_txn_id === outcome.transactionId)
      if (index < 0) {
        return { data: payment, effect: "unmatched" }
      }
      if (!isPending(payment.refunds[index])) {
        return { data: payment, effect: "unchanged" }
      }
      const refunds = payment.refunds.map((refund, at) => (at === index ? { ...refund, ...decided } : refund))
      return { data: { ...payment, refunds }, effect: "applied" }
    }
    case "cancel": {
      const cancellation = payment.cancellation
      if (!cancellation || cancellation.cnp_txn_id !== outcome.transactionId) {
        return { data: payment, effect: "unmatched" }
      }
      if (!isPending(cancellation)) {
        return { data: payment, effect: "unchanged" }
      }
      const data: ServiceScanPaymentData = { ...payment, cancellation: { ...cancellation, ...decided } }
      if (!outcome.success) {
        // Nothing was released: the payment holds what it held before the cancel.
        data.status = cancellation.kind === "capture" ? "captured" : "authorized"
      }
      return { data, effect: "applied" }
    }
  }
}

/** Whether a record still waits for the processor's word. */
function isPending(record: LaterOutcome): boolean {
  return record.outcome === "pending"
}
