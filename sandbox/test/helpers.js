// @ts-check
"use strict";

const { XMLParser } = require("fast-xml-parser");
const { startSandbox } = require("../dist/index");

/** The merchant page origin tests submit forms from; `localhost` is a demo account domain. */
const ORIGIN = "http://localhost:3000";
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FUTURE_EXPIRY = `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, "0")}`;

/**
 * Starts a silent sandbox for one test file and stops it afterwards.
 * @param {import("../dist/index").SandboxOptions} [options]
 */
function useSandbox(options = {}) {
  /** @type {{ sb: import("../dist/index").Sandbox, url: string }} */
  const ctx = /** @type {any} */ ({});
  beforeAll(async () => {
    ctx.sb = await startSandbox({ logger: false, ...options });
    ctx.url = ctx.sb.url;
  });
  afterAll(async () => {
    await ctx.sb?.close();
  });
  return ctx;
}

/**
 * @param {string} url
 * @param {string} path
 * @param {unknown} [body]
 * @param {string} [method]
 */
async function control(url, path, body, method = body === undefined ? "GET" : "POST") {
  const res = await fetch(`${url}/__sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/**
 * @param {string} url
 * @param {Record<string, unknown>} [body]
 * @returns {Promise<{ accountId: string, keys: { shareable: string, paymentToken: string, secret: string }, processor: { merchantId: string, user: string, password: string } }>}
 */
async function createAccount(url, body = {}) {
  const res = await control(url, "/accounts", body);
  if (res.status !== 201) throw new Error(`account creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/**
 * Submits a form the way a page on `origin` would.
 * @param {string} url
 * @param {Record<string, unknown>} body
 * @param {{ origin?: string | null }} [options]
 */
async function postForm(url, body, options = {}) {
  const origin = options.origin === undefined ? ORIGIN : options.origin;
  /** @type {Record<string, string>} */
  const headers = { "Content-Type": "application/json" };
  if (origin !== null) headers.Origin = origin;
  const res = await fetch(`${url}/api/v1/forms`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/**
 * @param {string} url
 * @param {string} key shareable key
 * @param {{ number?: string, cvv?: string, expiry?: string }} [card]
 * @param {Record<string, unknown>} [extra]
 */
async function submitCard(url, key, card = {}, extra = {}) {
  const res = await postForm(url, {
    key,
    card: { number: "4457119922390123", cvv: "123", expiry: FUTURE_EXPIRY, ...card },
    ...extra,
  });
  if (res.status !== 200) throw new Error(`form submission failed: ${res.status} ${JSON.stringify(res.body)}`);
  return /** @type {{ formId: string, responseCode: string }} */ (res.body);
}

/**
 * @param {string} url
 * @param {string} formId
 * @param {string | undefined} key payment token key
 * @param {string} [processor]
 */
async function exchange(url, formId, key, processor = "worldpay") {
  const res = await fetch(`${url}/api/v1/${processor}/form/${formId}`, { headers: key === undefined ? {} : { "X-API-KEY": key } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * @param {string} url
 * @param {string} path
 * @param {{ key?: string, method?: string, body?: string | Buffer, contentType?: string | null }} [options]
 */
async function call(url, path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (options.key !== undefined) headers["X-API-KEY"] = options.key;
  const contentType = options.contentType === undefined ? "application/json" : options.contentType;
  if (options.body !== undefined && contentType !== null) headers["Content-Type"] = contentType;
  const res = await fetch(`${url}${path}`, { method: options.method ?? "GET", headers, body: /** @type {BodyInit | undefined} */ (options.body) });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, bytes, text: bytes.toString("utf8") };
}

const xmlParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_", parseTagValue: false });

/**
 * @param {{ merchantId: string, user: string, password: string }} creds
 * @param {string} transaction
 * @param {string} [root]
 */
function cnpRequest(creds, transaction, root = "cnpOnlineRequest") {
  const ns = root === "cnpOnlineRequest" ? "http://www.vantivcnp.com/schema" : "http://www.litle.com/schema";
  return `<?xml version="1.0" encoding="UTF-8"?>
<${root} version="12.30" xmlns="${ns}" merchantId="${creds.merchantId}">
  <authentication><user>${creds.user}</user><password>${creds.password}</password></authentication>
  ${transaction}
</${root}>`;
}

/**
 * Posts raw cnpAPI XML and returns the parsed envelope.
 * @param {string} url
 * @param {string} xml
 */
async function postCnp(url, xml) {
  const res = await fetch(`${url}/cnp/online`, { method: "POST", headers: { "Content-Type": "text/xml" }, body: xml });
  const text = await res.text();
  const doc = xmlParser.parse(text);
  const envelope = doc.cnpOnlineResponse ?? doc.litleOnlineResponse;
  return { status: res.status, headers: res.headers, text, envelope };
}

module.exports = {
  ORIGIN,
  UUID_V4,
  FUTURE_EXPIRY,
  useSandbox,
  control,
  createAccount,
  postForm,
  submitCard,
  exchange,
  call,
  cnpRequest,
  postCnp,
};
