// @ts-check
"use strict";

const { XMLParser } = require("fast-xml-parser");
const { useSandbox, control, createAccount, submitCard, exchange, postCnp, cnpRequest } = require("./helpers");
const { luhnValid } = require("../dist/util");

const t = useSandbox();
/** @type {Awaited<ReturnType<typeof createAccount>>} */
let account;

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@_", parseTagValue: false });

beforeAll(async () => {
  account = await createAccount(t.url);
});

/**
 * @param {string} formId
 * @param {string} [key]
 */
async function tokenFor(formId, key = account.keys.paymentToken) {
  const res = await exchange(t.url, formId, key);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = JSON.parse(res.text);
  expect(Object.keys(body)).toEqual(["token"]);
  return /** @type {string} */ (body.token);
}

/** @param {string} orderId */
async function registrationFor(orderId) {
  const list = await control(t.url, `/processor/transactions?type=registerTokenRequest&merchantId=${account.processor.merchantId}`);
  return list.body.items.filter((/** @type {any} */ i) => i.orderId === orderId);
}

describe("successful exchange", () => {
  test("the certification card gives the certification token", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable, { number: "4457119922390123" });
    expect(await tokenFor(formId)).toBe("1111000276870123");
  });

  test("tokens look like Worldpay tokens: 16 digits, last four kept, failing Luhn", async () => {
    for (const number of ["4111111111111111", "5555555555554444", "378282246310005", "6011111111111117"]) {
      const { formId } = await submitCard(t.url, account.keys.shareable, { number, cvv: number.startsWith("3") ? "1234" : "123" });
      const token = await tokenFor(formId);
      expect(token).toMatch(/^\d{16}$/);
      expect(token.slice(-4)).toBe(number.slice(-4));
      expect(luhnValid(token)).toBe(false);
    }
  });

  test("the same card gives the same token; another merchant gets another token", async () => {
    const first = await submitCard(t.url, account.keys.shareable, { number: "4111 1111 1111 1111" });
    const second = await submitCard(t.url, account.keys.shareable, { number: "4111111111111111", cvv: "999" });
    const a = await tokenFor(first.formId);
    expect(await tokenFor(second.formId)).toBe(a);

    const other = await createAccount(t.url);
    const third = await submitCard(t.url, other.keys.shareable, { number: "4111111111111111" });
    const b = await tokenFor(third.formId, other.keys.paymentToken);
    expect(b).not.toBe(a);
    expect(b.slice(-4)).toBe("1111");
  });

  test("exchanging the same form twice returns the same token without tokenizing again", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable, { number: "5555555555554444" });
    const first = await tokenFor(formId);
    expect(await tokenFor(formId)).toBe(first);
    const orderId = formId.replace(/-/g, "").slice(0, 25);
    expect(await registrationFor(orderId)).toHaveLength(1);
  });

  test("the token is usable at the processor with the account's credentials", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable, { number: "4111111111111111" });
    const token = await tokenFor(formId);
    const res = await postCnp(
      t.url,
      cnpRequest(
        account.processor,
        `<authorization id="use-1" reportGroup="rg"><orderId>o1</orderId><amount>500</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token></authorization>`,
      ),
    );
    expect(res.envelope.authorizationResponse.response).toBe("000");
  });
});

describe("the registerTokenRequest the sandbox sends", () => {
  test("carries id, customerId and reportGroup from the form config, and the card", async () => {
    const { formId } = await submitCard(
      t.url,
      account.keys.shareable,
      { number: "4457119922390123", cvv: "987" },
      { config: { id: "cart_123", customerId: "cus_456", reportGroup: "Web Store" } },
    );
    await tokenFor(formId);
    const [txn] = await registrationFor(formId.replace(/-/g, "").slice(0, 25));
    expect(txn).toMatchObject({ type: "registerTokenRequest", id: "cart_123", customerId: "cus_456", reportGroup: "Web Store", source: "token-exchange", merchantId: account.processor.merchantId });
    const doc = parser.parse(txn.requestXml);
    const request = doc.cnpOnlineRequest;
    expect(request["@_merchantId"]).toBe(account.processor.merchantId);
    expect(request["@_xmlns"]).toBe("http://www.vantivcnp.com/schema");
    expect(request.authentication.user).toBe(account.processor.user);
    expect(request.authentication.password).toBe("[REDACTED]");
    expect(txn.requestXml).not.toContain(account.processor.password);
    const register = request.registerTokenRequest;
    expect(register["@_id"]).toBe("cart_123");
    expect(register["@_customerId"]).toBe("cus_456");
    expect(register["@_reportGroup"]).toBe("Web Store");
    expect(register.accountNumber).toBe("4457119922390123");
    expect(register.cardValidationNum).toBe("987");
    expect(register.orderId).toBe(formId.replace(/-/g, "").slice(0, 25));
    expect(parser.parse(txn.responseXml).cnpOnlineResponse.registerTokenResponse).toMatchObject({
      "@_id": "cart_123",
      "@_customerId": "cus_456",
      "@_reportGroup": "Web Store",
      cnpToken: "1111000276870123",
      bin: "445711",
      type: "VI",
    });
  });

  test("without config: a random id of at most 25 characters, the default report group, no customerId", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable, { number: "378282246310005", cvv: "1234" });
    await tokenFor(formId);
    const [txn] = await registrationFor(formId.replace(/-/g, "").slice(0, 25));
    expect(txn.id).toMatch(/^[0-9a-f]{1,25}$/);
    expect(txn.reportGroup).toBe("Default Report Group");
    expect(txn.customerId).toBeNull();
    const register = parser.parse(txn.requestXml).cnpOnlineRequest.registerTokenRequest;
    expect(register["@_customerId"]).toBeUndefined();
  });

  test("registers 801 the first time and 802 after", async () => {
    const fresh = await createAccount(t.url);
    for (let i = 0; i < 2; i++) {
      const { formId } = await submitCard(t.url, fresh.keys.shareable, { number: "4111111111111111" });
      await tokenFor(formId, fresh.keys.paymentToken);
    }
    const list = await control(t.url, `/processor/transactions?type=registerTokenRequest&merchantId=${fresh.processor.merchantId}`);
    expect(list.body.items.map((/** @type {any} */ i) => i.response)).toEqual(["801", "802"]);
  });
});

describe("exchange errors (decided by the sandbox, JSON { error })", () => {
  test("unknown processor: 404", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable);
    const res = await exchange(t.url, formId, account.keys.paymentToken, "stripe");
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ error: "Unknown processor: stripe" });
  });

  test.each([
    ["a malformed id", "not-a-uuid"],
    ["an unknown id", "2f1c6c1e-7b1a-4c1e-9d1a-1c1e7b1a4c1e"],
  ])("%s: 404 Form not found", async (_what, formId) => {
    const res = await exchange(t.url, formId, account.keys.paymentToken);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ error: "Form not found" });
  });

  test("another account's form: 404 Form not found", async () => {
    const other = await createAccount(t.url);
    const { formId } = await submitCard(t.url, other.keys.shareable);
    const res = await exchange(t.url, formId, account.keys.paymentToken);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ error: "Form not found" });
  });

  test("a form that failed validation: 422 with its response code", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable, { number: "4111111111111112" });
    const res = await exchange(t.url, formId, account.keys.paymentToken);
    expect(res.status).toBe(422);
    expect(JSON.parse(res.text)).toEqual({ error: "Form failed validation", responseCode: "871" });
  });

  test("a form expired through the control API: 410, even after a successful exchange", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable);
    await tokenFor(formId);
    expect((await control(t.url, `/forms/${formId}/expire`, {})).status).toBe(200);
    const res = await exchange(t.url, formId, account.keys.paymentToken);
    expect(res.status).toBe(410);
    expect(JSON.parse(res.text)).toEqual({ error: "Form expired" });
  });

  test("a form older than formTtlMs: 410", async () => {
    const { formId } = await submitCard(t.url, account.keys.shareable);
    await control(t.url, "/settings", { formTtlMs: 1 });
    try {
      await new Promise((r) => setTimeout(r, 10));
      const res = await exchange(t.url, formId, account.keys.paymentToken);
      expect(res.status).toBe(410);
      expect(JSON.parse(res.text)).toEqual({ error: "Form expired" });
    } finally {
      await control(t.url, "/settings", { formTtlMs: 30 * 60 * 1000 });
    }
  });

  test("a card the processor refuses to tokenize: 402 with the processor's answer", async () => {
    const { formId, responseCode } = await submitCard(t.url, account.keys.shareable, { number: "4457119999999996" });
    expect(responseCode).toBe("870");
    const res = await exchange(t.url, formId, account.keys.paymentToken);
    expect(res.status).toBe(402);
    expect(JSON.parse(res.text)).toEqual({
      error: "Tokenization failed",
      processorResponse: "820",
      processorMessage: "Credit card number was invalid",
    });
  });
});
