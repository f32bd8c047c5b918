// @ts-check
"use strict";

const { useSandbox, control, createAccount, postForm, submitCard, exchange, call, FUTURE_EXPIRY } = require("./helpers");

const t = useSandbox();

/** @type {Awaited<ReturnType<typeof createAccount>>} */
let account;
/** @type {string} */
let formId;
/** @type {string} */
let proofId;
/** @type {string} */
let scanId;

beforeAll(async () => {
  account = await createAccount(t.url);
  ({ formId } = await submitCard(t.url, account.keys.shareable));
  scanId = (await control(t.url, "/scans", { accountId: account.accountId })).body.scanId;
  await control(t.url, `/scans/${scanId}/label`, { groundTruth: "valid" });
  const created = await call(t.url, "/disputes/proofRequest", { method: "PUT", key: account.keys.secret, body: JSON.stringify([scanId]) });
  proofId = JSON.parse(created.text).id;
});

/**
 * The four `X-API-KEY` operations, each as a function of the key.
 * @type {[string, string, (key: string | undefined) => Promise<{ status: number, text: string, headers: Headers }>][]}
 */
const operations = [
  ["token exchange", "token:exchange", (key) => exchange(t.url, formId, key)],
  [
    "create proof request",
    "disputes:write",
    (key) => call(t.url, "/disputes/proofRequest", { method: "PUT", key, body: JSON.stringify([scanId]) }),
  ],
  ["check proof request", "disputes:read", (key) => call(t.url, `/disputes/proof/${proofId}`, { key })],
  ["retrieve image", "images:read", (key) => call(t.url, `/disputes/image/${scanId}.jpg`, { key })],
];

describe.each(operations)("%s", (_name, permission, run) => {
  test("401 plain text when X-API-KEY is missing", async () => {
    const res = await run(undefined);
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.text).toBe("An API key is required for authentication");
  });

  test("401 when X-API-KEY is empty", async () => {
    const res = await run("");
    expect(res.status).toBe(401);
    expect(res.text).toBe("An API key is required for authentication");
  });

  test("403 plain text for an unknown key", async () => {
    const res = await run("sk_test_does_not_exist");
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.text).toBe("Invalid API key provided");
  });

  test("403 plain text when the key lookup fails (keyLookup fault), even for a good key", async () => {
    await control(t.url, "/faults", { keyLookup: "fail" });
    try {
      const good = permission === "token:exchange" ? account.keys.paymentToken : account.keys.secret;
      const res = await run(good);
      expect(res.status).toBe(403);
      expect(res.text).toBe("Invalid API key provided");
    } finally {
      await control(t.url, "/faults", undefined, "DELETE");
    }
  });

  test("only the key kind that owns the permission may call it", async () => {
    /** @type {Record<string, string>} */
    const owner = { "token:exchange": "paymentToken", "disputes:write": "secret", "disputes:read": "secret", "images:read": "secret" };
    for (const kind of /** @type {const} */ (["shareable", "paymentToken", "secret"])) {
      const res = await run(account.keys[kind]);
      if (kind === owner[permission]) {
        expect(res.status).toBe(200);
      } else {
        expect(res.status).toBe(403);
        expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
        expect(res.text).toBe("Key has invalid permissions");
      }
    }
  });

  test("a key with permissions: [] exists but may do nothing", async () => {
    for (const kind of ["shareable", "paymentToken", "secret"]) {
      const created = await control(t.url, `/accounts/${account.accountId}/keys`, { kind, permissions: [] });
      expect(created.status).toBe(201);
      const res = await run(created.body.key);
      expect(res.status).toBe(403);
      expect(res.text).toBe("Key has invalid permissions");
    }
  });

  test("a key granted exactly this permission may call it", async () => {
    const kind = permission === "token:exchange" ? "paymentToken" : "secret";
    const created = await control(t.url, `/accounts/${account.accountId}/keys`, { kind, permissions: [permission] });
    const res = await run(created.body.key);
    expect(res.status).toBe(200);
  });
});

describe("form submission key (JSON errors, the key travels in the body)", () => {
  const card = { number: "4111111111111111", cvv: "123", expiry: FUTURE_EXPIRY };

  test("the shareable key may submit", async () => {
    const res = await postForm(t.url, { key: account.keys.shareable, card });
    expect(res.status).toBe(200);
    expect(res.body.responseCode).toBe("870");
  });

  test.each([["paymentToken"], ["secret"]])("a %s key may not submit forms", async (kind) => {
    const res = await postForm(t.url, { key: account.keys[/** @type {"paymentToken" | "secret"} */ (kind)], card });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Key has invalid permissions" });
  });

  test("an unknown key is refused", async () => {
    const res = await postForm(t.url, { key: "pk_test_nope", card });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Invalid API key provided" });
  });

  test("a shareable key with permissions: [] is refused", async () => {
    const created = await control(t.url, `/accounts/${account.accountId}/keys`, { kind: "shareable", permissions: [] });
    const res = await postForm(t.url, { key: created.body.key, card });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Key has invalid permissions" });
  });

  test("the key lookup fault refuses every key", async () => {
    await control(t.url, "/faults", { keyLookup: "fail" });
    try {
      const res = await postForm(t.url, { key: account.keys.shareable, card });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: "Invalid API key provided" });
    } finally {
      await control(t.url, "/faults", undefined, "DELETE");
    }
  });

  test("the key is checked before the rest of the body is validated", async () => {
    const res = await postForm(t.url, { key: account.keys.secret, card: "not an object" });
    expect(res.status).toBe(403);
  });
});

describe("authentication happens before body validation", () => {
  test("no key and an invalid body: 401", async () => {
    const res = await call(t.url, "/disputes/proofRequest", { method: "PUT", body: "{not json" });
    expect(res.status).toBe(401);
  });

  test("a wrong-kind key and an invalid body: 403", async () => {
    const res = await call(t.url, "/disputes/proofRequest", { method: "PUT", key: account.keys.paymentToken, body: "{not json" });
    expect(res.status).toBe(403);
    expect(res.text).toBe("Key has invalid permissions");
  });

  test("no key on an unknown form and processor: 401, not 404", async () => {
    const res = await exchange(t.url, "not-a-form", undefined, "nope");
    expect(res.status).toBe(401);
  });
});

describe("accounts are isolated", () => {
  test("another account's secret key sees neither its proof requests nor its images", async () => {
    const other = await createAccount(t.url);
    const proof = await call(t.url, `/disputes/proof/${proofId}`, { key: other.keys.secret });
    expect(proof.status).toBe(403);
    expect(JSON.parse(proof.text)).toEqual({ error: "Forbidden" });
    const image = await call(t.url, `/disputes/image/${scanId}.jpg`, { key: other.keys.secret });
    expect(image.status).toBe(404);
    expect(JSON.parse(image.text)).toEqual({ error: "Image not found" });
    const token = await exchange(t.url, formId, other.keys.paymentToken);
    expect(token.status).toBe(404);
    expect(JSON.parse(token.text)).toEqual({ error: "Form not found" });
  });
});
