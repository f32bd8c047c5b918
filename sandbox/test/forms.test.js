// @ts-check
"use strict";

const vm = require("node:vm");
const { useSandbox, control, createAccount, postForm, submitCard, call, ORIGIN, UUID_V4, FUTURE_EXPIRY } = require("./helpers");

const t = useSandbox();
/** @type {Awaited<ReturnType<typeof createAccount>>} */
let account;

beforeAll(async () => {
  account = await createAccount(t.url);
});

const thisYear = new Date().getUTCFullYear();
const thisMonth = new Date().getUTCMonth() + 1;
const yy = (/** @type {number} */ year) => String(year % 100).padStart(2, "0");
const mm = (/** @type {number} */ month) => String(month).padStart(2, "0");
const lastMonth = thisMonth === 1 ? `12/${yy(thisYear - 1)}` : `${mm(thisMonth - 1)}/${yy(thisYear)}`;

describe("validation response codes", () => {
  test.each([
    ["870", "a valid card", { number: "4457119922390123" }],
    ["870", "spaces and dashes are stripped", { number: "4457 1199-2239 0123" }],
    ["870", "a 4-digit CVV", { number: "378282246310005", cvv: "1234" }],
    ["870", "an expiry in the current month", { expiry: `${mm(thisMonth)}/${yy(thisYear)}` }],
    ["870", "an MM/YYYY expiry", { expiry: `12/${thisYear + 2}` }],
    ["871", "a Luhn failure", { number: "4457119922390124" }],
    ["871", "the cert 820 card, which fails Luhn", { number: "4457119999999999" }],
    ["872", "too short (12 digits)", { number: "411111111111" }],
    ["872", "an empty number", { number: "" }],
    ["873", "too long (20 digits)", { number: "41111111111111111111" }],
    ["874", "letters in the number", { number: "4111abcd11111111" }],
    ["874", "non-numeric wins over a bad CVV", { number: "4111x", cvv: "x" }],
    ["881", "a non-numeric CVV", { cvv: "12a" }],
    ["882", "a 2-digit CVV", { cvv: "12" }],
    ["882", "an empty CVV", { cvv: "" }],
    ["883", "a 5-digit CVV", { cvv: "12345" }],
    ["886", "an expiry in the past", { expiry: lastMonth }],
    ["886", "month 13", { expiry: `13/${yy(thisYear + 1)}` }],
    ["886", "month 00", { expiry: `00/${yy(thisYear + 1)}` }],
    ["886", "no slash", { expiry: `12${yy(thisYear + 1)}` }],
    ["886", "an empty expiry", { expiry: "" }],
  ])("%s for %s", async (code, _what, card) => {
    const body = await submitCard(t.url, account.keys.shareable, card);
    expect(body.responseCode).toBe(code);
    expect(body.formId).toMatch(UUID_V4);
  });

  test("the form is stored even when it fails validation", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable, { number: "4457119922390124" }, { config: { customerId: "c-1" } });
    const form = t.sb.state.forms.get(formId);
    expect(form).toMatchObject({ accountId: account.accountId, responseCode: "871", config: { customerId: "c-1" }, scanned: false });
    expect(typeof form?.createdAt).toBe("number");
  });

  test("a client-generated formId (from getId) is used as the form id", async () => {
    const formId = crypto.randomUUID();
    const body = await submitCard(t.url, account.keys.shareable, {}, { formId });
    expect(body).toEqual({ formId, responseCode: "870" });
  });

  test("a formId cannot be used twice", async () => {
    const formId = crypto.randomUUID();
    await submitCard(t.url, account.keys.shareable, {}, { formId });
    const again = await postForm(t.url, { key: account.keys.shareable, card: { number: "4111111111111111", cvv: "123", expiry: FUTURE_EXPIRY }, formId });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/formId/);
  });
});

describe("scanned submissions", () => {
  test("create a scan whose id is the form id, unlabelled and owned by the account", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable, {}, { scanned: true });
    expect(t.sb.state.scans.get(formId)).toMatchObject({ id: formId, accountId: account.accountId, groundTruth: null });
    // Visible through the public surface too: label it and it shows up in a proof request.
    expect((await control(t.url, `/scans/${formId}/label`, { groundTruth: "valid" })).status).toBe(200);
    const created = await call(t.url, "/disputes/proofRequest", { method: "PUT", key: account.keys.secret, body: JSON.stringify([formId]) });
    const proof = await call(t.url, `/disputes/proof/${JSON.parse(created.text).id}`, { key: account.keys.secret });
    expect(JSON.parse(proof.text).scans).toEqual([expect.objectContaining({ scanId: formId, groundTruth: "valid" })]);
  });

  test("an invalid scanned submission still creates a scan", async () => {
    const { formId, responseCode } = await submitCard(t.url, account.keys.shareable, { cvv: "1" }, { scanned: true });
    expect(responseCode).toBe("882");
    expect(t.sb.state.scans.has(formId)).toBe(true);
  });

  test("a typed (not scanned) submission creates no scan", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable, {}, { scanned: false });
    expect(t.sb.state.scans.has(formId)).toBe(false);
    expect((await control(t.url, `/scans/${formId}/label`, { groundTruth: "valid" })).status).toBe(404);
  });
});

describe("bad shapes: 400 naming the field", () => {
  const card = { number: "4111111111111111", cvv: "123", expiry: FUTURE_EXPIRY };
  test.each([
    ["key missing", { card }, /key/],
    ["key not a string", { key: 42, card }, /key/],
    ["card missing", { key: "K" }, /card/],
    ["card a string", { key: "K", card: "4111111111111111" }, /card/],
    ["card.number a number", { key: "K", card: { ...card, number: 4111111111111111 } }, /card\.number/],
    ["card.cvv missing", { key: "K", card: { number: card.number, expiry: card.expiry } }, /card\.cvv/],
    ["card.expiry an object", { key: "K", card: { ...card, expiry: { month: 12 } } }, /card\.expiry/],
    ["config an array", { key: "K", card, config: [] }, /config/],
    ["config.customerId over 50 characters", { key: "K", card, config: { customerId: "c".repeat(51) } }, /config\.customerId.*50/],
    ["config.id over 25 characters", { key: "K", card, config: { id: "i".repeat(26) } }, /config\.id.*25/],
    ["config.reportGroup a number", { key: "K", card, config: { reportGroup: 7 } }, /config\.reportGroup/],
    ["scanned a string", { key: "K", card, scanned: "yes" }, /scanned/],
    ["formId not a UUIDv4", { key: "K", card, formId: "123" }, /formId/],
  ])("%s", async (_what, body, message) => {
    /** @type {Record<string, unknown>} */
    const payload = { ...body };
    if (payload.key === "K") payload.key = account.keys.shareable;
    const res = await postForm(t.url, payload);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  test("config limits are inclusive: 50 and 25 characters are fine", async () => {
    const body = await submitCard(t.url, account.keys.shareable, {}, { config: { customerId: "c".repeat(50), id: "i".repeat(25), reportGroup: "r".repeat(500) } });
    expect(body.responseCode).toBe("870");
  });

  test("malformed JSON", async () => {
    const res = await call(t.url, "/api/v1/forms", { method: "POST", body: "{nope" });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: "Malformed JSON body" });
  });

  test.each([["[]"], ['"text"'], ["null"], ["12"]])("a JSON body that is not an object: %s", async (raw) => {
    const res = await call(t.url, "/api/v1/forms", { method: "POST", body: raw });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatch(/JSON object/);
  });
});

describe("registered domains", () => {
  const card = { number: "4111111111111111", cvv: "123", expiry: FUTURE_EXPIRY };

  test("localhost on any port is allowed for accounts created without domains", async () => {
    for (const origin of ["http://localhost:3000", "http://localhost:9999", "http://127.0.0.1:8000", "https://localhost"]) {
      const res = await postForm(t.url, { key: account.keys.shareable, card }, { origin });
      expect(res.status).toBe(200);
    }
  });

  test("an Origin whose host is not registered is refused with 403", async () => {
    const res = await postForm(t.url, { key: account.keys.shareable, card }, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/evil\.example.*not a registered domain/);
  });

  test("a request without Origin is refused with 403", async () => {
    const res = await postForm(t.url, { key: account.keys.shareable, card }, { origin: null });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatch(/Origin/);
  });

  test("exact hosts, ports and *. wildcards", async () => {
    const shop = await createAccount(t.url, { domains: ["shop.example", "*.brand.example", "pay.example:8443"] });
    /** @type {[string, number][]} */
    const cases = [
      ["https://shop.example", 200],
      ["http://shop.example:8080", 200],
      ["https://www.shop.example", 403],
      ["https://eu.brand.example", 200],
      ["https://brand.example", 403],
      ["https://pay.example:8443", 200],
      ["https://pay.example", 403],
      ["http://localhost:3000", 403],
    ];
    for (const [origin, status] of cases) {
      const res = await postForm(t.url, { key: shop.keys.shareable, card }, { origin });
      expect([origin, res.status]).toEqual([origin, status]);
    }
  });

  test("from the sandbox's own frame, the page origin comes from the body", async () => {
    const own = new URL(t.url).origin;
    const ok = await postForm(t.url, { key: account.keys.shareable, card, origin: ORIGIN }, { origin: own });
    expect(ok.status).toBe(200);
    const stored = t.sb.state.forms.get(ok.body.formId);
    expect(stored?.origin).toBe(ORIGIN);

    const missing = await postForm(t.url, { key: account.keys.shareable, card }, { origin: own });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/origin/);

    const foreign = await postForm(t.url, { key: account.keys.shareable, card, origin: "https://evil.example" }, { origin: own });
    expect(foreign.status).toBe(403);
  });
});

describe("CORS on the form API", () => {
  test("responses carry Access-Control-Allow-Origin for the calling origin, errors included", async () => {
    const ok = await submitCardRaw({ key: account.keys.shareable });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(ok.headers.get("vary")).toMatch(/Origin/);
    const bad = await submitCardRaw({ key: "pk_unknown" });
    expect(bad.status).toBe(403);
    expect(bad.headers.get("access-control-allow-origin")).toBe(ORIGIN);
  });

  test("the preflight is answered", async () => {
    const res = await fetch(`${t.url}/api/v1/forms`, {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(res.headers.get("access-control-allow-methods")).toBe("POST");
    expect(res.headers.get("access-control-allow-headers")).toMatch(/Content-Type/i);
  });

  test("server-to-server endpoints have no CORS headers and no preflight", async () => {
    const preflight = await fetch(`${t.url}/api/v1/worldpay/form/${crypto.randomUUID()}`, {
      method: "OPTIONS",
      headers: { Origin: ORIGIN, "Access-Control-Request-Method": "GET" },
    });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const get = await fetch(`${t.url}/disputes/proof/${crypto.randomUUID()}`, { headers: { Origin: ORIGIN, "X-API-KEY": account.keys.secret } });
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });

  /** @param {Record<string, unknown>} body */
  function submitCardRaw(body) {
    return fetch(`${t.url}/api/v1/forms`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: ORIGIN },
      body: JSON.stringify({ card: { number: "4111111111111111", cvv: "123", expiry: FUTURE_EXPIRY }, ...body }),
    });
  }
});

describe("GET /client.js", () => {
  test("is cacheable JavaScript usable from any origin", async () => {
    const res = await fetch(`${t.url}/client.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/javascript/);
    expect(res.headers.get("cache-control")).toMatch(/public, max-age=\d+/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const etag = res.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await fetch(`${t.url}/client.js`, { headers: { "If-None-Match": /** @type {string} */ (etag) } });
    expect(again.status).toBe(304);
    const head = await fetch(`${t.url}/client.js`, { method: "HEAD" });
    expect(head.status).toBe(200);
  });

  describe("ServiceScan.Form argument checks", () => {
    /** @type {any} */
    let ServiceScan;
    beforeAll(async () => {
      const source = await (await fetch(`${t.url}/client.js`)).text();
      /** @type {any} */
      const window = { location: { origin: ORIGIN }, crypto: globalThis.crypto, addEventListener() {} };
      const created = /** @type {any[]} */ ([]);
      const document = {
        currentScript: { src: `${t.url}/client.js` },
        createElement: () => {
          const el = { style: {}, setAttribute() {}, contentWindow: { postMessage() {} } };
          created.push(el);
          return el;
        },
      };
      // Stub timers: getId() arms a 30 s result timeout that would keep jest alive.
      vm.runInNewContext(source, { window, document, URL, URLSearchParams, setTimeout: () => 0, clearTimeout: () => {}, console });
      ServiceScan = window.ServiceScan;
    });

    test.each([
      ["no argument", undefined, /expected one argument/],
      ["a missing key", { config: {} }, /key is required/],
      ["an empty key", { key: "", config: {} }, /key is required/],
      ["a missing config", { key: "pk" }, /config is required/],
      ["a callback that is not a function", { key: "pk", config: { callback: "f" } }, /callback must be a function/],
      ["customerId over 50", { key: "pk", config: { customerId: "x".repeat(51) } }, /customerId must be at most 50/],
      ["id over 25", { key: "pk", config: { id: "x".repeat(26) } }, /id must be at most 25/],
      ["a reportGroup that is not a string", { key: "pk", config: { reportGroup: 1 } }, /reportGroup must be a string/],
      ["a uiVersion that is not a number", { key: "pk", config: { uiVersion: "2" } }, /uiVersion/],
      ["showResult not a boolean", { key: "pk", config: { showResult: "no" } }, /showResult must be a boolean/],
    ])("throws a TypeError for %s", (_what, args, message) => {
      let error;
      try {
        ServiceScan.Form(args);
      } catch (e) {
        error = e;
      }
      expect(error).toBeDefined();
      expect(/** @type {Error} */ (error).name).toBe("TypeError");
      expect(/** @type {Error} */ (error).message).toMatch(message);
    });

    test("attach needs an element, getId needs attach, and attach renders a titled iframe from the sandbox", () => {
      const form = ServiceScan.Form({ key: "pk_x", config: { uiVersion: 2, showExplanation: false, showResult: false } });
      expect(() => form.getId()).toThrow(/attach/);
      expect(() => form.attach(null)).toThrow(/needs an HTML element/);
      /** @type {any[]} */
      const children = [];
      form.attach({ nodeType: 1, appendChild: (/** @type {any} */ c) => children.push(c) });
      expect(children).toHaveLength(1);
      expect(children[0].title).toBe("Secure card form");
      const src = new URL(children[0].src);
      expect(src.origin).toBe(new URL(t.url).origin);
      expect(src.pathname).toBe("/form/frame");
      expect(src.searchParams.get("key")).toBe("pk_x");
      expect(src.searchParams.get("origin")).toBe(ORIGIN);
      expect(form.getId()).toMatch(UUID_V4);
      expect(() => form.attach({ nodeType: 1, appendChild() {} })).toThrow(/already attached/);
    });
  });
});

describe("GET /form/frame", () => {
  const frame = (/** @type {Record<string, string>} */ params) => fetch(`${t.url}/form/frame?${new URLSearchParams(params)}`);

  test("renders an accessible card form framable only by the registered parent origin", async () => {
    const res = await frame({ key: account.keys.shareable, origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const policy = /** @type {string} */ (res.headers.get("content-security-policy"));
    expect(policy).toContain(`frame-ancestors ${ORIGIN}`);
    expect(policy).toContain("default-src 'none'");
    const html = await res.text();
    for (const attribute of ['autocomplete="cc-number"', 'autocomplete="cc-exp"', 'autocomplete="cc-csc"', 'inputmode="numeric"', 'role="alert"', 'aria-live="polite"']) {
      expect(html).toContain(attribute);
    }
    expect(html).toMatch(/<label for="cc-number">/);
    expect(html).toMatch(/<label for="cc-exp">/);
    expect(html).toMatch(/<label for="cc-csc">/);
    expect(html).toMatch(/<button type="button" id="scan">Scan card<\/button>/);
    expect(html).not.toMatch(/https?:\/\/(?!localhost)/); // no external assets
  });

  test.each([
    ["a missing key", () => ({ origin: ORIGIN }), 400, /key/],
    ["a missing origin", () => ({ key: account.keys.shareable }), 400, /origin/],
    ["an origin that is not an origin", () => ({ key: account.keys.shareable, origin: "http://localhost:3000/path" }), 400, /origin/],
    ["an unknown key", () => ({ key: "pk_nope", origin: ORIGIN }), 403, /Invalid API key provided/],
    ["a payment token key", () => ({ key: account.keys.paymentToken, origin: ORIGIN }), 403, /Key has invalid permissions/],
    ["an unregistered origin", () => ({ key: account.keys.shareable, origin: "https://evil.example" }), 403, /not a registered domain/],
  ])("shows an error page for %s", async (_what, params, status, message) => {
    const res = await frame(params());
    expect(res.status).toBe(status);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toMatch(message);
    expect(html).toContain('role="alert"');
    expect(html).not.toContain('id="cc-number"');
  });

  test("the keyLookup fault refuses the key here too", async () => {
    await control(t.url, "/faults", { keyLookup: "fail" });
    try {
      const res = await frame({ key: account.keys.shareable, origin: ORIGIN });
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/Invalid API key provided/);
    } finally {
      await control(t.url, "/faults", undefined, "DELETE");
    }
  });

  test("escapes what it echoes", async () => {
    const res = await frame({ key: account.keys.shareable, origin: "https://<script>.example" });
    expect(await res.text()).not.toContain("<script>.example");
  });
});
