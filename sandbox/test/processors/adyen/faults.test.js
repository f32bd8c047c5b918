// @ts-check
"use strict";

/**
 * The sandbox's faults on the Adyen endpoints, as on every service endpoint: latency, random 503s,
 * reset connections, and answers lost after the work was done. Counted at the sandbox.
 */

const { control, useSandbox } = require("../../helpers");
const { CHECKOUT, DISPUTES, adyenCall, pay, paymentBody, storeCard } = require("./helpers");

const t = useSandbox();
/** @type {import("./helpers").Merchant} */
let merchant;
const who = () => ({ keys: t.sb.demo.keys, merchant });

beforeAll(() => {
  merchant = t.sb.demo.adyen;
});
afterEach(async () => {
  await control(t.url, "/faults", undefined, "DELETE");
});

/** @param {Record<string, string>} query */
async function transactions(query) {
  return (await control(t.url, `/adyen/transactions?${new URLSearchParams(query)}`)).body.items;
}

test("every Adyen request is counted per route in the stats, faulted ones included", async () => {
  const payment = await pay(t.url, who());
  await control(t.url, "/reset-stats", {});
  await adyenCall(t.url, `${CHECKOUT}/payments/${payment.body.pspReference}/captures`, {
    merchant,
    body: { merchantAccount: merchant.merchantAccount, amount: { currency: "USD", value: 1000 } },
  });
  await control(t.url, "/faults", { errorRate: 1 });
  await adyenCall(t.url, `${DISPUTES}/acceptDispute`, { merchant, body: {} });
  const stats = (await control(t.url, "/stats")).body;
  expect(stats.requests["adyen.payments.captures"]).toBe(1);
  expect(stats.requests["adyen.disputes.acceptDispute"]).toBe(1);
  expect(stats.total).toBe(2);
});

test("a checkout is exactly two requests: one exchange and one /payments", async () => {
  await control(t.url, "/reset-stats", {});
  await pay(t.url, who());
  const stats = (await control(t.url, "/stats")).body;
  expect(stats.requests["token.exchange"]).toBe(1);
  expect(stats.requests["adyen.payments"]).toBe(1);
  // The form submission is the shopper's browser, not the plugin.
  expect(stats.total - stats.requests["forms.create"]).toBe(2);
});

test("errorRate 1 answers 503 on the Checkout and Disputes APIs, never on the Adyen control API", async () => {
  await control(t.url, "/faults", { errorRate: 1 });
  const payment = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: {} });
  const defense = await adyenCall(t.url, `${DISPUTES}/defendDispute`, { merchant, body: {} });
  for (const res of [payment, defense]) {
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: "Service unavailable" });
  }
  expect((await control(t.url, "/adyen/transactions")).status).toBe(200);
  expect((await control(t.url, "/adyen/notifications")).status).toBe(200);
});

test("latencyMs delays Adyen answers", async () => {
  await control(t.url, "/faults", { latencyMs: 150 });
  const started = Date.now();
  await adyenCall(t.url, `${CHECKOUT}/cancels`, { merchant, body: {} });
  expect(Date.now() - started).toBeGreaterThanOrEqual(140);
});

test("resetRate 1 cuts Adyen connections without an answer", async () => {
  await control(t.url, "/faults", { resetRate: 1 });
  await expect(adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: {} })).rejects.toThrow();
});

test("a lost capture answer: the capture happened, and the retry with its key changes nothing", async () => {
  const payment = await pay(t.url, who());
  const psp = payment.body.pspReference;
  const capture = () =>
    adyenCall(t.url, `${CHECKOUT}/payments/${psp}/captures`, {
      merchant,
      body: { merchantAccount: merchant.merchantAccount, amount: { currency: "USD", value: 600 } },
      idempotencyKey: `capture:${psp}:1`,
    });
  await control(t.url, "/faults", { dropResponse: { route: "adyen.payments.captures", count: 1 } });
  await expect(capture()).rejects.toThrow();
  const done = await transactions({ type: "capture", paymentPspReference: psp });
  expect(done).toHaveLength(1);
  const retried = await capture();
  expect(retried.status).toBe(201);
  expect(retried.body.pspReference).toBe(done[0].pspReference);
  expect(await transactions({ type: "capture", paymentPspReference: psp })).toHaveLength(1);
  expect((await control(t.url, `/adyen/payments/${psp}`)).body.captured).toBe(600);
});

test("a lost /payments answer without a key: the standalone cancel by reference releases the payment nobody saw", async () => {
  const card = await storeCard(t.url, t.sb.demo.keys);
  const body = paymentBody(merchant, card, { additionalData: { manualCapture: "true" } });
  await control(t.url, "/faults", { dropResponse: { route: "adyen.payments", count: 1 } });
  await expect(adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body })).rejects.toThrow();
  const [made] = await transactions({ type: "payment", reference: body.reference });
  expect(made).toMatchObject({ resultCode: "Authorised", cancelled: false });
  const cancel = await adyenCall(t.url, `${CHECKOUT}/cancels`, { merchant, body: { merchantAccount: merchant.merchantAccount, paymentReference: body.reference } });
  expect(cancel.status).toBe(201);
  expect((await control(t.url, `/adyen/payments/${made.pspReference}`)).body.cancelled).toBe(true);
});

test("a lost defendDispute answer: the defense stands, and the retry says so (the Disputes API takes no key)", async () => {
  const payment = await pay(t.url, who(), { manualCapture: false });
  const raised = (await control(t.url, "/adyen/disputes", { paymentPspReference: payment.body.pspReference })).body;
  const pdf = Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64");
  const base = { disputePspReference: raised.pspReference, merchantAccountCode: merchant.merchantAccount };
  await adyenCall(t.url, `${DISPUTES}/supplyDefenseDocument`, {
    merchant,
    body: { ...base, defenseDocuments: [{ content: pdf, contentType: "application/pdf", defenseDocumentTypeCode: "DefenseMaterial" }] },
  });
  await control(t.url, "/faults", { dropResponse: { route: "adyen.disputes.defendDispute", count: 1 } });
  const defend = () => adyenCall(t.url, `${DISPUTES}/defendDispute`, { merchant, body: { ...base, defenseReasonCode: "SupplyDefenseMaterial" } });
  await expect(defend()).rejects.toThrow();
  expect((await control(t.url, `/adyen/disputes/${raised.pspReference}`)).body.defense).toMatchObject({ defenseReasonCode: "SupplyDefenseMaterial" });
  expect((await defend()).body.disputeServiceResult).toEqual({ success: false, errorMessage: "Dispute has already been defended." });
});

test("dropResponse takes the Adyen route names, and refuses unknown ones", async () => {
  expect((await control(t.url, "/faults", { dropResponse: { route: "adyen.cancels", count: 2 } })).body).toEqual({ dropResponse: { route: "adyen.cancels", count: 2 } });
  expect((await control(t.url, "/faults", { dropResponse: { route: "adyen.nope", count: 1 } })).status).toBe(400);
});
