import { MathBN } from "@medusajs/framework/utils"
import { MoneyAmount, roundToCurrencyPrecision, toMinorUnits } from "../../processors/money"
import { operationRefusal, refundAmountError } from "./errors"
import type { ServiceScanPaymentData } from "./types"

/**
 * What the processor holds for one payment, in minor units, from the payment's
 * own records: the one place capture, refund and cancel read "how much is
 * left" and refuse, before anything is sent, what the processor cannot do.
 */

/** The minor units captured so far (the sale's amount for an automatic capture); a capture the processor failed later moved nothing. */
export function capturedMinorOf(payment: Pick<ServiceScanPaymentData, "captures">): number {
  return payment.captures.filter(moved).reduce((sum, capture) => sum + capture.amount_minor, 0)
}

/** An operation that moved (or may still move) money: not one the processor reported failed later. */
function moved(record: { outcome?: string }): boolean {
  return record.outcome !== "failed"
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
    .filter(moved)
    .map((capture) => ({
      captureTxnId: capture.cnp_txn_id,
      remaining:
        capture.amount_minor -
        payment.refunds
          .filter((refund) => moved(refund) && capture.cnp_txn_id !== "" && refund.capture_cnp_txn_id === capture.cnp_txn_id)
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

/**
 * The minor units Medusa's Capture asks for (`amount`, read from the Capture
 * `captureId`), checked against what remains authorized. Refuses, before
 * anything is sent, when the Capture could not be read.
 */
export function captureMinorFor(
  payment: Pick<ServiceScanPaymentData, "amount_minor" | "currency_code">,
  capturedMinor: number,
  amount: MoneyAmount | undefined,
  captureId: string | undefined
): number {
  if (amount === undefined) {
    throw operationRefusal({ reason: "captureUnreadable", captureId })
  }
  const remaining = payment.amount_minor - capturedMinor
  const rounded = roundToCurrencyPrecision(amount, payment.currency_code)
  let minor = toMinorUnits(rounded, payment.currency_code)
  // Medusa keeps amounts at full precision while the processor counts minor units: the last of
  // several partial captures of amounts finer than the currency can overshoot by one unit.
  if (!MathBN.eq(rounded, amount) && minor > remaining && minor - remaining <= 1) {
    minor = remaining
  }
  if (minor <= 0) {
    throw operationRefusal({ reason: "captureNotPositive" })
  }
  if (minor > remaining) {
    throw operationRefusal({ reason: "captureExceeds", minor, remaining })
  }
  return minor
}

/** The credits a refund of `amount` (major units, as Medusa gives it) is sent as; refuses what cannot be refunded. */
export function refundPartsFor(
  payment: Pick<ServiceScanPaymentData, "status" | "captures" | "refunds" | "currency_code">,
  amount: MoneyAmount
): RefundPart[] {
  if (payment.status === "canceled") {
    throw operationRefusal({ reason: "refundCanceled" })
  }
  if (payment.captures.length === 0) {
    throw operationRefusal({ reason: "refundNotCaptured" })
  }
  const rounded = roundToCurrencyPrecision(amount, payment.currency_code)
  const amountMinor = toMinorUnits(rounded, payment.currency_code)
  if (amountMinor <= 0) {
    throw refundAmountError()
  }
  const plan = planRefund(payment, amountMinor, !MathBN.eq(rounded, amount))
  if ("refusal" in plan) {
    throw operationRefusal({ reason: plan.refusal === "exceeds" ? "refundExceeds" : "refundCapturedElsewhere" })
  }
  return plan.parts
}

/**
 * What a cancel releases: the authorization (cnpAPI authReversal), or the one
 * capture or sale that took all of it (cnpAPI void). Refuses a payment with
 * refunds or with part of it captured: Medusa would then call a payment with
 * captured money "canceled", and refunds of a canceled payment are refused.
 */
export function voidTargetOf(
  payment: Pick<ServiceScanPaymentData, "status" | "captures" | "refunds" | "cnp_txn_id">
): { transactionId: string; kind: "authorization" | "capture" } {
  if (payment.refunds.length > 0) {
    throw operationRefusal({ reason: "cancelRefunded" })
  }
  const captured = payment.status === "captured"
  if (payment.captures.length > 1 || (payment.captures.length === 1 && !captured)) {
    throw operationRefusal({ reason: "cancelPartlyCaptured" })
  }
  const lastCapture = payment.captures[payment.captures.length - 1]
  const transactionId = captured ? lastCapture?.cnp_txn_id : payment.cnp_txn_id
  if (!transactionId) {
    throw operationRefusal({ reason: "cancelCapturedElsewhere" })
  }
  return { transactionId, kind: captured ? "capture" : "authorization" }
}
