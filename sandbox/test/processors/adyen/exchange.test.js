// @ts-check
"use strict";

/**
 * The `adyen` token exchange: `GET /api/v1/adyen/form/<form_id>` stores the form's card as an
 * Adyen stored payment method under shopperReference = the form's customerId (or, without one,
 * the form id) and answers its id as the token.
 */

const { control, exchange, submitCard, useSandbox } = require("../../helpers");
const { adyenAccount, storeCard } = require("./helpers");

const t = useSandbox();
const TOKEN = /^[A-Z0-9]{16}$/;

/** @param {Record<string, string>} [query] */
async function stored(query = {}) {
  return (await control(t.url, `/adyen/stored-payment-methods?${new URLSearchParams(query)}`)).body.items;
}

test("answers {token}, a stored payment method id stored under the form's customerId", async () => {
  const { shareable, paymentToken } = t.sb.demo.keys;
  const { formId } = await submitCard(t.url, shareable, { number: "5555555555554444", expiry: "03/31" }, { config: { customerId: "cus_exchange_1" } });
  const res = await exchange(t.url, formId, paymentToken, "adyen");
  expect(res.status).toBe(200);
  const { token } = JSON.parse(res.text);
  expect(token).toMatch(TOKEN);
  expect(await stored({ shopperReference: "cus_exchange_1" })).toEqual([
    {
      storedPaymentMethodId: token,
      merchantAccount: t.sb.demo.adyen.merchantAccount,
      shopperReference: "cus_exchange_1",
      expiryMonth: "03",
      expiryYear: "2031",
      brand: "mc",
      lastFour: "4444",
      createdAt: expect.any(String),
    },
  ]);
});

test("a form without customerId is stored under its own form id", async () => {
  const card = await storeCard(t.url, t.sb.demo.keys, { customerId: null });
  expect(card.shopperReference).toBe(card.formId);
  const [method] = await stored({ shopperReference: card.formId });
  expect(method.storedPaymentMethodId).toBe(card.token);
});

test("the same card for the same shopper is the same token; another shopper gets another", async () => {
  const a = await storeCard(t.url, t.sb.demo.keys, { customerId: "cus_same" });
  const again = await storeCard(t.url, t.sb.demo.keys, { customerId: "cus_same" });
  const other = await storeCard(t.url, t.sb.demo.keys, { customerId: "cus_other" });
  expect(again.token).toBe(a.token);
  expect(other.token).not.toBe(a.token);
  // Exchanging the same form again answers the same token.
  expect(JSON.parse((await exchange(t.url, a.formId, t.sb.demo.keys.paymentToken, "adyen")).text).token).toBe(a.token);
  expect(await stored({ shopperReference: "cus_same" })).toHaveLength(1);
});

test("a form exchanged for both processors keeps one token per processor", async () => {
  const { shareable, paymentToken } = t.sb.demo.keys;
  const { formId } = await submitCard(t.url, shareable, {}, { config: { customerId: "cus_both" } });
  const worldpay = JSON.parse((await exchange(t.url, formId, paymentToken, "worldpay")).text).token;
  const adyen = JSON.parse((await exchange(t.url, formId, paymentToken, "adyen")).text).token;
  expect(worldpay).toMatch(/^\d{16}$/);
  expect(adyen).toMatch(TOKEN);
  expect(JSON.parse((await exchange(t.url, formId, paymentToken, "worldpay")).text).token).toBe(worldpay);
});

test("the untokenizable test card is refused with Adyen's 101, as Worldpay's 820", async () => {
  const { formId } = await submitCard(t.url, t.sb.demo.keys.shareable, { number: "4457119999999996" }, { config: { customerId: "cus_bad" } });
  const res = await exchange(t.url, formId, t.sb.demo.keys.paymentToken, "adyen");
  expect(res.status).toBe(402);
  expect(JSON.parse(res.text)).toEqual({ error: "Tokenization failed", processorResponse: "101", processorMessage: "Invalid card number" });
});

test("a customerId under Adyen's 3-character minimum for shopperReference is refused", async () => {
  const { formId } = await submitCard(t.url, t.sb.demo.keys.shareable, {}, { config: { customerId: "ab" } });
  const res = await exchange(t.url, formId, t.sb.demo.keys.paymentToken, "adyen");
  expect(res.status).toBe(402);
  expect(JSON.parse(res.text)).toMatchObject({ error: "Tokenization failed", processorResponse: "000" });
});

test("the form's checks come first, as for Worldpay: validation, expiry, ownership, the key", async () => {
  const { shareable, paymentToken } = t.sb.demo.keys;
  const invalid = await submitCard(t.url, shareable, { number: "4111111111111112" });
  expect((await exchange(t.url, invalid.formId, paymentToken, "adyen")).status).toBe(422);
  const expired = await submitCard(t.url, shareable);
  await control(t.url, `/forms/${expired.formId}/expire`, {});
  expect((await exchange(t.url, expired.formId, paymentToken, "adyen")).status).toBe(410);
  const other = await adyenAccount(t.url);
  const valid = await submitCard(t.url, shareable);
  expect((await exchange(t.url, valid.formId, other.keys.paymentToken, "adyen")).status).toBe(404);
  expect((await exchange(t.url, valid.formId, undefined, "adyen")).status).toBe(401);
  expect((await exchange(t.url, valid.formId, paymentToken, "stripe")).status).toBe(404);
});

test("each account stores at its own merchant account", async () => {
  const account = await adyenAccount(t.url, { merchantAccount: "ExchangeShopECOM", companyAccount: "ExchangeShop" });
  const card = await storeCard(t.url, account.keys, { customerId: "cus_shop" });
  const [method] = await stored({ shopperReference: "cus_shop" });
  expect(method).toMatchObject({ storedPaymentMethodId: card.token, merchantAccount: "ExchangeShopECOM" });
});

test("the exchange is one token.exchange request in the stats", async () => {
  const { formId } = await submitCard(t.url, t.sb.demo.keys.shareable);
  await control(t.url, "/reset-stats", {});
  await exchange(t.url, formId, t.sb.demo.keys.paymentToken, "adyen");
  const stats = (await control(t.url, "/stats")).body;
  expect(stats.requests["token.exchange"]).toBe(1);
  expect(stats.total).toBe(1);
});
