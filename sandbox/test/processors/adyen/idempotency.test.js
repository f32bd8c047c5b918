// @ts-check
"use strict";

/**
 * The Idempotency-Key header of the Checkout API: at most 64 characters, kept per company account
 * (not per endpoint), the first answer replayed whatever the request, 704 while the first request
 * is still in flight, and echoed on every answer.
 */

const { control, useSandbox } = require("../../helpers");
const { CHECKOUT, adyenAccount, adyenCall, pay, paymentBody, settled, storeCard, notifications } = require("./helpers");

const t = useSandbox();
/** @type {import("./helpers").Merchant} */
let merchant;
const who = () => ({ keys: t.sb.demo.keys, merchant });
let n = 0;
const key = () => `auth:${process.pid}:${++n}`;

beforeAll(() => {
  merchant = t.sb.demo.adyen;
});
afterEach(async () => {
  await control(t.url, "/adyen/settings", { processingDelayMs: 0 });
  await control(t.url, "/faults", undefined, "DELETE");
});

/** @param {Record<string, string>} query */
async function transactions(query) {
  return (await control(t.url, `/adyen/transactions?${new URLSearchParams(query)}`)).body.items;
}

test("a repeated key replays the first answer: one payment, the key echoed, the replay counted", async () => {
  const card = await storeCard(t.url, t.sb.demo.keys);
  const body = paymentBody(merchant, card);
  const k = key();
  const first = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body, idempotencyKey: k });
  const second = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body, idempotencyKey: k });
  expect(first.status).toBe(200);
  expect(second.status).toBe(200);
  expect(second.body).toEqual(first.body);
  expect(first.headers.get("idempotency-key")).toBe(k);
  expect(second.headers.get("idempotency-key")).toBe(k);
  const items = await transactions({ reference: body.reference });
  expect(items).toHaveLength(1);
  expect(items[0]).toMatchObject({ idempotencyKey: k, replays: 1 });
  await settled(t.url);
  expect(await notifications(t.url, { pspReference: first.body.pspReference, eventCode: "AUTHORISATION" })).toHaveLength(1);
});

test("the same key with another body still replays the first answer", async () => {
  const card = await storeCard(t.url, t.sb.demo.keys);
  const k = key();
  const first = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { amount: { currency: "USD", value: 100 } }), idempotencyKey: k });
  const second = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { amount: { currency: "USD", value: 999 } }), idempotencyKey: k });
  expect(second.body).toEqual(first.body);
  expect(second.body.amount.value).toBe(100);
});

test("keys are per company account, not per endpoint: a capture with a payment's key gets the payment's answer", async () => {
  const k = key();
  const payment = await pay(t.url, who(), { idempotencyKey: k });
  const capture = await adyenCall(t.url, `${CHECKOUT}/payments/${payment.body.pspReference}/captures`, {
    merchant,
    body: { merchantAccount: merchant.merchantAccount, amount: { currency: "USD", value: 1000 } },
    idempotencyKey: k,
    answerOf: `${CHECKOUT}/payments`,
  });
  expect(capture.status).toBe(200);
  expect(capture.body).toEqual(payment.body);
  expect(await transactions({ type: "capture", paymentPspReference: payment.body.pspReference })).toEqual([]);
});

test("another company account may use the same key for its own request", async () => {
  const k = key();
  const account = await adyenAccount(t.url);
  const mine = await pay(t.url, who(), { idempotencyKey: k });
  const theirs = await pay(t.url, { keys: account.keys, merchant: account.adyen }, { idempotencyKey: k });
  expect(theirs.body.pspReference).not.toBe(mine.body.pspReference);
});

test("a refused request leaves its key free for the corrected retry", async () => {
  const card = await storeCard(t.url, t.sb.demo.keys);
  const k = key();
  const refused = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card, { returnUrl: undefined }), idempotencyKey: k });
  expect(refused.status).toBe(422);
  expect(refused.headers.get("idempotency-key")).toBe(k);
  const retried = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card), idempotencyKey: k });
  expect(retried.status).toBe(200);
  expect(retried.body.resultCode).toBe("Authorised");
});

test("a refusal by the issuer is an answer like any other: replayed, not retried", async () => {
  const k = key();
  const first = await pay(t.url, who(), { number: "4000000000009995", idempotencyKey: k });
  expect(first.body.resultCode).toBe("Refused");
  const again = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: first.request, idempotencyKey: k });
  expect(again.body).toEqual(first.body);
});

test("keys of 64 characters are taken; longer ones are refused", async () => {
  const card = await storeCard(t.url, t.sb.demo.keys);
  const ok = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card), idempotencyKey: `${"k".repeat(60)}${String(++n).padStart(4, "0")}` });
  expect(ok.status).toBe(200);
  const long = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body: paymentBody(merchant, card), idempotencyKey: "k".repeat(65) });
  expect(long.status).toBe(422);
  expect(long.body).toMatchObject({ errorCode: "000", message: "Idempotency-Key must be 1 to 64 characters." });
});

test("704 while the first request with the key is still in flight, marked transient", async () => {
  await control(t.url, "/adyen/settings", { processingDelayMs: 300 });
  const card = await storeCard(t.url, t.sb.demo.keys);
  const body = paymentBody(merchant, card);
  const k = key();
  const first = adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body, idempotencyKey: k });
  await new Promise((resolve) => setTimeout(resolve, 50));
  const second = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body, idempotencyKey: k });
  expect(second.status).toBe(409);
  expect(second.body).toEqual({ status: 409, errorCode: "704", message: "request already processed or in progress", errorType: "validation" });
  expect(second.headers.get("transient-error")).toBe("true");
  expect(second.headers.get("idempotency-key")).toBe(k);
  const answered = await first;
  expect(answered.status).toBe(200);
  const third = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body, idempotencyKey: k });
  expect(third.body).toEqual(answered.body);
  expect(await transactions({ reference: body.reference })).toHaveLength(1);
});

test("work done, answer lost: the retry with the same key gets the payment that was made", async () => {
  const card = await storeCard(t.url, t.sb.demo.keys);
  const body = paymentBody(merchant, card);
  const k = key();
  await control(t.url, "/faults", { dropResponse: { route: "adyen.payments", count: 1 } });
  await expect(adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body, idempotencyKey: k })).rejects.toThrow();
  const made = await transactions({ reference: body.reference });
  expect(made).toHaveLength(1);
  const retried = await adyenCall(t.url, `${CHECKOUT}/payments`, { merchant, body, idempotencyKey: k });
  expect(retried.body.pspReference).toBe(made[0].pspReference);
  expect(await transactions({ reference: body.reference })).toHaveLength(1);
});

test("modifications replay too: one capture, one CAPTURE webhook", async () => {
  const payment = await pay(t.url, who());
  const k = key();
  const capture = () =>
    adyenCall(t.url, `${CHECKOUT}/payments/${payment.body.pspReference}/captures`, {
      merchant,
      body: { merchantAccount: merchant.merchantAccount, amount: { currency: "USD", value: 500 } },
      idempotencyKey: k,
    });
  const first = await capture();
  const second = await capture();
  expect(second.status).toBe(201);
  expect(second.body).toEqual(first.body);
  const captures = await transactions({ type: "capture", paymentPspReference: payment.body.pspReference });
  expect(captures).toHaveLength(1);
  expect(captures[0].replays).toBe(1);
  expect(await notifications(t.url, { eventCode: "CAPTURE", originalReference: payment.body.pspReference })).toHaveLength(1);
});
