import { PaymentSessionStatus } from "@medusajs/framework/utils"
import type { GatewayResult } from "../../processors/types"
import type { RefundPart } from "./amounts"
import { unreadablePaymentDataError } from "./errors"
import type { PaymentOperation } from "./failures"
import type { ResolvedServiceScanOptions } from "./options"
import type { AuthorizationSession } from "./session-data"
import {
  paymentDataSchema,
  ServiceScanCaptureRecord,
  ServiceScanPaymentData,
  ServiceScanRefundRecord,
} from "./types"

/**
 * Reading and writing the data this provider keeps once a payment is
 * authorized (types.ts: its shape and schema): what capture, refund and
 * cancel read, and what each of them records. Pure: no call, no log.
 */

/** The payment data of an authorization, when `data` holds one; undefined otherwise. */
export function parsePaymentData(data: Record<string, unknown> | undefined): ServiceScanPaymentData | undefined {
  const parsed = paymentDataSchema.safeParse(data ?? {})
  return parsed.success ? parsed.data : undefined
}

/**
 * The payment data `operation` (capture, refund) needs.
 * @throws MedusaError INVALID_DATA when `data` holds no authorization of this provider.
 */
export function readPaymentData(
  data: Record<string, unknown> | undefined,
  operation: PaymentOperation
): ServiceScanPaymentData {
  const parsed = paymentDataSchema.safeParse(data ?? {})
  if (!parsed.success) {
    throw unreadablePaymentDataError(operation, parsed.error.issues[0])
  }
  return parsed.data
}

/**
 * The payment data of an approved authorization (or sale, with automatic
 * capture): the processor references capture, refund and cancel need, never
 * the token.
 */
export function authorizedPaymentData(
  options: Pick<ResolvedServiceScanOptions, "processor" | "capture">,
  input: {
    session: AuthorizationSession
    result: GatewayResult
    /** The approval's transaction id (`result.transactionId`, checked present). */
    transactionId: string
    requestId: string
    amountMinor: number
    /** The gateway's name. */
    gateway: string
    tokenFingerprint?: string
  }
): ServiceScanPaymentData {
  const { session, result, transactionId, requestId, amountMinor } = input
  const automatic = options.capture === "automatic"
  const now = new Date().toISOString()
  const savedCard = session.savedCard
  return {
    status: automatic ? "captured" : "authorized",
    scan_id: session.formId ?? null,
    form_id: session.formId ?? null,
    source: savedCard ? "saved_card" : "form",
    ...(savedCard ? { saved_card: { id: savedCard.id, scan_id: savedCard.scan_id } } : {}),
    ...(input.tokenFingerprint ? { token_fingerprint: input.tokenFingerprint } : {}),
    ...(session.customerId ? { customer_id: session.customerId } : {}),
    ...(session.saveCard && !savedCard ? { save_card: true } : {}),
    processor: options.processor,
    gateway: input.gateway,
    capture_mode: options.capture,
    currency_code: session.currencyCode,
    amount: session.amount,
    amount_minor: amountMinor,
    request_id: requestId,
    order_id: requestId,
    cnp_txn_id: transactionId,
    ...(result.authCode ? { auth_code: result.authCode } : {}),
    // From the gateway: only it knows whether its tokens keep the card's last four (cnpAPI's do).
    card: {
      last4: result.card?.last4 ?? savedCard?.last4 ?? null,
      type: result.card?.type ?? savedCard?.brand ?? null,
    },
    processor_response: { code: result.responseCode, message: result.message },
    captures: automatic
      ? [{ cnp_txn_id: transactionId, amount_minor: amountMinor, request_id: requestId, captured_at: now }]
      : [],
    refunds: [],
    authorized_at: now,
  }
}

/**
 * The payment data after a capture of `amountMinor` that the processor
 * approved, or answered as already done (captured by something else: another
 * request id, the processor's portal; the whole authorization then counts as
 * captured).
 */
export function withCapture(
  payment: ServiceScanPaymentData,
  capture: { result: GatewayResult; requestId: string; amountMinor: number; capturedMinor: number; captureId?: string }
): ServiceScanPaymentData {
  const { result, amountMinor } = capture
  const record: ServiceScanCaptureRecord = {
    // Unknown when captured elsewhere: refunds then have to go through the processor's portal.
    cnp_txn_id: result.outcome === "approved" ? (result.transactionId ?? "") : "",
    amount_minor: amountMinor,
    request_id: capture.requestId,
    ...(capture.captureId ? { idempotency_key: capture.captureId } : {}),
    captured_at: new Date().toISOString(),
    ...pendingOf(result),
  }
  const fully = result.outcome === "already_done" || capture.capturedMinor + amountMinor >= payment.amount_minor
  return { ...payment, status: fully ? "captured" : "authorized", captures: [...payment.captures, record] }
}

/** The record of one credit (`part` of a refund) the processor made, under Medusa's Refund id `refundId`. */
export function refundRecord(
  part: RefundPart,
  result: GatewayResult,
  requestId: string,
  refundId: string | undefined
): ServiceScanRefundRecord {
  return {
    cnp_txn_id: result.transactionId ?? "",
    amount_minor: part.amountMinor,
    capture_cnp_txn_id: part.captureTxnId,
    request_id: requestId,
    ...(refundId ? { idempotency_key: refundId } : {}),
    refunded_at: new Date().toISOString(),
    ...pendingOf(result),
  }
}

/** The payment data once the processor released the authorization (`kind`), or voided the capture. */
export function canceledPaymentData(
  payment: ServiceScanPaymentData,
  kind: "authorization" | "capture",
  result: GatewayResult
): ServiceScanPaymentData {
  return {
    ...payment,
    status: "canceled",
    cancellation: {
      kind,
      cnp_txn_id: result.transactionId ?? null,
      request_id: payment.request_id,
      processor_response: { code: result.responseCode, message: result.message },
      canceled_at: new Date().toISOString(),
      ...pendingOf(result),
    },
  }
}

/**
 * `outcome: "pending"` for an operation the processor took without deciding
 * it (`GatewayResult.pending`, Adyen's `201 received`): its notification
 * decides it later (operation-outcomes.ts).
 */
function pendingOf(result: GatewayResult): { outcome?: "pending" } {
  return result.pending ? { outcome: "pending" } : {}
}

/** The session status Medusa reads from payment data. */
export function sessionStatusOf(payment: ServiceScanPaymentData): PaymentSessionStatus {
  switch (payment.status) {
    case "authorized":
      return PaymentSessionStatus.AUTHORIZED
    case "captured":
      return PaymentSessionStatus.CAPTURED
    case "canceled":
      return PaymentSessionStatus.CANCELED
  }
}
