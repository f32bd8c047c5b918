// @ts-check
"use strict";

const { useSandbox, control, createAccount, submitCard, exchange, call, postCnp, cnpRequest, postForm, ORIGIN, UUID_V4, FUTURE_EXPIRY } = require("./helpers");

const t = useSandbox();

describe("GET /__sandbox/health", () => {
  test("200 { ok: true }", async () => {
    expect(await control(t.url, "/health")).toMatchObject({ status: 200, body: { ok: true } });
  });
});

describe("POST /__sandbox/accounts", () => {
  test("creates an account with three keys, generated processor credentials and the localhost domains", async () => {
    const res = await control(t.url, "/accounts", {});
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      accountId: expect.stringMatching(UUID_V4),
      keys: {
        shareable: expect.stringMatching(/^pk_test_/),
        paymentToken: expect.stringMatching(/^ptk_test_/),
        secret: expect.stringMatching(/^sk_test_/),
      },
      processor: { merchantId: expect.any(String), user: expect.any(String), password: expect.any(String) },
      domains: ["localhost", "127.0.0.1"],
      // Every account also has its own Adyen merchant account (test/processors/adyen covers it).
      adyen: expect.objectContaining({ accountId: res.body.accountId, merchantAccount: expect.any(String), apiKey: expect.any(String) }),
    });
    const again = await control(t.url, "/accounts", {});
    expect(again.body.keys.secret).not.toBe(res.body.keys.secret);
    expect(again.body.processor.merchantId).not.toBe(res.body.processor.merchantId);
  });

  test("an empty body is accepted", async () => {
    const res = await fetch(`${t.url}/__sandbox/accounts`, { method: "POST" });
    expect(res.status).toBe(201);
  });

  test("takes domains and processor credentials, which then work at the processor", async () => {
    const processor = { merchantId: "4400001", user: "acme", password: "s3cret" };
    const res = await control(t.url, "/accounts", { domains: ["Shop.Example", "localhost:4000"], processor });
    expect(res.status).toBe(201);
    expect(res.body.processor).toEqual(processor);
    expect(res.body.domains).toEqual(["shop.example", "localhost:4000"]);
    const cnp = await postCnp(t.url, cnpRequest(processor, '<registerTokenRequest id="a" reportGroup="rg"><accountNumber>4111111111111111</accountNumber></registerTokenRequest>'));
    expect(cnp.envelope.registerTokenResponse.response).toBe("801");
    expect((await postForm(t.url, { key: res.body.keys.shareable, card: { number: "4111111111111111", cvv: "123", expiry: FUTURE_EXPIRY } }, { origin: "http://localhost:4000" })).status).toBe(200);
    expect((await postForm(t.url, { key: res.body.keys.shareable, card: { number: "4111111111111111", cvv: "123", expiry: FUTURE_EXPIRY } }, { origin: "http://localhost:3000" })).status).toBe(403);
  });

  test("409 for a merchantId already used with other credentials; the same credentials may be shared", async () => {
    const processor = { merchantId: "4400002", user: "u", password: "p" };
    expect((await control(t.url, "/accounts", { processor })).status).toBe(201);
    expect((await control(t.url, "/accounts", { processor })).status).toBe(201);
    const clash = await control(t.url, "/accounts", { processor: { ...processor, password: "other" } });
    expect(clash.status).toBe(409);
    expect(clash.body.error).toMatch(/merchantId/);
  });

  test.each([
    ["domains not an array", { domains: "localhost" }, /domains/],
    ["a domain with a scheme", { domains: ["https://shop.example"] }, /domains\[0\]/],
    ["a domain with a path", { domains: ["shop.example/x"] }, /domains\[0\]/],
    ["a non-string domain", { domains: [42] }, /domains\[0\]/],
    ["processor not an object", { processor: "x" }, /processor/],
    ["processor without password", { processor: { merchantId: "4400003", user: "u" } }, /processor\.password/],
    ["a merchantId that is not a number (the Chargeback API's xs:long)", { processor: { merchantId: "acme-1", user: "u", password: "p" } }, /processor\.merchantId/],
    ["an unknown field", { name: "x" }, /Unknown field: name/],
  ])("400 for %s", async (_what, body, message) => {
    const res = await control(t.url, "/accounts", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  test("400 for malformed JSON and non-object bodies", async () => {
    const bad = await call(t.url, "/__sandbox/accounts", { method: "POST", body: "{oops" });
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.text)).toEqual({ error: "Malformed JSON body" });
    const array = await call(t.url, "/__sandbox/accounts", { method: "POST", body: "[]" });
    expect(array.status).toBe(400);
  });
});

describe("POST /__sandbox/accounts/<id>/keys", () => {
  test("creates keys of each kind with that kind's permissions", async () => {
    const account = await createAccount(t.url);
    const shareable = await control(t.url, `/accounts/${account.accountId}/keys`, { kind: "shareable" });
    expect(shareable).toMatchObject({ status: 201, body: { key: expect.stringMatching(/^pk_test_/), kind: "shareable", permissions: ["form:submit"] } });
    const paymentToken = await control(t.url, `/accounts/${account.accountId}/keys`, { kind: "paymentToken" });
    expect(paymentToken.body.permissions).toEqual(["token:exchange"]);
    const secret = await control(t.url, `/accounts/${account.accountId}/keys`, { kind: "secret" });
    expect(secret.body.permissions).toEqual(["disputes:write", "disputes:read", "images:read"]);
    const { formId } = await submitCard(t.url, shareable.body.key);
    expect((await exchange(t.url, formId, paymentToken.body.key)).status).toBe(200);
  });

  test("404 for an unknown account; 400 for a bad kind or permissions", async () => {
    expect((await control(t.url, "/accounts/nope/keys", { kind: "secret" })).status).toBe(404);
    const account = await createAccount(t.url);
    const badKind = await control(t.url, `/accounts/${account.accountId}/keys`, { kind: "admin" });
    expect(badKind.status).toBe(400);
    expect(badKind.body.error).toMatch(/kind/);
    const badPermission = await control(t.url, `/accounts/${account.accountId}/keys`, { kind: "secret", permissions: ["everything"] });
    expect(badPermission.status).toBe(400);
    expect(badPermission.body.error).toMatch(/permissions/);
  });
});

describe("scans, labels and images", () => {
  test("POST /__sandbox/scans creates an unlabelled scan; 400 and 404 for bad input", async () => {
    const account = await createAccount(t.url);
    const res = await control(t.url, "/scans", { accountId: account.accountId });
    expect(res).toMatchObject({ status: 201, body: { scanId: expect.stringMatching(UUID_V4) } });
    expect(t.sb.state.scans.get(res.body.scanId)?.groundTruth).toBeNull();
    expect((await control(t.url, "/scans", {})).status).toBe(400);
    expect((await control(t.url, "/scans", { accountId: "nope" })).status).toBe(404);
    expect((await control(t.url, "/scans", { accountId: account.accountId, cardNumber: "abc" })).status).toBe(400);
  });

  test("label: valid, invalid, and fraud as an alias of invalid; 400 and 404 for bad input", async () => {
    const account = await createAccount(t.url);
    const { scanId } = (await control(t.url, "/scans", { accountId: account.accountId })).body;
    expect(await control(t.url, `/scans/${scanId}/label`, { groundTruth: "valid" })).toMatchObject({ status: 200, body: { scanId, groundTruth: "valid" } });
    expect((await control(t.url, `/scans/${scanId}/label`, { groundTruth: "fraud" })).body.groundTruth).toBe("invalid");
    expect((await control(t.url, `/scans/${scanId}/label`, { groundTruth: "maybe" })).status).toBe(400);
    expect((await control(t.url, `/scans/${crypto.randomUUID()}/label`, { groundTruth: "valid" })).status).toBe(404);
  });

  test("DELETE image: 204, the scan stays labelled; 404 for an unknown scan", async () => {
    const account = await createAccount(t.url);
    const { scanId } = (await control(t.url, "/scans", { accountId: account.accountId })).body;
    await control(t.url, `/scans/${scanId}/label`, { groundTruth: "valid" });
    const res = await call(t.url, `/__sandbox/scans/${scanId}/image`, { method: "DELETE" });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(t.sb.state.scans.get(scanId)).toMatchObject({ groundTruth: "valid", imageDeleted: true });
    expect((await call(t.url, `/__sandbox/scans/${crypto.randomUUID()}/image`, { method: "DELETE" })).status).toBe(404);
  });
});

describe("proof requests", () => {
  test("list with count, filtered by account; complete one; 404 for an unknown one", async () => {
    const a = await createAccount(t.url);
    const b = await createAccount(t.url);
    const { scanId } = (await control(t.url, "/scans", { accountId: a.accountId })).body;
    for (const key of [a.keys.secret, a.keys.secret, b.keys.secret]) {
      await call(t.url, "/disputes/proofRequest", { method: "PUT", key, body: JSON.stringify([scanId]) });
    }
    const listA = await control(t.url, `/proof-requests?accountId=${a.accountId}`);
    expect(listA.body.count).toBe(2);
    expect(listA.body.items).toHaveLength(2);
    expect(listA.body.items[0]).toEqual({ id: expect.stringMatching(UUID_V4), accountId: a.accountId, scanIds: [scanId], status: "pending", createdAt: expect.any(String), completedAt: null });
    const all = await control(t.url, "/proof-requests");
    expect(all.body.count).toBeGreaterThanOrEqual(3);

    const done = await control(t.url, `/proof-requests/${listA.body.items[0].id}/complete`, {});
    expect(done.body).toEqual({ id: listA.body.items[0].id, status: "complete" });
    // Completing labelled the scan, so the other proof request waiting on it completed as well.
    const after = await control(t.url, `/proof-requests?accountId=${a.accountId}`);
    expect(after.body.items.map((/** @type {any} */ p) => p.status)).toEqual(["complete", "complete"]);
    expect((await control(t.url, `/proof-requests/${listA.body.items[0].id}/complete`, {})).status).toBe(200);
    expect((await control(t.url, `/proof-requests/${crypto.randomUUID()}/complete`, {})).status).toBe(404);
  });
});

describe("forms and processor", () => {
  test("POST /__sandbox/forms/<id>/expire; 404 for an unknown form", async () => {
    const { formId } = await submitCard(t.url, t.sb.demo.keys.shareable);
    expect(await control(t.url, `/forms/${formId}/expire`, {})).toMatchObject({ status: 200, body: { formId, expired: true } });
    expect((await exchange(t.url, formId, t.sb.demo.keys.paymentToken)).status).toBe(410);
    expect((await control(t.url, `/forms/${crypto.randomUUID()}/expire`, {})).status).toBe(404);
  });

  test("GET /__sandbox/processor/transactions lists and filters", async () => {
    const { formId } = await submitCard(t.url, t.sb.demo.keys.shareable);
    await exchange(t.url, formId, t.sb.demo.keys.paymentToken);
    const all = await control(t.url, "/processor/transactions");
    expect(all.body.count).toBe(all.body.items.length);
    const registrations = await control(t.url, "/processor/transactions?type=registerTokenRequest");
    expect(registrations.body.count).toBeGreaterThan(0);
    expect(registrations.body.items.every((/** @type {any} */ i) => i.type === "registerTokenRequest")).toBe(true);
    expect((await control(t.url, "/processor/transactions?type=sale")).body).toEqual({ items: [], count: 0 });
  });
});

describe("stats", () => {
  test("counts requests per service route; reset-stats zeroes them", async () => {
    expect((await call(t.url, "/__sandbox/reset-stats", { method: "POST" })).status).toBe(204);
    expect((await control(t.url, "/stats")).body).toEqual({
      requests: {
        "forms.create": 0,
        "token.exchange": 0,
        "cnp.online": 0,
        "disputes.proofRequest.create": 0,
        "disputes.proof.get": 0,
        "disputes.image.get": 0,
        "chargebacks.retrieve": 0,
        "chargebacks.update": 0,
        "chargebacks.document.upload": 0,
        "chargebacks.document.retrieve": 0,
        "chargebacks.document.replace": 0,
        "chargebacks.document.delete": 0,
        "chargebacks.document.list": 0,
        "adyen.payments": 0,
        "adyen.payments.captures": 0,
        "adyen.payments.refunds": 0,
        "adyen.payments.cancels": 0,
        "adyen.payments.reversals": 0,
        "adyen.cancels": 0,
        "adyen.disputes.retrieveApplicableDefenseReasons": 0,
        "adyen.disputes.supplyDefenseDocument": 0,
        "adyen.disputes.deleteDisputeDefenseDocument": 0,
        "adyen.disputes.defendDispute": 0,
        "adyen.disputes.acceptDispute": 0,
      },
      total: 0,
      durationsMs: {},
    });
    // One payment as the plugin makes it: the browser submits, the backend exchanges and authorizes.
    const { formId } = await submitCard(t.url, t.sb.demo.keys.shareable);
    await call(t.url, "/__sandbox/reset-stats", { method: "POST" });
    const { text } = await exchange(t.url, formId, t.sb.demo.keys.paymentToken);
    const token = JSON.parse(text).token;
    await postCnp(t.url, cnpRequest(t.sb.demo.processor, `<authorization id="s1" reportGroup="rg"><orderId>o</orderId><amount>100</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token></authorization>`));
    const stats = (await control(t.url, "/stats")).body;
    expect(stats.total).toBe(2);
    expect(stats.requests["token.exchange"]).toBe(1);
    expect(stats.requests["cnp.online"]).toBe(1);
    // Each answered request's own time, as the sandbox saw it (bench:checkout subtracts these).
    expect(Object.keys(stats.durationsMs).sort()).toEqual(["cnp.online", "token.exchange"]);
    for (const route of ["cnp.online", "token.exchange"]) {
      expect(stats.durationsMs[route]).toHaveLength(1);
      expect(stats.durationsMs[route][0]).toBeGreaterThan(0);
      expect(stats.durationsMs[route][0]).toBeLessThan(5000);
    }

    await call(t.url, "/disputes/proofRequest", { method: "PUT", key: t.sb.demo.keys.secret, body: JSON.stringify([formId]) });
    await call(t.url, `/disputes/proof/${crypto.randomUUID()}`, { key: t.sb.demo.keys.secret });
    await call(t.url, `/disputes/image/${formId}.jpg`, { key: t.sb.demo.keys.secret });
    await call(t.url, "/client.js");
    const more = (await control(t.url, "/stats")).body.requests;
    expect(more).toMatchObject({ "disputes.proofRequest.create": 1, "disputes.proof.get": 1, "disputes.image.get": 1 });
    expect((await control(t.url, "/stats")).body.total).toBe(5);
  });
});

describe("settings", () => {
  test("GET and POST, validated", async () => {
    expect((await control(t.url, "/settings")).body).toEqual({ fraudLabel: "invalid", proofDelayMs: null, formTtlMs: 1800000 });
    expect((await control(t.url, "/settings", { formTtlMs: 60000 })).body.formTtlMs).toBe(60000);
    expect((await control(t.url, "/settings", { fraudLabel: "maybe" })).status).toBe(400);
    expect((await control(t.url, "/settings", { proofDelayMs: -1 })).status).toBe(400);
    expect((await control(t.url, "/settings", { formTtlMs: 0 })).status).toBe(400);
    expect((await control(t.url, "/settings", { color: "red" })).status).toBe(400);
    await control(t.url, "/settings", { formTtlMs: 1800000 });
  });
});

describe("faults", () => {
  afterEach(async () => {
    await call(t.url, "/__sandbox/faults", { method: "DELETE" });
  });

  test("GET, POST merges, null clears one, DELETE clears all", async () => {
    expect((await control(t.url, "/faults")).body).toEqual({});
    expect((await control(t.url, "/faults", { latencyMs: 5 })).body).toEqual({ latencyMs: 5 });
    expect((await control(t.url, "/faults", { keyLookup: "fail" })).body).toEqual({ latencyMs: 5, keyLookup: "fail" });
    expect((await control(t.url, "/faults", { latencyMs: null })).body).toEqual({ keyLookup: "fail" });
    const cleared = await call(t.url, "/__sandbox/faults", { method: "DELETE" });
    expect(cleared.status).toBe(204);
    expect((await control(t.url, "/faults")).body).toEqual({});
  });

  test.each([
    [{ keyLookup: "yes" }, /keyLookup/],
    [{ ownershipCheck: true }, /ownershipCheck/],
    [{ latencyMs: -1 }, /latencyMs/],
    [{ latencyMs: "10" }, /latencyMs/],
    [{ errorRate: 1.5 }, /errorRate/],
    [{ resetRate: -0.1 }, /resetRate/],
    [{ chaos: true }, /Unknown field/],
    [{ dropResponse: { count: 0 } }, /dropResponse.count/],
    [{ dropResponse: { count: 1.5 } }, /dropResponse.count must be a whole number/],
    [{ dropResponse: { route: "control", count: 1 } }, /dropResponse.route/],
    [{ dropResponse: 3 }, /dropResponse/],
  ])("400 for %j, and nothing is applied", async (body, message) => {
    const res = await control(t.url, "/faults", { errorRate: 0.5, ...body });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
    expect((await control(t.url, "/faults")).body).toEqual({});
  });

  test("latencyMs delays service endpoints, not the control API", async () => {
    // A delay long enough that a busy machine's own stalls (GC, the other suite on the same cores)
    // cannot be mistaken for it, either way.
    await control(t.url, "/faults", { latencyMs: 2000 });
    let started = Date.now();
    await call(t.url, `/disputes/proof/${crypto.randomUUID()}`, { key: t.sb.demo.keys.secret });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1990);
    started = Date.now();
    await control(t.url, "/health");
    await call(t.url, "/client.js");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  test("errorRate 1 answers 503 on every service endpoint, never on the control API, client.js or the frame", async () => {
    await control(t.url, "/faults", { errorRate: 1 });
    const demo = t.sb.demo;
    const responses = [
      await call(t.url, "/api/v1/forms", { method: "POST", body: "{}" }),
      await call(t.url, `/api/v1/worldpay/form/${crypto.randomUUID()}`, { key: demo.keys.paymentToken }),
      await call(t.url, "/cnp/online", { method: "POST", body: "<x/>", contentType: "text/xml" }),
      await call(t.url, "/disputes/proofRequest", { method: "PUT", key: demo.keys.secret, body: "[]" }),
      await call(t.url, `/disputes/proof/${crypto.randomUUID()}`, { key: demo.keys.secret }),
      await call(t.url, `/disputes/image/${crypto.randomUUID()}.jpg`, { key: demo.keys.secret }),
    ];
    for (const res of responses) {
      expect(res.status).toBe(503);
      expect(JSON.parse(res.text)).toEqual({ error: "Service unavailable" });
    }
    expect((await control(t.url, "/health")).status).toBe(200);
    expect((await call(t.url, "/client.js")).status).toBe(200);
    expect((await call(t.url, `/form/frame?key=${demo.keys.shareable}&origin=${encodeURIComponent(ORIGIN)}`)).status).toBe(200);
  });

  test("resetRate 1 drops service connections without an answer, never the control API's", async () => {
    await control(t.url, "/faults", { resetRate: 1 });
    await expect(fetch(`${t.url}/disputes/proof/${crypto.randomUUID()}`, { headers: { "X-API-KEY": t.sb.demo.keys.secret } })).rejects.toThrow();
    await expect(fetch(`${t.url}/cnp/online`, { method: "POST", body: "<x/>" })).rejects.toThrow();
    expect((await control(t.url, "/health")).status).toBe(200);
  });

  test("dropResponse processes the request, then loses its answer, count times on its route only", async () => {
    const demo = t.sb.demo;
    const proof = () =>
      call(t.url, "/disputes/proofRequest", { method: "PUT", key: demo.keys.secret, body: JSON.stringify([crypto.randomUUID()]) });
    await control(t.url, "/faults", { dropResponse: { route: "disputes.proofRequest.create", count: 1 } });
    const before = (await control(t.url, "/proof-requests")).body.count;
    // Another route is untouched.
    expect((await call(t.url, `/disputes/proof/${crypto.randomUUID()}`, { key: demo.keys.secret })).status).toBe(404);
    await expect(proof()).rejects.toThrow();
    // The work was done although the caller saw no answer.
    expect((await control(t.url, "/proof-requests")).body.count).toBe(before + 1);
    expect((await control(t.url, "/faults")).body).toEqual({});
    expect((await proof()).status).toBe(200);
  });

  test("errorRate 0.5 fails some requests and not others", async () => {
    await control(t.url, "/faults", { errorRate: 0.5 });
    const statuses = new Set();
    for (let i = 0; i < 60; i++) {
      statuses.add((await call(t.url, `/disputes/proof/${crypto.randomUUID()}`, { key: t.sb.demo.keys.secret })).status);
    }
    expect([...statuses].sort()).toEqual([404, 503]);
  });
});

describe("control routes", () => {
  test("405 with Allow for a wrong method", async () => {
    const res = await call(t.url, "/__sandbox/accounts");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    const faults = await call(t.url, "/__sandbox/faults", { method: "PUT", body: "{}" });
    expect(faults.status).toBe(405);
    expect(faults.headers.get("allow")).toBe("GET, HEAD, POST, DELETE");
  });

  test("404 for an unknown control route", async () => {
    const res = await call(t.url, "/__sandbox/nope");
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ error: "Not found" });
  });
});
