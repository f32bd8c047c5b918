// @ts-check
"use strict";

/**
 * Helpers for the Adyen specs. Every Adyen answer a spec receives through {@link adyenCall} and
 * every notification a {@link webhookReceiver} receives is checked against the schemas derived
 * from Adyen's OpenAPI files (openapi-schemas.js): a non-conforming answer fails the spec that got
 * it, so the whole suite is the conformance test, not only conformance.test.js.
 */

const crypto = require("node:crypto");
const http = require("node:http");
const { adyenHmacSignature } = require("../../../dist/index");
const { control, exchange, submitCard } = require("../../helpers");
const { checkout, disputes, validate, webhooks } = require("./openapi-schemas");

/** @typedef {import("../../../dist/index").Sandbox} Sandbox */
/** @typedef {{ merchantAccount: string, apiKey: string, username: string, password: string, hmacKey: string, companyAccount: string }} Merchant */
/** @typedef {Record<string, any>} Obj */

const CHECKOUT = "/v71";
const DISPUTES = "/ca/services/DisputeService/v30";

/** What was checked in this spec file: counts, and the names of the schemas used (conformance.test.js's coverage). */
const checked = { answers: 0, notifications: 0, schemas: new Set() };

/**
 * The name of the schema an answer must satisfy, from its path and status; null for the
 * sandbox's own answers (its faults and its routing), which are not Adyen's.
 * @param {string} path
 * @param {number} status
 * @param {unknown} body
 * @returns {string | null} e.g. "checkout.PaymentResponse"
 */
function schemaFor(path, status, body) {
  const sandboxOwn = typeof body === "object" && body !== null && "error" in body;
  if (sandboxOwn && [404, 405, 413, 503].includes(status)) return null;
  if (path.startsWith(DISPUTES)) {
    if (status !== 200) return "disputes.ServiceError";
    /** @type {Record<string, string>} */
    const byOperation = {
      retrieveApplicableDefenseReasons: "disputes.DefenseReasonsResponse",
      supplyDefenseDocument: "disputes.SupplyDefenseDocumentResponse",
      deleteDisputeDefenseDocument: "disputes.DeleteDefenseDocumentResponse",
      defendDispute: "disputes.DefendDisputeResponse",
      acceptDispute: "disputes.AcceptDisputeResponse",
    };
    return byOperation[path.slice(DISPUTES.length + 1)] ?? null;
  }
  if (status >= 400) return "checkout.ServiceError";
  if (path === `${CHECKOUT}/payments`) return "checkout.PaymentResponse";
  if (path === `${CHECKOUT}/cancels`) return "checkout.StandalonePaymentCancelResponse";
  const modification = /\/payments\/[^/]+\/(captures|refunds|cancels|reversals)$/.exec(path)?.[1];
  /** @type {Record<string, string>} */
  const byModification = {
    captures: "checkout.PaymentCaptureResponse",
    refunds: "checkout.PaymentRefundResponse",
    cancels: "checkout.PaymentCancelResponse",
    reversals: "checkout.PaymentReversalResponse",
  };
  return modification ? (byModification[modification] ?? null) : null;
}

/** @param {string} name e.g. "checkout.PaymentResponse" */
function schemaNamed(name) {
  const [root, schema] = name.split(".");
  const found = (root === "checkout" ? checkout : disputes)[schema ?? ""];
  if (!found) throw new Error(`no schema ${name}`);
  return found;
}

/**
 * A call to the simulated Adyen, its answer checked against the spec.
 * @param {string} url the sandbox
 * @param {string} path e.g. "/v71/payments"
 * @param {{ body?: unknown, raw?: string, merchant?: Merchant | null, basic?: boolean, apiKey?: string, authorization?: string, idempotencyKey?: string, answerOf?: string }} [options]
 *   `answerOf`: the path whose answer this is, when an Idempotency-Key replays another endpoint's answer
 * @returns {Promise<{ status: number, headers: Headers, body: Obj }>}
 */
async function adyenCall(url, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { "Content-Type": "application/json" };
  const merchant = options.merchant;
  if (options.authorization !== undefined) headers.Authorization = options.authorization;
  else if (options.apiKey !== undefined) headers["X-API-Key"] = options.apiKey;
  else if (merchant && options.basic) headers.Authorization = `Basic ${Buffer.from(`${merchant.username}:${merchant.password}`).toString("base64")}`;
  else if (merchant) headers["X-API-Key"] = merchant.apiKey;
  if (options.idempotencyKey !== undefined) headers["Idempotency-Key"] = options.idempotencyKey;
  const res = await fetch(`${url}${path}`, { method: "POST", headers, body: options.raw ?? JSON.stringify(options.body ?? {}) });
  const text = await res.text();
  const body = text ? JSON.parse(text) : undefined;
  const schema = schemaFor(options.answerOf ?? path, res.status, body);
  if (schema) {
    const problems = validate(schemaNamed(schema), body);
    if (problems.length > 0) throw new Error(`${path} answered ${res.status} outside Adyen's ${schema}: ${problems.join("; ")}\n${text}`);
    checked.answers += 1;
    checked.schemas.add(schema);
  }
  return { status: res.status, headers: res.headers, body };
}

/**
 * Adyen's HMAC check, as a receiver does it (the official library's algorithm).
 * @param {Obj} item a NotificationRequestItem
 * @param {string} hexKey
 */
function hmacValid(item, hexKey) {
  const given = Buffer.from(String(item.additionalData?.hmacSignature ?? ""), "base64");
  const signed = {
    pspReference: String(item.pspReference ?? ""),
    originalReference: item.originalReference,
    merchantAccountCode: String(item.merchantAccountCode ?? ""),
    merchantReference: String(item.merchantReference ?? ""),
    amount: { value: Number(item.amount?.value), currency: String(item.amount?.currency ?? "") },
    eventCode: String(item.eventCode ?? ""),
    success: String(item.success ?? ""),
  };
  const expected = Buffer.from(adyenHmacSignature(signed, hexKey), "base64");
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/**
 * @typedef {{ at: number, path: string, authorization: string | undefined, raw: string, body: Obj, item: Obj }} Delivery
 * @typedef {{ url: string, deliveries: Delivery[], problems: string[], respond: (delivery: Delivery) => number | "hang", close: () => Promise<void>, waitFor: (predicate: (items: Obj[]) => boolean, timeoutMs?: number) => Promise<Obj[]>, items: () => Obj[] }} Receiver
 */

/**
 * A webhook endpoint that records every delivery and checks it: one item per POST, the schema of
 * its event code, and the HMAC under `hmacKey`. Answers what `respond` says (200 by default;
 * "hang" never answers).
 * @param {{ hmacKey?: string }} [options]
 * @returns {Promise<Receiver>}
 */
async function webhookReceiver(options = {}) {
  /** @type {Receiver} */
  const receiver = {
    url: "",
    deliveries: [],
    problems: [],
    respond: () => 200,
    close: async () => {},
    items: () => receiver.deliveries.map((d) => d.item),
    waitFor: async (predicate, timeoutMs = 5000) => {
      const started = Date.now();
      while (!predicate(receiver.items())) {
        if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for notifications; got ${receiver.items().map((i) => i.eventCode).join(", ")}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return receiver.items();
    },
  };
  /** @type {Set<import("node:http").ServerResponse>} */
  const hanging = new Set();
  const server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => (raw += chunk));
    req.on("end", () => {
      /** @type {Obj} */
      let body = {};
      try {
        body = JSON.parse(raw);
      } catch {
        receiver.problems.push(`a delivery was not JSON: ${raw.slice(0, 100)}`);
      }
      const items = Array.isArray(body.notificationItems) ? body.notificationItems : [];
      if (items.length !== 1) receiver.problems.push(`a POST carried ${items.length} items; Adyen sends one`);
      const item = items[0]?.NotificationRequestItem ?? {};
      const schema = webhooks[item.eventCode];
      if (!schema) receiver.problems.push(`${item.eventCode} is not a webhook of Webhooks-v1.json the fixture knows`);
      else {
        const errors = validate(schema, body);
        if (errors.length > 0) receiver.problems.push(`${item.eventCode}: ${errors.join("; ")}`);
        else {
          checked.notifications += 1;
          checked.schemas.add(`webhooks.${item.eventCode}`);
        }
      }
      if (options.hmacKey && !hmacValid(item, options.hmacKey)) receiver.problems.push(`${item.eventCode} ${item.pspReference}: bad HMAC`);
      if (req.headers["content-type"] !== "application/json") receiver.problems.push(`content-type ${req.headers["content-type"]}`);
      /** @type {Delivery} */
      const delivery = { at: Date.now(), path: req.url ?? "", authorization: req.headers.authorization, raw, body, item };
      receiver.deliveries.push(delivery);
      const answer = receiver.respond(delivery);
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(answer, { "Content-Type": "text/plain" });
      res.end("[accepted]");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  receiver.url = `http://127.0.0.1:${address.port}/hooks/adyen`;
  receiver.close = () =>
    new Promise((resolve) => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/**
 * Points a merchant's webhook at a URL (null: none).
 * @param {string} url
 * @param {string} merchantAccount
 * @param {Obj} changes
 */
async function updateMerchant(url, merchantAccount, changes) {
  const res = await control(url, `/adyen/merchants/${merchantAccount}`, changes);
  if (res.status !== 200) throw new Error(`merchant update failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * A fresh sandbox account with its own Adyen merchant, its webhook at `webhookUrl`.
 * @param {string} url
 * @param {Obj} [adyen]
 * @returns {Promise<{ accountId: string, keys: { shareable: string, paymentToken: string, secret: string }, adyen: Merchant & Obj }>}
 */
async function adyenAccount(url, adyen = {}) {
  const res = await control(url, "/accounts", { adyen });
  if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

let shopperCounter = 0;

/**
 * Stores a card through the hosted form and the `adyen` token exchange.
 * @param {string} url
 * @param {{ shareable: string, paymentToken: string }} keys
 * @param {{ number?: string, customerId?: string | null, expiry?: string }} [options]
 */
async function storeCard(url, keys, options = {}) {
  shopperCounter += 1;
  const customerId = options.customerId === undefined ? `cus_${process.pid}_${shopperCounter}` : options.customerId;
  const card = { number: options.number ?? "4111111111111111", ...(options.expiry ? { expiry: options.expiry } : {}) };
  const { formId } = await submitCard(url, keys.shareable, card, customerId === null ? {} : { config: { customerId } });
  const res = await exchange(url, formId, keys.paymentToken, "adyen");
  if (res.status !== 200) throw new Error(`adyen exchange failed: ${res.status} ${res.text}`);
  return { formId, token: JSON.parse(res.text).token, shopperReference: customerId ?? formId };
}

let referenceCounter = 0;

/**
 * A `/payments` body with a stored card, as the plugin sends it.
 * @param {Merchant} merchant
 * @param {{ token: string, shopperReference: string }} card
 * @param {Obj} [overrides]
 */
function paymentBody(merchant, card, overrides = {}) {
  referenceCounter += 1;
  return {
    amount: { currency: "USD", value: 1000 },
    reference: `order_${process.pid}_${referenceCounter}`,
    paymentMethod: { type: "scheme", storedPaymentMethodId: card.token },
    shopperReference: card.shopperReference,
    shopperInteraction: "ContAuth",
    recurringProcessingModel: "CardOnFile",
    returnUrl: "https://shop.example/checkout/return",
    merchantAccount: merchant.merchantAccount,
    ...overrides,
  };
}

/**
 * Stores a card and pays with it (manual capture unless told otherwise).
 * @param {string} url
 * @param {{ keys: { shareable: string, paymentToken: string }, merchant: Merchant }} who
 * @param {{ number?: string, value?: number, manualCapture?: boolean, overrides?: Obj, idempotencyKey?: string }} [options]
 */
async function pay(url, who, options = {}) {
  const card = await storeCard(url, who.keys, { number: options.number });
  const body = paymentBody(who.merchant, card, {
    amount: { currency: "USD", value: options.value ?? 1000 },
    ...(options.manualCapture === false ? {} : { additionalData: { manualCapture: "true" } }),
    ...options.overrides,
  });
  const res = await adyenCall(url, `${CHECKOUT}/payments`, {
    merchant: who.merchant,
    body,
    ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
  });
  return { card, request: body, ...res };
}

/**
 * The notifications the sandbox recorded, filtered.
 * @param {string} url
 * @param {Record<string, string>} [query]
 * @returns {Promise<Obj[]>}
 */
async function notifications(url, query = {}) {
  const res = await control(url, `/adyen/notifications?${new URLSearchParams(query)}`);
  return res.body.items;
}

/**
 * @param {number} ms
 */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the sandbox's outbox has no notification left to deliver.
 * @param {string} url
 * @param {number} [timeoutMs]
 */
async function settled(url, timeoutMs = 5000) {
  const started = Date.now();
  for (;;) {
    const pending = (await notifications(url)).filter((n) => n.status === "pending" || n.status === "failing");
    if (pending.length === 0) return;
    if (Date.now() - started > timeoutMs) throw new Error(`notifications still queued: ${pending.map((n) => `${n.eventCode}:${n.status}`).join(", ")}`);
    await sleep(10);
  }
}

module.exports = {
  CHECKOUT,
  DISPUTES,
  checked,
  adyenCall,
  hmacValid,
  webhookReceiver,
  updateMerchant,
  adyenAccount,
  storeCard,
  paymentBody,
  pay,
  notifications,
  settled,
  sleep,
};
