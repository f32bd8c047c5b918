import * as crypto from "node:crypto";
import type { Log } from "../../server";
import { behaviourOf, expired, REFUSALS, type Refusal } from "./cards";
import type { AdyenMerchant, AdyenModification, AdyenPayment, AdyenStore, Amount, ModificationType, StoredCard } from "./state";
import type { Webhooks } from "./webhooks";

/**
 * The money side of the simulated Adyen: authorisations with stored cards and the modifications
 * that follow them. A modification's outcome is decided when its request arrives and reported
 * only by its webhook, as Adyen does: the API's 201 `received` says nothing about success.
 * Requests reach this class already authenticated and validated (checkout-api.ts).
 */

export interface AuthoriseInput {
  reference: string;
  amount: Amount;
  card: StoredCard;
  shopperReference: string;
  shopperInteraction: string;
  recurringProcessingModel: string;
  manualCapture: boolean;
  captureDelayHours: number | null;
}

export type PaymentResponseBody = Record<string, unknown>;

/** Why a modification fails, in the `reason` of its `success: "false"` webhook. */
export const FAILURES = {
  balance: "Insufficient balance on payment",
  notCaptured: "Transaction hasn't been captured, refund not possible",
  refused: "Original payment was refused",
  cancelled: "Payment has already been cancelled",
  captured: "Payment has already been captured",
  currency: "Currency does not match the original payment",
  notFound: "Original payment not found",
} as const;

export class Checkout {
  /** delayed automatic captures (captureDelayHours) */
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly store: AdyenStore,
    private readonly webhooks: Webhooks,
    private readonly log: Log,
  ) {}

  authorise(merchant: AdyenMerchant, input: AuthoriseInput, request: unknown, idempotencyKey: string | null): AdyenPayment {
    const { card } = input;
    const behaviour = behaviourOf(card.cardNumber);
    let refusal: Refusal | null = behaviour.kind === "refuse" ? behaviour.refusal : null;
    if (!refusal && expired(card.expiryMonth, card.expiryYear, new Date())) refusal = REFUSALS.expiredCard;
    const authorised = refusal === null;
    const captureMode = captureModeOf(merchant, input);
    const payment: AdyenPayment = {
      seq: this.store.nextSeq(),
      pspReference: this.store.newPspReference(),
      merchantAccount: merchant.merchantAccount,
      reference: input.reference,
      amount: { ...input.amount },
      resultCode: authorised ? "Authorised" : "Refused",
      refusalReason: refusal?.reason ?? null,
      refusalReasonCode: refusal?.code ?? null,
      storedPaymentMethodId: card.storedPaymentMethodId,
      shopperReference: input.shopperReference,
      shopperInteraction: input.shopperInteraction,
      recurringProcessingModel: input.recurringProcessingModel,
      brand: card.brand,
      cardNumber: card.cardNumber,
      expiryMonth: card.expiryMonth,
      expiryYear: card.expiryYear,
      authCode: authorised ? String(crypto.randomInt(100000, 1000000)) : null,
      captureMode,
      idempotencyKey,
      replays: 0,
      captured: authorised && captureMode === "immediate" ? input.amount.value : 0,
      refunded: 0,
      cancelled: false,
      remainderReleased: false,
      request,
      response: null,
      createdAt: new Date().toISOString(),
    };
    payment.response = paymentResponse(payment, refusal);
    this.store.payments.set(payment.pspReference, payment);
    if (authorised && captureMode === "delayed" && input.captureDelayHours !== null) {
      this.scheduleCapture(payment, input.captureDelayHours);
    }

    const last4 = card.cardNumber.slice(-4);
    const expiry = `${card.expiryMonth}/${card.expiryYear}`;
    this.webhooks.enqueue({
      merchant,
      eventCode: "AUTHORISATION",
      pspReference: payment.pspReference,
      merchantReference: payment.reference,
      amount: payment.amount,
      success: authorised,
      // Adyen's AUTHORISATION reason: authCode:last4:expiry, or the refusal reason.
      reason: authorised ? `${payment.authCode}:${last4}:${expiry}` : (refusal?.reason ?? ""),
      paymentMethod: card.brand,
      ...(authorised ? { operations: ["CANCEL", "CAPTURE", "REFUND"] } : {}),
      additionalData: {
        ...(payment.authCode ? { authCode: payment.authCode } : {}),
        cardSummary: last4,
        expiryDate: `${Number(card.expiryMonth)}/${card.expiryYear}`,
        paymentMethodVariant: card.brand,
        "recurring.recurringDetailReference": card.storedPaymentMethodId,
        "recurring.shopperReference": input.shopperReference,
        recurringProcessingModel: input.recurringProcessingModel,
        shopperInteraction: input.shopperInteraction,
        shopperReference: input.shopperReference,
        ...(refusal ? { refusalReasonRaw: refusal.raw } : {}),
      },
    });
    this.log("info", `adyen: /payments ${payment.merchantAccount} ${payment.reference} -> ${payment.resultCode} ${payment.pspReference}`);
    return payment;
  }

  capture(merchant: AdyenMerchant, payment: AdyenPayment, amount: Amount, reference: string | null, request: unknown, key: string | null): AdyenModification {
    const failure = captureFailure(payment, amount);
    if (failure === null) {
      payment.captured += amount.value;
      // Without "multiple partial captures", Adyen cancels what a partial capture leaves.
      if (!merchant.multiplePartialCaptures && payment.captured < payment.amount.value) payment.remainderReleased = true;
    }
    return this.modify(merchant, payment, "capture", { amount, reference, failure, request, key, eventCode: "CAPTURE" });
  }

  refund(merchant: AdyenMerchant, payment: AdyenPayment, amount: Amount, reference: string | null, request: unknown, key: string | null): AdyenModification {
    const failure = refundFailure(payment, amount);
    if (failure === null) payment.refunded += amount.value;
    return this.modify(merchant, payment, "refund", { amount, reference, failure, request, key, eventCode: "REFUND" });
  }

  cancel(merchant: AdyenMerchant, payment: AdyenPayment, reference: string | null, request: unknown, key: string | null): AdyenModification {
    const failure = this.cancelFailure(payment);
    if (failure === null) payment.cancelled = true;
    return this.modify(merchant, payment, "cancel", { amount: null, reference, failure, request, key, eventCode: "CANCELLATION" });
  }

  /** Refunds what was captured, or cancels when nothing was: always the whole payment. */
  reverse(merchant: AdyenMerchant, payment: AdyenPayment, reference: string | null, request: unknown, key: string | null): AdyenModification {
    const action: "cancel" | "refund" = payment.captured > 0 ? "refund" : "cancel";
    let failure: string | null = null;
    if (payment.resultCode !== "Authorised") failure = FAILURES.refused;
    else if (payment.cancelled) failure = FAILURES.cancelled;
    else if (action === "refund" && payment.refunded >= payment.captured) failure = FAILURES.balance;
    if (failure === null) {
      if (action === "refund") payment.refunded = payment.captured;
      else payment.cancelled = true;
    }
    return this.modify(merchant, payment, "reversal", { amount: null, reference, failure, request, key, eventCode: "CANCEL_OR_REFUND", action });
  }

  /**
   * The standalone cancel, by the merchant's payment reference: for a payment whose `/payments`
   * answer never arrived. It cancels the latest authorisation with that reference.
   */
  technicalCancel(merchant: AdyenMerchant, paymentReference: string, reference: string | null, request: unknown, key: string | null): AdyenModification {
    const payment = [...this.store.payments.values()]
      .filter((p) => p.merchantAccount === merchant.merchantAccount && p.reference === paymentReference && p.resultCode === "Authorised")
      .sort((a, b) => b.seq - a.seq)[0];
    if (!payment) {
      const modification = this.record(merchant, null, "technicalCancel", { amount: null, reference, failure: FAILURES.notFound, request, key, paymentReference });
      this.webhooks.enqueue({
        merchant,
        eventCode: "TECHNICAL_CANCEL",
        pspReference: modification.pspReference,
        merchantReference: paymentReference,
        // Nothing was found to take an amount from.
        amount: { value: 0, currency: "EUR" },
        success: false,
        reason: FAILURES.notFound,
      });
      return modification;
    }
    const failure = this.cancelFailure(payment);
    if (failure === null) payment.cancelled = true;
    return this.modify(merchant, payment, "technicalCancel", { amount: null, reference, failure, request, key, eventCode: "TECHNICAL_CANCEL", paymentReference });
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private cancelFailure(payment: AdyenPayment): string | null {
    if (payment.resultCode !== "Authorised") return FAILURES.refused;
    if (payment.cancelled) return FAILURES.cancelled;
    if (payment.captured > 0) return FAILURES.captured;
    return null;
  }

  private scheduleCapture(payment: AdyenPayment, hours: number): void {
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (!payment.cancelled && payment.captured === 0) payment.captured = payment.amount.value;
      },
      hours * 60 * 60_000 * this.store.settings.timeScale,
    );
    timer.unref();
    this.timers.add(timer);
  }

  private record(
    merchant: AdyenMerchant,
    payment: AdyenPayment | null,
    type: ModificationType,
    details: { amount: Amount | null; reference: string | null; failure: string | null; request: unknown; key: string | null; paymentReference?: string; action?: "cancel" | "refund" },
  ): AdyenModification {
    const modification: AdyenModification = {
      seq: this.store.nextSeq(),
      type,
      pspReference: this.store.newPspReference(),
      paymentPspReference: payment?.pspReference ?? null,
      merchantAccount: merchant.merchantAccount,
      reference: details.reference,
      paymentReference: details.paymentReference ?? null,
      amount: details.amount ? { ...details.amount } : null,
      success: details.failure === null,
      reason: details.failure ?? "",
      action: details.action ?? null,
      idempotencyKey: details.key,
      replays: 0,
      request: details.request,
      response: null,
      createdAt: new Date().toISOString(),
    };
    this.store.modifications.set(modification.pspReference, modification);
    this.log("info", `adyen: ${type} ${modification.pspReference} of ${modification.paymentPspReference ?? "-"} -> ${modification.success ? "success" : `failure: ${modification.reason}`}`);
    return modification;
  }

  private modify(
    merchant: AdyenMerchant,
    payment: AdyenPayment,
    type: ModificationType,
    details: {
      amount: Amount | null;
      reference: string | null;
      failure: string | null;
      request: unknown;
      key: string | null;
      eventCode: string;
      paymentReference?: string;
      action?: "cancel" | "refund";
    },
  ): AdyenModification {
    const modification = this.record(merchant, payment, type, details);
    this.webhooks.enqueue({
      merchant,
      eventCode: details.eventCode,
      pspReference: modification.pspReference,
      originalReference: payment.pspReference,
      // The payment's reference: Adyen's "reference to uniquely identify the payment".
      merchantReference: payment.reference,
      // Captures and refunds report their own amount; cancels and reversals the payment's.
      amount: details.amount ?? payment.amount,
      success: modification.success,
      reason: modification.reason,
      paymentMethod: payment.brand,
      additionalData: {
        paymentMethodVariant: payment.brand,
        ...(details.action ? { "modification.action": details.action } : {}),
      },
    });
    return modification;
  }
}

/**
 * `additionalData.manualCapture` wins; then `captureDelayHours` (0 is at once); then the
 * merchant account's capture delay setting.
 */
function captureModeOf(merchant: AdyenMerchant, input: AuthoriseInput): AdyenPayment["captureMode"] {
  if (input.manualCapture) return "manual";
  if (input.captureDelayHours !== null) return input.captureDelayHours > 0 ? "delayed" : "immediate";
  return merchant.captureDelay;
}

function captureFailure(payment: AdyenPayment, amount: Amount): string | null {
  if (payment.resultCode !== "Authorised") return FAILURES.refused;
  if (payment.cancelled) return FAILURES.cancelled;
  if (amount.currency !== payment.amount.currency) return FAILURES.currency;
  if (payment.remainderReleased || payment.captured + amount.value > payment.amount.value) return FAILURES.balance;
  return null;
}

function refundFailure(payment: AdyenPayment, amount: Amount): string | null {
  if (payment.resultCode !== "Authorised") return FAILURES.refused;
  if (amount.currency !== payment.amount.currency) return FAILURES.currency;
  if (payment.captured === 0) return FAILURES.notCaptured;
  if (payment.refunded + amount.value > payment.captured) return FAILURES.balance;
  return null;
}

/** `PaymentResponse` for a stored-card payment: Authorised with card details, or Refused with the reason. */
function paymentResponse(payment: AdyenPayment, refusal: Refusal | null): PaymentResponseBody {
  const last4 = payment.cardNumber.slice(-4);
  if (refusal) {
    return {
      additionalData: { cardSummary: last4, merchantReference: payment.reference, refusalReasonRaw: refusal.raw },
      amount: payment.amount,
      merchantReference: payment.reference,
      pspReference: payment.pspReference,
      refusalReason: refusal.reason,
      refusalReasonCode: refusal.code,
      resultCode: "Refused",
    };
  }
  return {
    additionalData: {
      authCode: payment.authCode ?? "",
      cardSummary: last4,
      expiryDate: `${Number(payment.expiryMonth)}/${payment.expiryYear}`,
      merchantReference: payment.reference,
      paymentMethod: payment.brand,
      paymentMethodVariant: payment.brand,
      "recurring.recurringDetailReference": payment.storedPaymentMethodId,
      "recurring.shopperReference": payment.shopperReference,
      recurringProcessingModel: payment.recurringProcessingModel,
      refusalReasonRaw: "AUTHORISED",
      shopperInteraction: payment.shopperInteraction,
      "tokenization.shopperReference": payment.shopperReference,
      "tokenization.storedPaymentMethodId": payment.storedPaymentMethodId,
    },
    amount: payment.amount,
    merchantReference: payment.reference,
    paymentMethod: { brand: payment.brand, type: "scheme" },
    pspReference: payment.pspReference,
    resultCode: "Authorised",
  };
}
