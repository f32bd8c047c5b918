import type { OperationOutcome } from "../../processors/types"
import type { LaterOutcome, ServiceScanPaymentData } from "./types"

/**
 * A processor's later word on a capture, refund or cancel it took without
 * deciding it (Adyen's `201 received`; the payment data records it
 * `outcome: "pending"`), applied to the payment data. Pure: the workflow
 * `apply-operation-outcome` reads and writes the payment around it.
 *
 * - Idempotent: an outcome already applied (the same notification delivered
 *   again) changes nothing. A success may still become a failure (the
 *   processor reversed it later), never a failure a success, so
 *   out-of-order deliveries cannot flip a failure back to a success.
 * - Found by the operation's id across captures, refunds and the
 *   cancellation, whatever the processor calls the operation.
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
  // Found by the operation's own id wherever the payment records it: a processor may confirm an
  // operation under another name than the one it was sent as (Adyen answers a reversal of a
  // captured payment, recorded as the cancellation, with CANCEL_OR_REFUND "refund").
  const captureAt = payment.captures.findIndex((capture) => capture.cnp_txn_id === outcome.transactionId)
  if (captureAt >= 0) {
    if (!decides(payment.captures[captureAt], decided)) {
      return { data: payment, effect: "unchanged" }
    }
    const captures = payment.captures.map((capture, at) => (at === captureAt ? { ...capture, ...decided } : capture))
    const captured = captures.filter((capture) => capture.outcome !== "failed").reduce((sum, c) => sum + c.amount_minor, 0)
    const status = payment.status === "canceled" ? "canceled" : captured >= payment.amount_minor ? "captured" : "authorized"
    return { data: { ...payment, captures, status }, effect: "applied" }
  }
  const refundAt = payment.refunds.findIndex((refund) => refund.cnp_txn_id === outcome.transactionId)
  if (refundAt >= 0) {
    if (!decides(payment.refunds[refundAt], decided)) {
      return { data: payment, effect: "unchanged" }
    }
    const refunds = payment.refunds.map((refund, at) => (at === refundAt ? { ...refund, ...decided } : refund))
    return { data: { ...payment, refunds }, effect: "applied" }
  }
  const cancellation = payment.cancellation
  if (cancellation && cancellation.cnp_txn_id === outcome.transactionId) {
    if (!decides(cancellation, decided)) {
      return { data: payment, effect: "unchanged" }
    }
    const data: ServiceScanPaymentData = { ...payment, cancellation: { ...cancellation, ...decided } }
    if (!outcome.success) {
      // Nothing was released: the payment holds what it held before the cancel.
      data.status = cancellation.kind === "capture" ? "captured" : "authorized"
    }
    return { data, effect: "applied" }
  }
  return { data: payment, effect: "unmatched" }
}

/**
 * Whether `next` changes what `record` says. A pending record takes either
 * word; a success can still turn into a failure (Adyen's CAPTURE_FAILED after
 * CAPTURE, REFUNDED_REVERSED after REFUND: the money came back after all); a
 * failure is final, so a late or repeated success never undoes it.
 */
function decides(record: LaterOutcome, next: LaterOutcome): boolean {
  if (record.outcome === "pending") {
    return true
  }
  // No outcome field: the processor decided it in its answer, a success.
  return record.outcome !== "failed" && next.outcome === "failed"
}
