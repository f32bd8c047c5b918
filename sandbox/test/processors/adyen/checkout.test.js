// @ts-check
"use strict";

/**
 * Checkout API v71: `/payments` with a stored card, captures, refunds, cancels, reversals and
 * the standalone cancel, with Adyen's bodies, errors and asynchronous outcomes (201 `received`,
 * then a webhook with success "true" or "false").
 */

const { TEST_CARDS } = require("../../../dist/index");
const { control, useSandbox } = require("../../helpers");
const { CHECKOUT, adyenAccount, adyenCall, notifications, pay, paymentBody, settled, storeCard, updateMerchant, webhookReceiver } = require("./helpers");

const t = useSandbox({ adyen: { timeScale: 0.001 } });
/** @type {import("./helpers").Merchant} */
let merchant;
/** @type {import("./helpers").Merchant} */
let otherMerchant;
/** @type {{ shareable: string, paymentToken: string }} */
let keys;
/** @type {Awaited<ReturnType<typeof webhookReceiver>>} */
let hook;

beforeAll(async () => {
  merchant = t.sb.demo.adyen;
  keys = t.sb.demo.keys;
  otherMerchant = (await adyenAccount(t.url)).adyen;
  hook = await webhookReceiver({ hmacKey: merchant.hmacKey });
  await updateMerchant(t.url, merchant.merchantAccount, { webhookUrl: hook.url });
});
afterAll(async () => {
  expect(hook.problems).toEqual([]);
  await hook.close();
});

const who = () => ({ keys, merchant });
const PSP = /^[A-Z0-9]{16}$/;

/**
 * The webhook of one modification or payment, once delivered.
 * @param {string} eventCode
 * @param {string} pspReference
 */
async function webhookFor(eventCode, pspReference) {
  const items = await hook.waitFor((all) => all.some((i) => i.eventCode === eventCode && i.pspReference === pspReference));
  return items.find((i) => i.eventCode === eventCode && i.pspReference === pspReference);
}

/**
 * @param {string} psp
 * @param {string} operation captures | refunds | cancels | reversals
 * @param {Record<string, unknown>} [body]
 */
function modify(psp, operation, body = {}) {
  return adyenCall(t.url, `${CHECKOUT}/payments/${psp}/${operation}`, { merchant, body: { merchantAccount: merchant.merchantAccount, ...body } });
}

/** @param {string} psp */
async function paymentState(psp) {
  return (await control(t.url, `/adyen/payments/${psp}`)).body;
}

describe("POST /v71/payments", () => {
  test("the spec's stored-card example authorises, with card details and the echoed reference", async () => {
    const card = await storeCard(t.url, keys, { number: "4111111111111111" });
    const body = paymentBody(merchant, card, { amount: { currency: "USD", value: 1000 }, reference: "Your order number" });
    const res = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      pspReference: expect.stringMatching(PSP),
      resultCode: "Authorised",
      merchantReference: "Your order number",
      amount: { currency: "USD", value: 1000 },
      paymentMethod: { brand: "visa", type: "scheme" },
      additionalData: expect.objectContaining({
        cardSummary: "1111",
        "recurring.recurringDetailReference": card.token,
        "recurring.shopperReference": card.shopperReference,
        refusalReasonRaw: "AUTHORISED",
      }),
    });
    expect(res.body).not.toHaveProperty("refusalReasonCode");
    const item = await webhookFor("AUTHORISATION", res.body.pspReference);
    expect(item).toMatchObject({ success: "true", merchantReference: "Your order number", amount: { currency: "USD", value: 1000 }, operations: ["CANCEL", "CAPTURE", "REFUND"] });
    expect(item).not.toHaveProperty("originalReference");
  });

  test("Basic auth with the web-service user works as the API key does", async () => {
    const card = await storeCard(t.url, keys);
    const res = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, basic: true, body: paymentBody(merchant, card) });
    expect(res.body.resultCode).toBe("Authorised");
  });

  test.each(
    TEST_CARDS.map((/** @type {{ number: string, outcome: string }} */ c) => [c.number, c.outcome]),
  )("test card %s (%s) behaves at Adyen as at Worldpay", async (number, outcome) => {
    /** @type {Record<string, [string, string, string] | null>} */
    const expected = {
      approves: null,
      "scan labelled fraud": null,
      "insufficient funds": ["Refused", "Not enough balance", "12"],
      "do not honor": ["Refused", "Refused", "2"],
      "expired card": ["Refused", "Expired Card", "6"],
    };
    if (outcome === "tokenization fails") return; // exchange.test.js: it never becomes a token
    const res = await pay(t.url, who(), { number });
    const refusal = expected[outcome];
    if (refusal === undefined) throw new Error(`no expectation for ${outcome}`);
    if (refusal === null) {
      expect(res.body.resultCode).toBe("Authorised");
      return;
    }
    const [resultCode, refusalReason, refusalReasonCode] = refusal;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ resultCode, refusalReason, refusalReasonCode });
    expect(typeof res.body.refusalReasonCode).toBe("string");
    expect(res.body).not.toHaveProperty("paymentMethod");
    const item = await webhookFor("AUTHORISATION", res.body.pspReference);
    expect(item).toMatchObject({ success: "false", reason: refusalReason });
  });

  test.each([
    ["no credentials", { merchant: null }],
    ["a wrong API key", { apiKey: "AQE_wrong" }],
    ["a wrong Basic password", { authorization: `Basic ${Buffer.from("ws@Company.ServiceScanDemo:nope").toString("base64")}` }],
  ])("401/000 for %s", async (_name, auth) => {
    const card = await storeCard(t.url, keys);
    const res = await adyenCall(t.url, `${CHECKOUT}/payments`, { ...auth, body: paymentBody(merchant, card) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ status: 401, errorCode: "000", message: "HTTP Status Response - Unauthorized", errorType: "security" });
  });

  test("403/901 for a merchant account the credential has no access to", async () => {
    const card = await storeCard(t.url, keys);
    const res = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(otherMerchant, card) });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ status: 403, errorCode: "901", message: "Invalid Merchant Account", errorType: "security", pspReference: expect.stringMatching(PSP) });
  });

  test("400/702 for a body Adyen cannot read", async () => {
    const unparsable = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, raw: '{"amount": ' });
    expect(unparsable.status).toBe(400);
    expect(unparsable.body).toMatchObject({ status: 400, errorCode: "702", errorType: "validation" });
    const card = await storeCard(t.url, keys);
    const wrongType = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { amount: { currency: "USD", value: "10" } }) });
    expect(wrongType.body).toMatchObject({ status: 400, errorCode: "702" });
    const unknown = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { shopperRef: "x" }) });
    expect(unknown.body).toMatchObject({ status: 400, errorCode: "702", message: expect.stringContaining("shopperRef") });
    const badEnum = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { shopperInteraction: "Online" }) });
    expect(badEnum.body).toMatchObject({ status: 400, errorCode: "702" });
  });

  test.each([
    ["returnUrl missing", { returnUrl: undefined }, "14_030", "Return URL is missing."],
    ["amount missing", { amount: undefined }, "100", "Required object 'amount' is not provided."],
    ["a negative amount", { amount: { currency: "USD", value: -5 } }, "137", "Invalid amount specified"],
    ["a currency that is no code", { amount: { currency: "usd", value: 5 } }, "138", "Unsupported currency specified"],
    ["reference missing", { reference: undefined }, "000", "Required field 'reference' is not provided."],
    ["shopperReference missing", { shopperReference: undefined }, "000", "Recurring payments require a shopperReference"],
    ["recurringProcessingModel missing", { recurringProcessingModel: undefined }, "000", "Required field 'recurringProcessingModel' is not provided."],
    ["Ecommerce without the CVC", { shopperInteraction: "Ecommerce" }, "000", "CVC is required for OneClick card payments."],
    ["another shopper's reference", { shopperReference: "cus_somebody_else" }, "803", "PaymentDetail not found"],
    ["more than 20 metadata keys", { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, "v"])) }, "177", "Metadata size exceeds limit"],
  ])("422 for %s", async (_name, overrides, errorCode, message) => {
    const card = await storeCard(t.url, keys);
    const body = paymentBody(merchant, card, overrides);
    const res = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ status: 422, errorCode, message, errorType: "validation", pspReference: expect.stringMatching(PSP) });
  });

  test("422/803 for a token that is not stored at this merchant", async () => {
    const card = await storeCard(t.url, keys);
    const res = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, { ...card, token: "M5N7TQ4TG5PFWR50" }) });
    expect(res.body).toMatchObject({ status: 422, errorCode: "803" });
  });

  test("500/905 for card details other than a stored card: raw card numbers never reach a merchant", async () => {
    const card = await storeCard(t.url, keys);
    const res = await adyenCall(t.url, `${CHECKOUT}/payments`, {
      merchant,
      body: paymentBody(merchant, card, { paymentMethod: { type: "scheme", number: "4111111111111111", expiryMonth: "03", expiryYear: "2030", cvc: "737" } }),
    });
    expect(res.body).toMatchObject({ status: 500, errorCode: "905", errorType: "configuration" });
  });

  test("no payment is created by a refused request", async () => {
    const before = (await control(t.url, "/adyen/transactions?type=payment")).body.count;
    const card = await storeCard(t.url, keys);
    await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { returnUrl: undefined }) });
    expect((await control(t.url, "/adyen/transactions?type=payment")).body.count).toBe(before);
  });
});

describe("capture delay", () => {
  test("manualCapture leaves the payment authorised; the account's immediate default captures at once", async () => {
    const manual = await pay(t.url, who(), { manualCapture: true });
    expect(await paymentState(manual.body.pspReference)).toMatchObject({ captureMode: "manual", captured: 0 });
    const automatic = await pay(t.url, who(), { manualCapture: false });
    expect(await paymentState(automatic.body.pspReference)).toMatchObject({ captureMode: "immediate", captured: 1000 });
    // Capturing an automatically captured payment never charges twice.
    const again = await modify(automatic.body.pspReference, "captures", { amount: { currency: "USD", value: 1000 } });
    expect(again.status).toBe(201);
    expect(await webhookFor("CAPTURE", again.body.pspReference)).toMatchObject({ success: "false", reason: "Insufficient balance on payment" });
  });

  test("an account set to manual capture leaves payments uncaptured without the flag", async () => {
    const account = await adyenAccount(t.url, { captureDelay: "manual" });
    const res = await pay(t.url, { keys: account.keys, merchant: account.adyen }, { manualCapture: false });
    expect(await paymentState(res.body.pspReference)).toMatchObject({ captureMode: "manual", captured: 0 });
  });

  test("captureDelayHours captures later, on Adyen's (scaled) clock", async () => {
    await control(t.url, "/adyen/settings", { timeScale: 0.000001 });
    try {
      const res = await pay(t.url, who(), { manualCapture: false, overrides: { captureDelayHours: 1 } });
      const psp = res.body.pspReference;
      expect((await paymentState(psp)).captureMode).toBe("delayed");
      const started = Date.now();
      while ((await paymentState(psp)).captured === 0) {
        if (Date.now() - started > 2000) throw new Error("the delayed capture did not happen");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      await control(t.url, "/adyen/settings", { timeScale: 0.001 });
    }
  });
});

describe("captures", () => {
  test("full and partial captures answer 201 received; outcomes come by CAPTURE webhook", async () => {
    const payment = await pay(t.url, who(), { value: 1000 });
    const psp = payment.body.pspReference;
    const first = await modify(psp, "captures", { amount: { currency: "USD", value: 400 }, reference: "cap-1" });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      amount: { currency: "USD", value: 400 },
      merchantAccount: merchant.merchantAccount,
      paymentPspReference: psp,
      pspReference: expect.stringMatching(PSP),
      reference: "cap-1",
      status: "received",
    });
    const second = await modify(psp, "captures", { amount: { currency: "USD", value: 600 } });
    const over = await modify(psp, "captures", { amount: { currency: "USD", value: 1 } });
    expect(over.status).toBe(201);
    expect(await webhookFor("CAPTURE", first.body.pspReference)).toMatchObject({
      success: "true",
      originalReference: psp,
      merchantReference: payment.request.reference,
      amount: { currency: "USD", value: 400 },
      reason: "",
    });
    expect(await webhookFor("CAPTURE", second.body.pspReference)).toMatchObject({ success: "true" });
    expect(await webhookFor("CAPTURE", over.body.pspReference)).toMatchObject({ success: "false", reason: "Insufficient balance on payment" });
    expect(await paymentState(psp)).toMatchObject({ captured: 1000 });
  });

  test("without multiple partial captures, the rest of a partial capture is released", async () => {
    const account = await adyenAccount(t.url, { multiplePartialCaptures: false });
    const mine = { keys: account.keys, merchant: account.adyen };
    const payment = await pay(t.url, mine, { value: 1000 });
    const call = (/** @type {number} */ value) =>
      adyenCall(t.url, `${CHECKOUT}/payments/${payment.body.pspReference}/captures`, {
        merchant: mine.merchant,
        body: { merchantAccount: mine.merchant.merchantAccount, amount: { currency: "USD", value } },
      });
    await call(300);
    await call(300);
    const outcomes = (await control(t.url, `/adyen/transactions?type=capture&paymentPspReference=${payment.body.pspReference}`)).body.items;
    expect(outcomes.map((/** @type {{ success: boolean }} */ m) => m.success)).toEqual([true, false]);
  });

  test("a capture in another currency fails by webhook", async () => {
    const payment = await pay(t.url, who());
    const res = await modify(payment.body.pspReference, "captures", { amount: { currency: "EUR", value: 100 } });
    expect(await webhookFor("CAPTURE", res.body.pspReference)).toMatchObject({ success: "false" });
  });

  test("a capture needs its amount: 422/100", async () => {
    const payment = await pay(t.url, who());
    const res = await modify(payment.body.pspReference, "captures", {});
    expect(res.body).toMatchObject({ status: 422, errorCode: "100" });
  });
});

describe("refunds", () => {
  test("partial refunds up to what was captured; more fails by webhook", async () => {
    const payment = await pay(t.url, who(), { value: 1000 });
    const psp = payment.body.pspReference;
    const early = await modify(psp, "refunds", { amount: { currency: "USD", value: 100 } });
    await modify(psp, "captures", { amount: { currency: "USD", value: 800 } });
    const first = await modify(psp, "refunds", { amount: { currency: "USD", value: 500 }, merchantRefundReason: "CUSTOMER REQUEST", reference: "ref-1" });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      amount: { currency: "USD", value: 500 },
      merchantAccount: merchant.merchantAccount,
      merchantRefundReason: "CUSTOMER REQUEST",
      paymentPspReference: psp,
      pspReference: expect.stringMatching(PSP),
      reference: "ref-1",
      status: "received",
    });
    const second = await modify(psp, "refunds", { amount: { currency: "USD", value: 300 } });
    const over = await modify(psp, "refunds", { amount: { currency: "USD", value: 1 } });
    expect(await webhookFor("REFUND", early.body.pspReference)).toMatchObject({ success: "false", reason: "Transaction hasn't been captured, refund not possible" });
    expect(await webhookFor("REFUND", first.body.pspReference)).toMatchObject({ success: "true", originalReference: psp, amount: { value: 500 } });
    expect(await webhookFor("REFUND", second.body.pspReference)).toMatchObject({ success: "true" });
    expect(await webhookFor("REFUND", over.body.pspReference)).toMatchObject({ success: "false", reason: "Insufficient balance on payment" });
    expect(await paymentState(psp)).toMatchObject({ captured: 800, refunded: 800 });
  });

  test("merchantRefundReason outside the spec's enum is unreadable: 400/702", async () => {
    const payment = await pay(t.url, who(), { manualCapture: false });
    const res = await modify(payment.body.pspReference, "refunds", { amount: { currency: "USD", value: 1 }, merchantRefundReason: "CHANGED MIND" });
    expect(res.body).toMatchObject({ status: 400, errorCode: "702" });
  });
});

describe("cancels and reversals", () => {
  test("a cancel releases an uncaptured payment; after a capture it fails by webhook", async () => {
    const open = await pay(t.url, who());
    const cancel = await modify(open.body.pspReference, "cancels", { reference: "cancel-1" });
    expect(cancel.status).toBe(201);
    expect(cancel.body).toEqual({
      merchantAccount: merchant.merchantAccount,
      paymentPspReference: open.body.pspReference,
      pspReference: expect.stringMatching(PSP),
      reference: "cancel-1",
      status: "received",
    });
    expect(await webhookFor("CANCELLATION", cancel.body.pspReference)).toMatchObject({ success: "true", originalReference: open.body.pspReference, amount: { value: 1000 } });
    // Nothing can be captured once cancelled.
    const late = await modify(open.body.pspReference, "captures", { amount: { currency: "USD", value: 100 } });
    expect(await webhookFor("CAPTURE", late.body.pspReference)).toMatchObject({ success: "false" });

    const captured = await pay(t.url, who(), { manualCapture: false });
    const refused = await modify(captured.body.pspReference, "cancels");
    expect(await webhookFor("CANCELLATION", refused.body.pspReference)).toMatchObject({ success: "false" });
  });

  test("a reversal cancels what is not captured and refunds what is, always the whole payment", async () => {
    const open = await pay(t.url, who(), { value: 700 });
    const cancelled = await modify(open.body.pspReference, "reversals");
    expect(cancelled.status).toBe(201);
    expect(cancelled.body).toEqual({ merchantAccount: merchant.merchantAccount, paymentPspReference: open.body.pspReference, pspReference: expect.stringMatching(PSP), status: "received" });
    expect(await webhookFor("CANCEL_OR_REFUND", cancelled.body.pspReference)).toMatchObject({
      success: "true",
      amount: { value: 700 },
      additionalData: expect.objectContaining({ "modification.action": "cancel" }),
    });

    const captured = await pay(t.url, who(), { value: 700, manualCapture: false });
    const refunded = await modify(captured.body.pspReference, "reversals");
    expect(await webhookFor("CANCEL_OR_REFUND", refunded.body.pspReference)).toMatchObject({
      success: "true",
      additionalData: expect.objectContaining({ "modification.action": "refund" }),
    });
    expect(await paymentState(captured.body.pspReference)).toMatchObject({ captured: 700, refunded: 700 });
    const again = await modify(captured.body.pspReference, "reversals");
    expect(await webhookFor("CANCEL_OR_REFUND", again.body.pspReference)).toMatchObject({ success: "false" });
  });

  test("the standalone cancel finds the payment by its reference and sends TECHNICAL_CANCEL", async () => {
    const payment = await pay(t.url, who());
    const res = await adyenCall(t.url, `${CHECKOUT}/cancels`, {
      merchant,
      body: { merchantAccount: merchant.merchantAccount, paymentReference: payment.request.reference, reference: "tc-1" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      merchantAccount: merchant.merchantAccount,
      paymentReference: payment.request.reference,
      pspReference: expect.stringMatching(PSP),
      reference: "tc-1",
      status: "received",
    });
    expect(await webhookFor("TECHNICAL_CANCEL", res.body.pspReference)).toMatchObject({
      success: "true",
      originalReference: payment.body.pspReference,
      merchantReference: payment.request.reference,
    });
    expect(await paymentState(payment.body.pspReference)).toMatchObject({ cancelled: true });

    const none = await adyenCall(t.url, `${CHECKOUT}/cancels`, { merchant, body: { merchantAccount: merchant.merchantAccount, paymentReference: "never-paid" } });
    expect(none.status).toBe(201);
    expect(await webhookFor("TECHNICAL_CANCEL", none.body.pspReference)).toMatchObject({ success: "false", merchantReference: "never-paid" });
    const missing = await adyenCall(t.url, `${CHECKOUT}/cancels`, { merchant, body: { merchantAccount: merchant.merchantAccount } });
    expect(missing.body).toMatchObject({ status: 422, errorCode: "000", message: "Required field 'paymentReference' is not provided." });
  });
});

describe("modifications of payments that are not there", () => {
  test("422/167 for an unknown pspReference, another merchant's payment, or a modification's reference", async () => {
    const payment = await pay(t.url, who());
    const capture = await modify(payment.body.pspReference, "captures", { amount: { currency: "USD", value: 100 } });
    const expected = { status: 422, errorCode: "167", message: "Original pspReference required for this operation", errorType: "validation" };
    expect((await modify("0000000000000000", "captures", { amount: { currency: "USD", value: 1 } })).body).toEqual(expected);
    expect((await modify(capture.body.pspReference, "refunds", { amount: { currency: "USD", value: 1 } })).body).toEqual(expected);
    const other = await adyenCall(t.url, `${CHECKOUT}/payments/${payment.body.pspReference}/cancels`, {
      merchant: otherMerchant,
      body: { merchantAccount: otherMerchant.merchantAccount },
    });
    expect(other.body).toEqual(expected);
  });

  test("other methods are not routes: 405", async () => {
    const res = await fetch(`${t.url}${CHECKOUT}/payments`);
    expect(res.status).toBe(405);
  });
});

describe("GET /__sandbox/adyen/transactions", () => {
  test("counts one payment and each modification, filtered by type and payment", async () => {
    const payment = await pay(t.url, who());
    const psp = payment.body.pspReference;
    await modify(psp, "captures", { amount: { currency: "USD", value: 1000 } });
    await modify(psp, "refunds", { amount: { currency: "USD", value: 250 } });
    const all = (await control(t.url, `/adyen/transactions?paymentPspReference=${psp}`)).body;
    expect(all.items.map((/** @type {{ type: string }} */ i) => i.type)).toEqual(["payment", "capture", "refund"]);
    expect(all.items[0]).toMatchObject({ pspReference: psp, resultCode: "Authorised", reference: payment.request.reference, replays: 0, idempotencyKey: null });
    expect(all.items[0]).not.toHaveProperty("cardNumber");
    expect(all.items[1]).toMatchObject({ type: "capture", paymentPspReference: psp, amount: { value: 1000 }, success: true });
    expect((await control(t.url, `/adyen/transactions?type=refund&paymentPspReference=${psp}`)).body.count).toBe(1);
    const state = await paymentState(psp);
    expect(state.modifications).toHaveLength(2);
    await settled(t.url);
    const sent = await notifications(t.url, { originalReference: psp });
    expect(sent.map((n) => n.eventCode)).toEqual(["CAPTURE", "REFUND"]);
  });
});
