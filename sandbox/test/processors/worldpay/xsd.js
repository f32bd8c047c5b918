// @ts-check
"use strict";

/**
 * The parts of Worldpay's published XSDs that the sandbox's answers must satisfy, written out by
 * hand (the files are third-party and not vendored), with a checker for what they state.
 *
 * Sources (GitHub, default branch as fetched 2026-11-28):
 * - Vantiv/cnp-sdk-for-java `src/main/xsd/cnpTransaction_v12.34.xsd` and `cnpOnline_v12.34.xsd`:
 *   the response element of each cnpAPI transaction the sandbox plays. Each is an `xs:all` over
 *   `transactionTypeWithReportGroup` (attributes `id` required, `customerId` optional,
 *   `reportGroup` required). Children are listed by name; `true` marks `minOccurs="1"`.
 * - Vantiv/cnp-chargeback-sdk-java `src/main/xsd/chargeback-api-v2.1.xsd`: the elements typed
 *   `xs:long` in `chargebackApiCase` and `chargebackDocumentUploadResponse`, and which of the
 *   latter's are required.
 */

/** @type {Record<string, Record<string, boolean>>} cnpAPI response element → child → required */
const CNP_RESPONSES = {
  registerTokenResponse: {
    cnpTxnId: true, cnpToken: false, bin: false, type: false, eCheckAccountSuffix: false, response: true, message: true,
    location: false, responseTime: true, applepayResponse: false, androidpayResponse: false, accountRangeId: false,
  },
  authorizationResponse: {
    cnpTxnId: true, orderId: true, response: true, responseTime: true, cardProductId: false, postDate: false, message: true,
    location: false, authCode: false, authorizationResponseSubCode: false, approvedAmount: false, accountInformation: false,
    accountUpdater: false, fraudResult: false, tokenResponse: false, enhancedAuthResponse: false, recyclingResponse: false,
    recurringResponse: false, giftCardResponse: false, applepayResponse: false, cardSuffix: false, androidpayResponse: false,
    networkTransactionId: false, paymentAccountReferenceNumber: false, pinlessDebitResponse: false, checkoutId: false, authMax: false,
  },
  saleResponse: {
    cnpTxnId: true, response: true, orderId: true, responseTime: true, cardProductId: false, postDate: false, message: true,
    location: false, authCode: false, authorizationResponseSubCode: false, approvedAmount: false, accountInformation: false,
    fraudResult: false, tokenResponse: false, enhancedAuthResponse: false, accountUpdater: false, recyclingResponse: false,
    recurringResponse: false, giftCardResponse: false, applepayResponse: false, cardSuffix: false, androidpayResponse: false,
    sepaDirectDebitResponse: false, idealResponse: false, giropayResponse: false, sofortResponse: false,
    networkTransactionId: false, pinlessDebitResponse: false, paymentAccountReferenceNumber: false, checkoutId: false, authMax: false,
  },
  captureResponse: {
    cnpTxnId: true, response: true, responseTime: true, postDate: false, message: true, location: false,
    accountUpdater: false, fraudResult: false, pinlessDebitResponse: false, checkoutId: false,
  },
  creditResponse: {
    cnpTxnId: true, response: true, responseTime: true, postDate: false, message: true, location: false,
    tokenResponse: false, fraudResult: false, checkoutId: false,
  },
  voidResponse: {
    cnpTxnId: true, response: true, responseTime: true, postDate: true, message: true, location: false,
    recyclingResponse: false, checkoutId: false,
  },
  authReversalResponse: {
    cnpTxnId: true, response: true, responseTime: true, postDate: false, message: true, location: false,
    pinlessDebitResponse: false, checkoutId: false,
  },
};

/** `xs:long`: an optional sign and decimal digits, within 64 bits. */
function isLong(/** @type {unknown} */ value) {
  if (typeof value !== "string" || !/^[+-]?\d+$/.test(value.trim())) return false;
  const n = BigInt(value.trim());
  return n >= -(2n ** 63n) && n < 2n ** 63n;
}

/** `chargebackApiCase` elements typed `xs:long` (all optional). */
const CASE_LONGS = ["caseId", "merchantId", "vantivCnpTxnId", "chargebackAmount", "representedAmount", "preArbitrationAmount", "historicalWinPercentage", "paymentAmount", "paymentSecondaryAmount"];

/**
 * What is wrong with one cnpAPI response element (parsed with attributes as `@_name`), as XSD
 * violations; empty when it conforms. The dialect's txn id and token names are the cnp ones.
 * @param {string} name
 * @param {Record<string, unknown>} element
 */
function cnpViolations(name, element) {
  const schema = CNP_RESPONSES[name];
  if (!schema) return [`<${name}> is not an element this checker knows`];
  const problems = [];
  for (const attribute of ["id", "reportGroup"]) {
    if (typeof element[`@_${attribute}`] !== "string") problems.push(`<${name}> lacks its required ${attribute} attribute`);
  }
  for (const key of Object.keys(element)) {
    if (key.startsWith("@_") || key === "#text") continue;
    if (!(key in schema)) problems.push(`<${name}> has <${key}>, which its XSD type does not allow`);
  }
  for (const [child, required] of Object.entries(schema)) {
    if (required && element[child] === undefined) problems.push(`<${name}> lacks its required <${child}>`);
  }
  if (element.postDate !== undefined && !/^\d{4}-\d\d-\d\d$/.test(String(element.postDate))) problems.push(`<${name}><postDate> is not an xs:date`);
  return problems;
}

/**
 * What is wrong with one `<chargebackCase>` as `chargebackApiCase`'s long-typed elements go.
 * @param {Record<string, unknown>} kase
 */
function caseViolations(kase) {
  return CASE_LONGS.filter((name) => kase[name] !== undefined && !isLong(kase[name])).map((name) => `<chargebackCase><${name}> "${kase[name]}" is not an xs:long`);
}

/**
 * What is wrong with one `<chargebackDocumentUploadResponse>`: its required elements, and its two
 * long-typed ones.
 * @param {Record<string, unknown>} answer
 */
function documentResponseViolations(answer) {
  const problems = [];
  for (const name of ["merchantId", "caseId", "responseCode", "responseMessage"]) {
    if (answer[name] === undefined) problems.push(`<chargebackDocumentUploadResponse> lacks its required <${name}>`);
  }
  for (const name of ["merchantId", "caseId"]) {
    if (answer[name] !== undefined && !isLong(answer[name])) problems.push(`<chargebackDocumentUploadResponse><${name}> "${answer[name]}" is not an xs:long`);
  }
  return problems;
}

module.exports = { CNP_RESPONSES, cnpViolations, caseViolations, documentResponseViolations, isLong };
