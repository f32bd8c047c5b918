// @ts-check
"use strict";

/**
 * Conformance to Adyen's published OpenAPI files (CheckoutService-v71, DisputeService-v30,
 * Webhooks-v1). Every Adyen spec checks each answer and notification it receives (helpers.js);
 * this one checks the checker against the spec's own examples, then drives every route and every
 * notification the sandbox sends, and requires each schema to have been met at least once.
 */

const { control, useSandbox } = require("../../helpers");
const { CHECKOUT, DISPUTES, adyenCall, checked, pay, settled, storeCard, paymentBody, updateMerchant, webhookReceiver } = require("./helpers");
const { checkout, disputes, validate, webhooks } = require("./openapi-schemas");

describe("the schemas, against the spec's own examples", () => {
  test("the spec's examples conform", () => {
    // CheckoutService-v71.json: post-payments-card-direct-200 (abridged), the capture 201, generic-422.
    expect(
      validate(checkout.PaymentResponse, {
        additionalData: { authCode: "044925", refusalReasonRaw: "AUTHORISED", acquirerReference: "8PQMP9VEP3H" },
        pspReference: "993617895204576J",
        resultCode: "Authorised",
        merchantReference: "string",
      }),
    ).toEqual([]);
    expect(
      validate(checkout.PaymentCaptureResponse, {
        merchantAccount: "YOUR_MERCHANT_ACCOUNT",
        paymentPspReference: "993617894903480A",
        reference: "YOUR_UNIQUE_REFERENCE",
        pspReference: "993617894906488A",
        status: "received",
        amount: { value: 2000, currency: "EUR" },
      }),
    ).toEqual([]);
    expect(validate(checkout.ServiceError, { status: 422, errorCode: "14_030", message: "Return URL is missing.", errorType: "validation", pspReference: "8816118280275544" })).toEqual([]);
    // DisputeService-v30.json: retrieve-defense-reasons-200 (one reason).
    expect(
      validate(disputes.DefenseReasonsResponse, {
        defenseReasons: [
          {
            defenseDocumentTypes: [{ available: false, defenseDocumentTypeCode: "DefenseMaterial", requirementLevel: "Required" }],
            defenseReasonCode: "SupplyDefenseMaterial",
            satisfied: false,
          },
        ],
        disputeServiceResult: { success: true },
      }),
    ).toEqual([]);
    // Webhooks-v1.json: post-CHARGEBACK-chargeback (abridged).
    expect(
      validate(webhooks.CHARGEBACK, {
        live: "false",
        notificationItems: [
          {
            NotificationRequestItem: {
              additionalData: { chargebackReasonCode: " 4853", chargebackSchemeCode: "mc", defensePeriodEndsAt: "2021-07-31T03:03:07+02:00", defendable: "true", hmacSignature: "b0ea55c2fe60d4d1d605e9c385e0e7" },
              amount: { currency: "EUR", value: 1000 },
              eventCode: "CHARGEBACK",
              eventDate: "2021-01-01T01:00:00+01:00",
              merchantAccountCode: "YOUR_MERCHANT_ACCOUNT",
              merchantReference: "YOUR_MERCHANT_REFERENCE",
              originalReference: "9913140798220028",
              paymentMethod: "mc",
              pspReference: "QFQTPCQ8HXSKGK82",
              reason: "Payment.TxId=300000000524534724 dispute",
              success: "true",
            },
          },
        ],
      }),
    ).toEqual([]);
  });

  test("deviations are caught: numbers for strings, booleans for strings, missing and extra fields", () => {
    expect(validate(checkout.PaymentResponse, { resultCode: "Refused", refusalReasonCode: 2 })).toEqual(["$.refusalReasonCode must be a string"]);
    expect(validate(checkout.PaymentResponse, { resultCode: "Declined" })).toEqual([expect.stringMatching(/^\$\.resultCode must be one of/)]);
    expect(validate(checkout.ServiceError, { status: 400, error: "bad" })).toEqual(["$.error is not a property of the schema"]);
    expect(validate(checkout.PaymentCancelResponse, { merchantAccount: "M", pspReference: "P", status: "received" })).toEqual(["$.paymentPspReference is required"]);
    expect(validate(checkout.PaymentCaptureResponse, { merchantAccount: "M", paymentPspReference: "P", pspReference: "Q", status: "received", amount: { value: 1, currency: "EURO" } })).toEqual([
      "$.amount.currency is longer than 3",
    ]);
    expect(validate(disputes.DisputeServiceResult, { success: "true" })).toEqual(["$.success must be a boolean"]);
    const item = { pspReference: "P", merchantReference: "R", merchantAccountCode: "M", eventDate: "2021-01-01 01:00", eventCode: "CAPTURE", amount: { value: 1, currency: "EUR" }, success: true };
    expect(validate(webhooks.CAPTURE, { live: false, notificationItems: [{ NotificationRequestItem: item }] })).toEqual([
      "$.live must be a string",
      "$.notificationItems[0].NotificationRequestItem.eventDate is not an ISO 8601 date-time with an offset",
      "$.notificationItems[0].NotificationRequestItem.success must be a string",
    ]);
    expect(validate(webhooks.AUTHORISATION, { notificationItems: [{ NotificationRequestItem: { ...item, eventCode: "AUTHORISATION", success: "true", eventDate: "2021-01-01T01:00:00+01:00", originalReference: "O" } }] })).toEqual([
      "$.notificationItems[0].NotificationRequestItem.originalReference is not a property of the schema",
    ]);
  });
});

describe("every answer and every notification the sandbox's Adyen produces", () => {
  const t = useSandbox({ adyen: { timeScale: 0.001 } });
  /** @type {Awaited<ReturnType<typeof webhookReceiver>>} */
  let hook;
  afterAll(async () => {
    await hook?.close();
  });

  test("conforms, over every route, every refusal and every event code", async () => {
    const merchant = t.sb.demo.adyen;
    const who = { keys: t.sb.demo.keys, merchant };
    hook = await webhookReceiver({ hmacKey: merchant.hmacKey });
    await updateMerchant(t.url, merchant.merchantAccount, { webhookUrl: hook.url });
    const withMerchant = (/** @type {Record<string, unknown>} */ body) => ({ merchantAccount: merchant.merchantAccount, ...body });
    const amount = (/** @type {number} */ value) => ({ currency: "USD", value });

    // Checkout: authorised, refused, and each kind of error.
    const payment = await pay(t.url, who);
    const psp = payment.body.pspReference;
    await pay(t.url, who, { number: "4000000000009995" });
    const card = await storeCard(t.url, who.keys);
    await adyenCall(t.url, `${CHECKOUT}/payments`, { body: paymentBody(merchant, card) });
    await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, raw: "{" });
    await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { merchantAccount: "Other" }) });
    await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { returnUrl: undefined }) });
    // Every modification, successful and not, and the 167 of an unknown payment.
    await adyenCall(t.url, `${CHECKOUT}/payments/${psp}/captures`, { merchant, body: withMerchant({ amount: amount(600), reference: "c1" }) });
    await adyenCall(t.url, `${CHECKOUT}/payments/${psp}/captures`, { merchant, body: withMerchant({ amount: amount(600) }) });
    await adyenCall(t.url, `${CHECKOUT}/payments/${psp}/refunds`, { merchant, body: withMerchant({ amount: amount(100), merchantRefundReason: "RETURN" }) });
    await adyenCall(t.url, `${CHECKOUT}/payments/${psp}/cancels`, { merchant, body: withMerchant({}) });
    await adyenCall(t.url, `${CHECKOUT}/payments/${psp}/reversals`, { merchant, body: withMerchant({ reference: "r1" }) });
    await adyenCall(t.url, `${CHECKOUT}/payments/NOPE/captures`, { merchant, body: withMerchant({ amount: amount(1) }) });
    await adyenCall(t.url, `${CHECKOUT}/cancels`, { merchant, body: withMerchant({ paymentReference: payment.request.reference }) });
    const open = await pay(t.url, who);
    await adyenCall(t.url, `${CHECKOUT}/cancels`, { merchant, body: withMerchant({ paymentReference: open.request.reference }) });

    // Disputes: every operation, successful and not, and every decision.
    const disputed = await pay(t.url, who, { manualCapture: false });
    const raise = async () => (await control(t.url, "/adyen/disputes", { paymentPspReference: disputed.body.pspReference })).body.pspReference;
    const dispute = await raise();
    const base = { disputePspReference: dispute, merchantAccountCode: merchant.merchantAccount };
    const pdf = Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64");
    await adyenCall(t.url, `${DISPUTES}/retrieveApplicableDefenseReasons`, { merchant, body: base });
    await adyenCall(t.url, `${DISPUTES}/defendDispute`, { merchant, body: { ...base, defenseReasonCode: "SupplyDefenseMaterial" } });
    await adyenCall(t.url, `${DISPUTES}/supplyDefenseDocument`, { merchant, body: { ...base, defenseDocuments: [{ content: pdf, contentType: "application/pdf", defenseDocumentTypeCode: "TIDorInvoice" }] } });
    await adyenCall(t.url, `${DISPUTES}/deleteDisputeDefenseDocument`, { merchant, body: { ...base, defenseDocumentType: "TIDorInvoice" } });
    await adyenCall(t.url, `${DISPUTES}/supplyDefenseDocument`, { merchant, body: { ...base, defenseDocuments: [{ content: pdf, contentType: "application/pdf", defenseDocumentTypeCode: "DefenseMaterial" }] } });
    await adyenCall(t.url, `${DISPUTES}/defendDispute`, { merchant, body: { ...base, defenseReasonCode: "SupplyDefenseMaterial" } });
    await adyenCall(t.url, `${DISPUTES}/acceptDispute`, { merchant, body: base });
    await adyenCall(t.url, `${DISPUTES}/acceptDispute`, { body: base });
    await control(t.url, `/adyen/disputes/${dispute}/decide`, { outcome: "CHARGEBACK_REVERSED" });
    await control(t.url, `/adyen/disputes/${dispute}/decide`, { outcome: "PREARBITRATION_WON" });
    const lost = await raise();
    await adyenCall(t.url, `${DISPUTES}/acceptDispute`, { merchant, body: { ...base, disputePspReference: lost } });
    const other = await raise();
    for (const eventCode of ["REQUEST_FOR_INFORMATION", "SECOND_CHARGEBACK", "DISPUTE_DEFENSE_PERIOD_ENDED"]) {
      await control(t.url, `/adyen/disputes/${other}/notify`, { eventCode });
    }
    await control(t.url, `/adyen/disputes/${other}/decide`, { outcome: "PREARBITRATION_LOST" });

    await settled(t.url);
    expect(hook.problems).toEqual([]);
    expect([...checked.schemas].sort()).toEqual(
      [
        ...Object.keys(checkout).map((name) => `checkout.${name}`).filter((name) => name !== "checkout.ResponsePaymentMethod"),
        ...["ServiceError", "DefenseReasonsResponse", "SupplyDefenseDocumentResponse", "DeleteDefenseDocumentResponse", "DefendDisputeResponse", "AcceptDisputeResponse"].map(
          (name) => `disputes.${name}`,
        ),
        ...Object.keys(webhooks).map((code) => `webhooks.${code}`),
      ].sort(),
    );
    expect(checked.answers).toBeGreaterThanOrEqual(25);
    // Every notification the sandbox recorded was delivered, and so checked.
    const sent = (await control(t.url, "/adyen/notifications")).body;
    expect(sent.items.every((/** @type {{ status: string }} */ n) => n.status === "delivered")).toBe(true);
    expect(checked.notifications).toBe(sent.count);
  });
});
