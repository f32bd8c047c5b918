import type { ServiceScanPaymentData } from "./types"

/**
 * What the processor holds for one payment, in minor units, from the payment's
 * own records: the one place capture and refund read "how much is left".
 */

/** The minor units captured so far (the sale's amount for an automatic capture). */
export function capturedMinorOf(payment: Pick<ServiceScanPaymentData, "captures">): number {
  return payment.captures.reduce((sum, capture) => sum + capture.amount_minor, 0)
}

/** One credit of a refund: the capture it credits and how much. */
export type RefundPart = { captureTxnId: string; amountMinor: number }

export type RefundPlan =
  | { parts: RefundPart[] }
  /** `exceeds`: more than remains captured; `capturedElsewhere`: the capture's processor id is unknown. */
  | { refusal: "exceeds" | "capturedElsewhere" }

/**
 * Which captures a refund of `amountMinor` credits. One capture that can take
 * it all is preferred (one credit, as before partial captures); otherwise the
 * captures are credited oldest first.
 *
 * `rounded`: the amount had more decimals than the currency and was rounded.
 * Medusa keeps amounts at full precision while the processor counts minor
 * units, so the last of several such refunds may overshoot what remains by
 * one unit, and is trimmed to it. An amount typed in whole minor units is
 * never trimmed: Medusa allows one unit over what was captured, and trimming
 * would record a refund the processor did not make.
 */
export function planRefund(
  payment: Pick<ServiceScanPaymentData, "captures" | "refunds">,
  amountMinor: number,
  rounded = false
): RefundPlan {
  const open = payment.captures
    .map((capture) => ({
      captureTxnId: capture.cnp_txn_id,
      remaining:
        capture.amount_minor -
        payment.refunds
          .filter((refund) => capture.cnp_txn_id !== "" && refund.capture_cnp_txn_id === capture.cnp_txn_id)
          .reduce((sum, refund) => sum + refund.amount_minor, 0),
    }))
    .filter((entry) => entry.remaining > 0)
  const total = open.reduce((sum, entry) => sum + entry.remaining, 0)
  let amount = amountMinor
  if (rounded && amount > total && amount - total <= 1 && total > 0) {
    amount = total
  }
  if (amount > total) {
    return { refusal: "exceeds" }
  }
  const single = open.find((entry) => entry.remaining >= amount)
  const parts: RefundPart[] = []
  if (single) {
    parts.push({ captureTxnId: single.captureTxnId, amountMinor: amount })
  } else {
    let left = amount
    for (const entry of open) {
      if (left === 0) break
      const part = Math.min(left, entry.remaining)
      parts.push({ captureTxnId: entry.captureTxnId, amountMinor: part })
      left -= part
    }
  }
  return parts.some((part) => part.captureTxnId === "") ? { refusal: "capturedElsewhere" } : { parts }
}
