import { HttpError, sendJson, type Headers } from "../../http";
import type { Context } from "../../server";
import { isPlainObject, sleep } from "../../util";
import {
  authenticate,
  idempotencyKeyOf,
  jsonBody,
  maxLength,
  onlyFields,
  optionalEnum,
  optionalString,
  requiredAmount,
  requiredString,
  requireMerchantAccount,
} from "./api";
import { requiredField, serviceError, unexpectedInput, validation, withHeaders } from "./errors";
import type { AdyenMerchant, AdyenModification, AdyenPayment } from "./state";

/**
 * Checkout API v71 (`/v71/...`, as `https://checkout-test.adyen.com/v71`): `/payments` with a
 * stored card, the four modifications of a payment, and the standalone cancel. Field names,
 * enums, status codes and error bodies follow CheckoutService-v71.json; README's Adyen section
 * lists the sandbox's choices where the spec is silent.
 */

/** `PaymentRequest`'s properties (CheckoutService-v71.json): anything else is refused, as the schema refuses it. */
const PAYMENT_REQUEST_FIELDS = [
  "accountInfo", "additionalAmount", "additionalData", "amount", "applicationInfo", "authenticationData", "bankAccount",
  "billingAddress", "browserInfo", "captureDelayHours", "channel", "checkoutAttemptId", "company", "conversionId",
  "countryCode", "dateOfBirth", "dccQuote", "deliverAt", "deliveryAddress", "deliveryDate", "deviceFingerprint",
  "enableOneClick", "enablePayOut", "enableRecurring", "enhancedSchemeData", "entityType", "fraudOffset", "fundOrigin",
  "fundRecipient", "industryUsage", "installments", "lineItems", "localizedShopperStatement", "mandate", "mcc",
  "merchantAccount", "merchantOrderReference", "merchantRiskIndicator", "metadata", "mpiData", "order", "orderReference",
  "origin", "paymentMethod", "paymentValidations", "platformChargebackLogic", "recurringExpiry", "recurringFrequency",
  "recurringProcessingModel", "redirectFromIssuerMethod", "redirectToIssuerMethod", "reference", "returnUrl", "riskData",
  "sessionValidity", "shopperConversionId", "shopperEmail", "shopperIP", "shopperInteraction", "shopperLocale",
  "shopperName", "shopperReference", "shopperStatement", "shopperTaxInfo", "socialSecurityNumber", "splits", "store",
  "storePaymentMethod", "subMerchants", "surcharge", "telephoneNumber", "threeDS2RequestData",
  "threeDSAuthenticationOnly", "trustedShopper",
] as const;
/** `CardDetails`' properties: the paymentMethod of a card payment. */
const CARD_DETAILS_FIELDS = [
  "billingSequenceNumber", "brand", "checkoutAttemptId", "cupsecureplus.smscode", "cvc", "encryptedCard",
  "encryptedCardNumber", "encryptedExpiryMonth", "encryptedExpiryYear", "encryptedPassword", "encryptedSecurityCode",
  "expiryMonth", "expiryYear", "fastlaneData", "fundingSource", "holderName", "networkPaymentReference", "number",
  "recurringDetailReference", "sdkData", "shopperNotificationReference", "srcCorrelationId", "srcDigitalCardId",
  "srcScheme", "srcTokenReference", "storedPaymentMethodId", "threeDS2SdkVersion", "type",
] as const;
const CARD_TYPES = ["bcmc", "scheme", "networkToken", "giftcard", "card", "clicktopay"] as const;
const SHOPPER_INTERACTIONS = ["Ecommerce", "ContAuth", "Moto", "POS"] as const;
const RECURRING_PROCESSING_MODELS = ["CardOnFile", "Subscription", "UnscheduledCardOnFile"] as const;
const REFUND_REASONS = ["FRAUD", "CUSTOMER REQUEST", "RETURN", "DUPLICATE", "OTHER"] as const;

const CAPTURE_FIELDS = ["amount", "applicationInfo", "enhancedSchemeData", "lineItems", "merchantAccount", "platformChargebackLogic", "reference", "splits", "subMerchants"];
const REFUND_FIELDS = ["amount", "applicationInfo", "capturePspReference", "enhancedSchemeData", "lineItems", "merchantAccount", "merchantRefundReason", "reference", "splits", "store"];
const CANCEL_FIELDS = ["applicationInfo", "enhancedSchemeData", "merchantAccount", "reference"];
const REVERSAL_FIELDS = CANCEL_FIELDS;
const STANDALONE_CANCEL_FIELDS = ["applicationInfo", "enhancedSchemeData", "merchantAccount", "paymentReference", "reference"];

const MAX_IDEMPOTENCY_KEY = 64;
const MAX_CAPTURE_DELAY_HOURS = 672;

interface Answer {
  status: number;
  body: unknown;
  /** the payment or modification it created, for counting replays */
  pspReference: string;
}

/**
 * One Checkout call, in Adyen's order: authenticate, then the Idempotency-Key (the first answer is
 * replayed whatever the path and body; a key whose first request has not answered yet is 704),
 * then read and act. Keys live per company account. Only successful answers are kept: a refused
 * request leaves its key free for a corrected retry. The key is echoed on every answer.
 */
async function checkoutCall(ctx: Context, act: (merchant: AdyenMerchant, body: Record<string, unknown>, key: string | null) => Answer): Promise<void> {
  const adyen = ctx.services.adyen;
  const key = idempotencyKeyOf(ctx.req);
  const echo: Headers = key === undefined ? {} : { "Idempotency-Key": key };
  try {
    const merchant = authenticate(adyen.store, ctx.req);
    if (key !== undefined && (key === "" || key.length > MAX_IDEMPOTENCY_KEY)) {
      throw validation("000", `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY} characters.`);
    }
    const keys = key === undefined ? null : adyen.store.idempotencyKeys(merchant.companyAccount);
    const known = key === undefined ? undefined : keys?.get(key);
    if (known?.state === "done") {
      adyen.countReplay(known.pspReference);
      ctx.log("info", `adyen: Idempotency-Key replayed (${known.pspReference ?? "-"})`);
      return sendJson(ctx.res, known.status, known.body, echo);
    }
    if (known?.state === "inFlight") {
      // Adyen marks this answer as transient: retry later with the same key.
      throw serviceError(409, "704", "request already processed or in progress", "validation", { headers: { "Transient-Error": "true" } });
    }
    if (keys && key) keys.set(key, { state: "inFlight", status: 0, body: null, pspReference: null });
    let kept = false;
    try {
      const delay = adyen.store.settings.processingDelayMs;
      if (delay > 0) await sleep(delay);
      const answer = act(merchant, jsonBody(ctx.body), key ?? null);
      if (keys && key) keys.set(key, { state: "done", status: answer.status, body: answer.body, pspReference: answer.pspReference });
      kept = true;
      sendJson(ctx.res, answer.status, answer.body, echo);
    } finally {
      if (!kept && keys && key) keys.delete(key);
    }
  } catch (error) {
    if (error instanceof HttpError) throw withHeaders(error, echo);
    throw error;
  }
}

/** `POST /v71/payments` with a stored card. */
export function payments(ctx: Context): Promise<void> {
  return checkoutCall(ctx, (merchant, body, key) => {
    const adyen = ctx.services.adyen;
    onlyFields(body, PAYMENT_REQUEST_FIELDS);
    requireMerchantAccount(merchant, body, "merchantAccount");
    const amount = requiredAmount(body);
    const reference = maxLength(requiredString(body, "reference"), "reference", 80) ?? "";
    const returnUrl = optionalString(body, "returnUrl");
    // The schema requires returnUrl even for a stored card, which never redirects.
    if (returnUrl === undefined || returnUrl === "") throw validation("14_030", "Return URL is missing.");
    maxLength(returnUrl, "returnUrl", 8000);

    const method = body.paymentMethod;
    if (method === undefined || method === null) throw requiredField("paymentMethod");
    if (!isPlainObject(method)) throw unexpectedInput('"paymentMethod" must be an object');
    onlyFields(method, CARD_DETAILS_FIELDS, "paymentMethod.");
    const type = optionalEnum(method, "type", CARD_TYPES) ?? "scheme";
    const rawCard = ["number", "encryptedCard", "encryptedCardNumber"].some((f) => method[f] !== undefined);
    if ((type !== "scheme" && type !== "card") || rawCard) {
      // Only stored cards reach the sandbox: the hosted form keeps card numbers away from merchants.
      throw serviceError(500, "905", "Payment details are not supported", "configuration", { withReference: true });
    }
    const storedId = optionalString(method, "storedPaymentMethodId", "paymentMethod.") ?? optionalString(method, "recurringDetailReference", "paymentMethod.");
    if (storedId === undefined || storedId === "") throw validation("000", "paymentDetails not supplied");
    maxLength(storedId, "paymentMethod.storedPaymentMethodId", 64);

    const shopperReference = optionalString(body, "shopperReference");
    if (shopperReference === undefined || shopperReference === "") throw validation("000", "Recurring payments require a shopperReference");
    if (shopperReference.length < 3 || shopperReference.length > 256) throw validation("000", "Field 'shopperReference' must be 3 to 256 characters.");
    const shopperInteraction = optionalEnum(body, "shopperInteraction", SHOPPER_INTERACTIONS) ?? "Ecommerce";
    const recurringProcessingModel = optionalEnum(body, "recurringProcessingModel", RECURRING_PROCESSING_MODELS);
    if (recurringProcessingModel === undefined) throw requiredField("recurringProcessingModel");
    const cvcGiven = ["cvc", "encryptedSecurityCode"].some((f) => typeof method[f] === "string" && method[f] !== "");
    if (shopperInteraction !== "ContAuth" && !cvcGiven) throw validation("000", "CVC is required for OneClick card payments.");

    const captureDelayHours = readCaptureDelay(body);
    const additionalData = readStringMap(body, "additionalData");
    checkMetadata(readStringMap(body, "metadata"));

    const card = adyen.store.storedCard(merchant.merchantAccount, storedId);
    // A stored card is only found under the shopper it was stored for.
    if (!card || card.shopperReference !== shopperReference) throw validation("803", "PaymentDetail not found");
    const payment = adyen.checkout.authorise(
      merchant,
      {
        reference,
        amount,
        card,
        shopperReference,
        shopperInteraction,
        recurringProcessingModel,
        manualCapture: additionalData?.manualCapture === "true",
        captureDelayHours,
      },
      body,
      key,
    );
    return { status: 200, body: payment.response, pspReference: payment.pspReference };
  });
}

/** The payment a modification names in its path, at the credential's merchant account: Adyen's 422/167 otherwise. */
function paymentOf(ctx: Context, merchant: AdyenMerchant): AdyenPayment {
  const payment = ctx.services.adyen.store.payments.get(ctx.params[0] ?? "");
  if (!payment || payment.merchantAccount !== merchant.merchantAccount) {
    throw serviceError(422, "167", "Original pspReference required for this operation", "validation");
  }
  return payment;
}

function received(modification: AdyenModification, extra: Record<string, unknown>): Answer {
  const body = {
    ...extra,
    merchantAccount: modification.merchantAccount,
    pspReference: modification.pspReference,
    ...(modification.reference === null ? {} : { reference: modification.reference }),
    status: "received",
  };
  modification.response = body;
  return { status: 201, body, pspReference: modification.pspReference };
}

function reference(body: Record<string, unknown>): string | null {
  return maxLength(optionalString(body, "reference"), "reference", 80) ?? null;
}

/** `POST /v71/payments/{paymentPspReference}/captures` */
export function capture(ctx: Context): Promise<void> {
  return checkoutCall(ctx, (merchant, body, key) => {
    onlyFields(body, CAPTURE_FIELDS);
    requireMerchantAccount(merchant, body, "merchantAccount");
    const payment = paymentOf(ctx, merchant);
    const amount = requiredAmount(body);
    const modification = ctx.services.adyen.checkout.capture(merchant, payment, amount, reference(body), body, key);
    return received(modification, { amount, paymentPspReference: payment.pspReference });
  });
}

/** `POST /v71/payments/{paymentPspReference}/refunds` */
export function refund(ctx: Context): Promise<void> {
  return checkoutCall(ctx, (merchant, body, key) => {
    onlyFields(body, REFUND_FIELDS);
    requireMerchantAccount(merchant, body, "merchantAccount");
    const payment = paymentOf(ctx, merchant);
    const amount = requiredAmount(body);
    const reason = optionalEnum(body, "merchantRefundReason", REFUND_REASONS);
    const modification = ctx.services.adyen.checkout.refund(merchant, payment, amount, reference(body), body, key);
    return received(modification, { amount, ...(reason ? { merchantRefundReason: reason } : {}), paymentPspReference: payment.pspReference });
  });
}

/** `POST /v71/payments/{paymentPspReference}/cancels` */
export function cancel(ctx: Context): Promise<void> {
  return checkoutCall(ctx, (merchant, body, key) => {
    onlyFields(body, CANCEL_FIELDS);
    requireMerchantAccount(merchant, body, "merchantAccount");
    const payment = paymentOf(ctx, merchant);
    const modification = ctx.services.adyen.checkout.cancel(merchant, payment, reference(body), body, key);
    return received(modification, { paymentPspReference: payment.pspReference });
  });
}

/** `POST /v71/payments/{paymentPspReference}/reversals` */
export function reversal(ctx: Context): Promise<void> {
  return checkoutCall(ctx, (merchant, body, key) => {
    onlyFields(body, REVERSAL_FIELDS);
    requireMerchantAccount(merchant, body, "merchantAccount");
    const payment = paymentOf(ctx, merchant);
    const modification = ctx.services.adyen.checkout.reverse(merchant, payment, reference(body), body, key);
    return received(modification, { paymentPspReference: payment.pspReference });
  });
}

/** `POST /v71/cancels`: cancel by the merchant's payment reference, when the pspReference never arrived. */
export function standaloneCancel(ctx: Context): Promise<void> {
  return checkoutCall(ctx, (merchant, body, key) => {
    onlyFields(body, STANDALONE_CANCEL_FIELDS);
    requireMerchantAccount(merchant, body, "merchantAccount");
    const paymentReference = requiredString(body, "paymentReference");
    const modification = ctx.services.adyen.checkout.technicalCancel(merchant, paymentReference, reference(body), body, key);
    return received(modification, { paymentReference });
  });
}

function readCaptureDelay(body: Record<string, unknown>): number | null {
  const value = body.captureDelayHours;
  if (value === undefined || value === null) return null;
  if (typeof value !== "number" || !Number.isInteger(value)) throw unexpectedInput('"captureDelayHours" must be an integer');
  if (value < 0 || value > MAX_CAPTURE_DELAY_HOURS) throw validation("000", `Field 'captureDelayHours' must be from 0 to ${MAX_CAPTURE_DELAY_HOURS}.`);
  return value;
}

/** `additionalData` and `metadata` are maps of strings. */
function readStringMap(body: Record<string, unknown>, field: string): Record<string, string> | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw unexpectedInput(`"${field}" must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [name, item] of Object.entries(value)) {
    if (typeof item !== "string") throw unexpectedInput(`"${field}.${name.slice(0, 100)}" must be a string`);
    out[name] = item;
  }
  return out;
}

/** At most 20 keys of at most 20 characters, values of at most 80: Adyen's 177 otherwise. */
function checkMetadata(metadata: Record<string, string> | undefined): void {
  if (!metadata) return;
  const entries = Object.entries(metadata);
  if (entries.length > 20 || entries.some(([k, v]) => k.length > 20 || v.length > 80)) throw validation("177", "Metadata size exceeds limit");
}
