// @ts-check
"use strict";

/**
 * The few schemas of Adyen's published OpenAPI files that the sandbox's Adyen answers and
 * notifications must satisfy, written out by hand (the files themselves are third-party and are
 * not vendored), with a small validator for the JSON-Schema subset they use.
 *
 * Source: GitHub Adyen/adyen-openapi, commit aa014f0cbdb58ff5c44a2ff9d5fe734642210aff (2026-07-01):
 *   json/CheckoutService-v71.json  components.schemas: Amount, ServiceError, PaymentResponse,
 *     ResponsePaymentMethod, PaymentCaptureResponse, PaymentRefundResponse, PaymentCancelResponse,
 *     PaymentReversalResponse, StandalonePaymentCancelResponse
 *   json/DisputeService-v30.json   components.schemas: ServiceError, DisputeServiceResult,
 *     DefenseDocumentType, DefenseReason, DefenseReasonsResponse and the four `{disputeServiceResult}` responses
 *   json/Webhooks-v1.json          the request body of each webhook the sandbox sends (e.g.
 *     `webhooks./CAPTURE` → CaptureNotificationRequest → CaptureNotificationRequestItem → CaptureAdditionalData)
 *
 * Names, `required`, `enum`s, `minLength`/`maxLength`, types and `additionalProperties: false` are
 * copied as the files state them. Two simplifications, both stricter or neutral:
 * - properties the sandbox never sends (3-D Secure data, line items, splits …) are kept by name with
 *   an empty schema, so a name outside the file still fails `additionalProperties: false`;
 * - the notification `additionalData` schemas list only the keys the sandbox sends, every one of
 *   them present in the file's schema of that name; a key outside the list fails.
 * Descriptions and examples are left out.
 */

/** @typedef {{ type?: string, properties?: Record<string, Schema>, required?: string[], additionalProperties?: boolean | Schema, enum?: unknown[], items?: Schema, minLength?: number, maxLength?: number, format?: string, $ref?: string }} Schema */

const str = { type: "string" };
const int = { type: "integer" };
const bool = { type: "boolean" };
const anything = {};
const anyArray = { type: "array" };
const stringMap = { type: "object", additionalProperties: str };

/** Both files' `Amount`. */
const Amount = {
  type: "object",
  additionalProperties: false,
  required: ["currency", "value"],
  properties: { currency: { type: "string", minLength: 3, maxLength: 3 }, value: int },
};

/** @type {Record<string, Schema>} */
const checkout = {
  ServiceError: {
    type: "object",
    additionalProperties: false,
    properties: { additionalData: stringMap, errorCode: str, errorType: str, message: str, pspReference: str, status: int },
  },
  ResponsePaymentMethod: { type: "object", additionalProperties: false, properties: { brand: str, type: str } },
  PaymentResponse: {
    type: "object",
    additionalProperties: false,
    properties: {
      action: anything,
      additionalData: stringMap,
      amount: Amount,
      donationToken: str,
      fraudResult: anything,
      merchantReference: str,
      order: anything,
      paymentMethod: { $ref: "checkout.ResponsePaymentMethod" },
      paymentValidations: anything,
      pspReference: str,
      refusalReason: str,
      refusalReasonCode: str,
      resultCode: {
        type: "string",
        enum: [
          "AuthenticationFinished", "AuthenticationNotRequired", "Authorised", "Cancelled", "ChallengeShopper", "Error", "IdentifyShopper",
          "PartiallyAuthorised", "Pending", "PresentToShopper", "Received", "RedirectShopper", "Refused", "Success",
        ],
      },
      threeDS2ResponseData: anything,
      threeDS2Result: anything,
      threeDSPaymentData: str,
    },
  },
  PaymentCaptureResponse: {
    type: "object",
    additionalProperties: false,
    required: ["amount", "merchantAccount", "paymentPspReference", "pspReference", "status"],
    properties: {
      amount: Amount,
      lineItems: anyArray,
      merchantAccount: str,
      paymentPspReference: str,
      platformChargebackLogic: anything,
      pspReference: str,
      reference: str,
      splits: anyArray,
      status: { type: "string", enum: ["received"] },
      subMerchants: anyArray,
    },
  },
  PaymentRefundResponse: {
    type: "object",
    additionalProperties: false,
    required: ["amount", "merchantAccount", "paymentPspReference", "pspReference", "status"],
    properties: {
      amount: Amount,
      capturePspReference: str,
      lineItems: anyArray,
      merchantAccount: str,
      merchantRefundReason: { type: "string", enum: ["FRAUD", "CUSTOMER REQUEST", "RETURN", "DUPLICATE", "OTHER"] },
      paymentPspReference: str,
      pspReference: str,
      reference: str,
      splits: anyArray,
      status: { type: "string", enum: ["received"] },
      store: str,
    },
  },
  PaymentCancelResponse: {
    type: "object",
    additionalProperties: false,
    required: ["merchantAccount", "paymentPspReference", "pspReference", "status"],
    properties: { merchantAccount: str, paymentPspReference: str, pspReference: str, reference: str, status: { type: "string", enum: ["received"] } },
  },
  PaymentReversalResponse: {
    type: "object",
    additionalProperties: false,
    required: ["merchantAccount", "paymentPspReference", "pspReference", "status"],
    properties: { merchantAccount: str, paymentPspReference: str, pspReference: str, reference: str, status: { type: "string", enum: ["received"] } },
  },
  StandalonePaymentCancelResponse: {
    type: "object",
    additionalProperties: false,
    required: ["merchantAccount", "paymentReference", "pspReference", "status"],
    properties: { merchantAccount: str, paymentReference: str, pspReference: str, reference: str, status: { type: "string", enum: ["received"] } },
  },
};

const resultOnly = { type: "object", required: ["disputeServiceResult"], properties: { disputeServiceResult: { $ref: "disputes.DisputeServiceResult" } } };

/** DisputeService-v30.json declares no `additionalProperties` on these: extra fields are allowed there. */
/** @type {Record<string, Schema>} */
const disputes = {
  ServiceError: { type: "object", properties: { errorCode: str, errorType: str, message: str, pspReference: str, status: int } },
  DisputeServiceResult: { type: "object", required: ["success"], properties: { errorMessage: str, success: bool } },
  DefenseDocumentType: {
    type: "object",
    required: ["defenseDocumentTypeCode", "requirementLevel", "available"],
    properties: { available: bool, defenseDocumentTypeCode: str, requirementLevel: str },
  },
  DefenseReason: {
    type: "object",
    required: ["defenseReasonCode", "satisfied"],
    properties: { defenseDocumentTypes: { type: "array", items: { $ref: "disputes.DefenseDocumentType" } }, defenseReasonCode: str, satisfied: bool },
  },
  DefenseReasonsResponse: {
    type: "object",
    required: ["disputeServiceResult"],
    properties: { defenseReasons: { type: "array", items: { $ref: "disputes.DefenseReason" } }, disputeServiceResult: { $ref: "disputes.DisputeServiceResult" } },
  },
  SupplyDefenseDocumentResponse: resultOnly,
  DeleteDefenseDocumentResponse: resultOnly,
  DefendDisputeResponse: resultOnly,
  AcceptDisputeResponse: resultOnly,
};

/** `NotificationRequestItem.eventCode`'s enum (the same 40 codes in every item schema but Authorisation's). */
const EVENT_CODES = [
  "AUTHENTICATION", "AUTHORISATION", "AUTHORISATION_ADJUSTMENT", "AUTORESCUE", "CANCELLATION", "CANCEL_AUTORESCUE", "CANCEL_OR_REFUND",
  "CAPTURE", "CAPTURE_FAILED", "CHARGEBACK", "CHARGEBACK_REVERSED", "DISPUTE_DEFENSE_PERIOD_ENDED", "EXPIRE", "HANDLED_EXTERNALLY",
  "INFORMATION_SUPPLIED", "ISSUER_COMMENTS", "ISSUER_RESPONSE_TIMEFRAME_EXPIRED", "MANUAL_REVIEW_ACCEPT", "MANUAL_REVIEW_REJECT",
  "NOTIFICATION_OF_CHARGEBACK", "NOTIFICATION_OF_FRAUD", "OFFER_CLOSED", "ORDER_CLOSED", "ORDER_OPENED", "PAYOUT_DECLINE", "PAYOUT_EXPIRE",
  "PAYOUT_THIRDPARTY", "POSTPONED_REFUND", "PREARBITRATION_LOST", "PREARBITRATION_OPEN", "PREARBITRATION_WON", "RECURRING_CONTRACT",
  "REFUND", "REFUNDED_REVERSED", "REFUND_FAILED", "REFUND_WITH_DATA", "REQUEST_FOR_INFORMATION", "SECOND_CHARGEBACK", "TECHNICAL_CANCEL",
  "VOID_PENDING_REFUND",
];

/**
 * @param {string[]} keys
 * @returns {Schema & { properties: Record<string, Schema> }}
 */
const additionalData = (keys) => ({ type: "object", additionalProperties: false, properties: Object.fromEntries(keys.map((k) => [k, str])) });

/**
 * An item schema: the properties every `…NotificationRequestItem` shares, with its own
 * additionalData (and, for Authorisation, its own eventCode enum, `operations` and no originalReference).
 * @param {Schema} data
 * @param {{ authorisation?: boolean }} [options]
 */
function item(data, options = {}) {
  /** @type {Record<string, Schema>} */
  const properties = {
    additionalData: data,
    amount: Amount,
    eventCode: { type: "string", enum: options.authorisation ? ["AUTHORISATION"] : EVENT_CODES },
    eventDate: { type: "string", format: "date-time" },
    merchantAccountCode: str,
    merchantReference: str,
    paymentMethod: str,
    pspReference: str,
    reason: str,
    success: str,
  };
  if (options.authorisation) properties.operations = { type: "array", items: { type: "string", enum: ["CAPTURE", "CANCEL", "REFUND"] } };
  else properties.originalReference = str;
  return {
    type: "object",
    additionalProperties: false,
    required: ["pspReference", "merchantReference", "merchantAccountCode", "eventDate", "eventCode", "amount", "success"],
    properties,
  };
}

/** @param {Schema} itemSchema */
const notificationRequest = (itemSchema) => ({
  type: "object",
  additionalProperties: false,
  properties: { live: str, notificationItems: { type: "array", items: { type: "object", properties: { NotificationRequestItem: itemSchema } } } },
});

/** DisputesNotificationAdditionalData: the file's full list, disputeStatus with its enum. */
const DISPUTE_DATA = additionalData([
  "InvoiceCreditorAccount", "arn", "autoDefended", "captureMerchantReference", "capturePspReference", "chargebackReasonCode",
  "chargebackSchemeCode", "defendable", "defensePeriodEndsAt", "disputeStatus", "grossCurrency", "grossValue", "hmacSignature",
  "modificationMerchantReferences", "nofReasonCode", "nofSchemeCode", "paymentMethodVariant", "rfiReasonCode", "rfiSchemeCode",
  "shopperReference",
]);
DISPUTE_DATA.properties.disputeStatus = { type: "string", enum: ["Unresponded", "Responded", "Expired", "Undefended", "Accepted", "Pending", "Lost", "Won"] };
const DISPUTE_ITEM = item(DISPUTE_DATA);

/** Webhooks-v1.json: the request body schema of each webhook, by event code. */
/** @type {Record<string, Schema>} */
const webhooks = {
  // AuthorisationNotificationAdditionalData (a subset of its ~200 keys).
  AUTHORISATION: notificationRequest(
    item(
      additionalData([
        "authCode", "cardSummary", "expiryDate", "hmacSignature", "paymentMethodVariant", "recurring.recurringDetailReference",
        "recurring.shopperReference", "recurringProcessingModel", "refusalReasonRaw", "shopperInteraction", "shopperReference",
      ]),
      { authorisation: true },
    ),
  ),
  // CaptureAdditionalData, RefundAdditionalData, CancellationAdditionalData, CancelOrRefundAdditionalData (subsets).
  CAPTURE: notificationRequest(item(additionalData(["bookingDate", "hmacSignature", "paymentMethodVariant"]))),
  REFUND: notificationRequest(item(additionalData(["bookingDate", "hmacSignature", "paymentMethodVariant"]))),
  CANCELLATION: notificationRequest(item(additionalData(["bookingDate", "hmacSignature", "paymentMethodVariant"]))),
  CANCEL_OR_REFUND: notificationRequest(item(additionalData(["bookingDate", "hmacSignature", "modification.action", "paymentMethodVariant"]))),
  // ModificationNotificationRequest: BaseModificationAdditionalData, in full.
  TECHNICAL_CANCEL: notificationRequest(item(additionalData(["bookingDate", "hmacSignature", "paymentMethodVariant"]))),
  NOTIFICATION_OF_CHARGEBACK: notificationRequest(DISPUTE_ITEM),
  CHARGEBACK: notificationRequest(DISPUTE_ITEM),
  SECOND_CHARGEBACK: notificationRequest(DISPUTE_ITEM),
  REQUEST_FOR_INFORMATION: notificationRequest(DISPUTE_ITEM),
  CHARGEBACK_REVERSED: notificationRequest(DISPUTE_ITEM),
  PREARBITRATION_WON: notificationRequest(DISPUTE_ITEM),
  PREARBITRATION_LOST: notificationRequest(DISPUTE_ITEM),
  DISPUTE_DEFENSE_PERIOD_ENDED: notificationRequest(DISPUTE_ITEM),
};

const ROOTS = { checkout, disputes };

/** ISO 8601 date-time with an offset (OpenAPI `format: date-time`, RFC 3339). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * @param {Schema} schema
 * @param {unknown} value
 * @param {string} [path]
 * @param {string[]} [errors]
 * @returns {string[]} the problems, empty when the value conforms
 */
function validate(schema, value, path = "$", errors = []) {
  if (schema.$ref) {
    const [root, name] = schema.$ref.split(".");
    const target = /** @type {Record<string, Record<string, Schema>>} */ (ROOTS)[root ?? ""]?.[name ?? ""];
    if (!target) throw new Error(`unknown $ref ${schema.$ref}`);
    return validate(target, value, path, errors);
  }
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  const typeChecks = {
    object: () => isObject,
    array: () => Array.isArray(value),
    string: () => typeof value === "string",
    integer: () => Number.isInteger(value),
    boolean: () => typeof value === "boolean",
  };
  const check = schema.type === undefined ? undefined : /** @type {Record<string, () => boolean>} */ (typeChecks)[schema.type];
  if (check && !check()) {
    errors.push(`${path} must be ${schema.type === "integer" || schema.type === "array" || schema.type === "object" ? "an" : "a"} ${schema.type}`);
    return errors;
  }
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${path} must be one of ${schema.enum.join(", ")}`);
  if (typeof value === "string") {
    if (schema.minLength !== undefined && value.length < schema.minLength) errors.push(`${path} is shorter than ${schema.minLength}`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength) errors.push(`${path} is longer than ${schema.maxLength}`);
    if (schema.format === "date-time" && !DATE_TIME.test(value)) errors.push(`${path} is not an ISO 8601 date-time with an offset`);
  }
  if (Array.isArray(value) && schema.items) value.forEach((entry, i) => validate(/** @type {Schema} */ (schema.items), entry, `${path}[${i}]`, errors));
  if (isObject && schema.type === "object") {
    const object = /** @type {Record<string, unknown>} */ (value);
    for (const name of schema.required ?? []) if (!(name in object)) errors.push(`${path}.${name} is required`);
    for (const [name, entry] of Object.entries(object)) {
      const property = schema.properties?.[name];
      if (property) validate(property, entry, `${path}.${name}`, errors);
      else if (schema.additionalProperties === false) errors.push(`${path}.${name} is not a property of the schema`);
      else if (typeof schema.additionalProperties === "object") validate(schema.additionalProperties, entry, `${path}.${name}`, errors);
    }
  }
  return errors;
}

module.exports = { checkout, disputes, webhooks, validate, EVENT_CODES };
