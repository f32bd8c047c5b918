// @ts-check
"use strict";

const { useSandbox, control, createAccount, postCnp, cnpRequest, call } = require("../../helpers");

const t = useSandbox();
/** @type {{ merchantId: string, user: string, password: string }} */
let creds;
let seq = 0;
const nextId = () => `t${++seq}-${Date.now().toString(36)}`;
const futureExp = `12${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}`;

beforeAll(async () => {
  creds = (await createAccount(t.url)).processor;
});

/**
 * Sends one transaction and returns its response element.
 * @param {string} type
 * @param {string} inner
 * @param {{ id?: string | null, attrs?: string, creds?: typeof creds }} [options]
 */
async function txn(type, inner, options = {}) {
  const id = options.id === undefined ? nextId() : options.id;
  const idAttr = id === null ? "" : ` id="${id}"`;
  const res = await postCnp(t.url, cnpRequest(options.creds ?? creds, `<${type}${idAttr} reportGroup="rg"${options.attrs ?? ""}>${inner}</${type}>`));
  expect(res.status).toBe(200);
  expect(res.envelope["@_response"]).toBe("0");
  const el = res.envelope[`${type === "registerTokenRequest" ? "registerToken" : type}Response`];
  expect(el).toBeDefined();
  return el;
}

/** @param {string} accountNumber @param {typeof creds} [who] */
async function register(accountNumber, who) {
  return txn("registerTokenRequest", `<orderId>r1</orderId><accountNumber>${accountNumber}</accountNumber>`, { creds: who });
}

/** @param {string} number */
async function tokenOf(number) {
  const el = await register(number);
  expect(["801", "802"]).toContain(el.response);
  return /** @type {string} */ (el.cnpToken);
}

/**
 * @param {"authorization" | "sale"} type
 * @param {string} token
 * @param {number} amount
 * @param {{ id?: string, expDate?: string }} [options]
 */
function pay(type, token, amount, options = {}) {
  return txn(
    type,
    `<orderId>ord-1</orderId><amount>${amount}</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken><expDate>${options.expDate ?? futureExp}</expDate><cardValidationNum>123</cardValidationNum></token>`,
    { id: options.id },
  );
}

/**
 * @param {"capture" | "credit" | "void" | "authReversal"} type
 * @param {string} cnpTxnId
 * @param {number} [amount]
 * @param {{ id?: string }} [options]
 */
function followUp(type, cnpTxnId, amount, options = {}) {
  return txn(type, `<cnpTxnId>${cnpTxnId}</cnpTxnId>${amount === undefined ? "" : `<amount>${amount}</amount>`}`, options);
}

describe("registerTokenRequest", () => {
  test("801 then 802 with the same token, bin and type, echoing id, reportGroup and customerId (not orderId: registerTokenResponse has none)", async () => {
    const first = await txn("registerTokenRequest", "<orderId>o-7</orderId><accountNumber>5555555555554444</accountNumber><cardValidationNum>321</cardValidationNum>", {
      id: "reg-1",
      attrs: ' customerId="cust-9"',
    });
    expect(first).toMatchObject({ "@_id": "reg-1", "@_reportGroup": "rg", "@_customerId": "cust-9", response: "801", message: "Account number was successfully registered", bin: "555555", type: "MC" });
    expect(first.cnpTxnId).toMatch(/^[1-9]\d{17}$/);
    expect(first.responseTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    expect(first.orderId).toBeUndefined();
    const second = await register("5555555555554444");
    expect(second.response).toBe("802");
    expect(second.message).toBe("Account number was previously registered");
    expect(second.cnpToken).toBe(first.cnpToken);
  });

  test.each([
    ["4111111111111111", "VI"],
    ["378282246310005", "AX"],
    ["6011111111111117", "DI"],
  ])("card type of %s is %s", async (number, type) => {
    expect((await register(number)).type).toBe(type);
  });

  test("the certification card registers with 802 and 1111000276870123, even the first time", async () => {
    expect(await register("4457119922390123")).toMatchObject({ response: "802", cnpToken: "1111000276870123" });
  });

  test.each([["4457119999999999"], ["4457119999999996"], ["1234"], ["41111111111111111111"], ["4111abc"]])("820 for %s", async (number) => {
    const el = await register(number);
    expect(el.response).toBe("820");
    expect(el.message).toBe("Credit card number was invalid");
    expect(el.cnpToken).toBeUndefined();
  });
});

describe("authorization and sale", () => {
  test("an approved authorization", async () => {
    const token = await tokenOf("4111111111111111");
    const el = await pay("authorization", token, 1000, { id: "auth-ok" });
    expect(el).toMatchObject({ "@_id": "auth-ok", "@_reportGroup": "rg", orderId: "ord-1", response: "000", message: "Approved" });
    expect(el.authCode).toMatch(/^\d{6}$/);
    expect(el.cnpTxnId).toMatch(/^\d{18}$/);
    expect(el.postDate).toBeUndefined();
  });

  test("an approved sale has a postDate", async () => {
    const el = await pay("sale", await tokenOf("4111111111111111"), 250);
    expect(el.response).toBe("000");
    expect(el.postDate).toMatch(/^\d{4}-\d\d-\d\d$/);
  });

  test.each([
    ["4000000000009995", "110", "Insufficient Funds"],
    ["4000000000000002", "349", "Do Not Honor"],
    ["4000000000000069", "305", "Expired Card"],
  ])("the card behind the token decides: %s gives %s", async (number, code, message) => {
    const token = await tokenOf(number);
    for (const type of /** @type {const} */ (["authorization", "sale"])) {
      const el = await pay(type, token, 1000);
      expect(el).toMatchObject({ response: code, message });
      expect(el.authCode).toBeUndefined();
    }
  });

  test("an expDate in the past gives 305", async () => {
    const el = await pay("authorization", await tokenOf("4111111111111111"), 100, { expDate: "0120" });
    expect(el).toMatchObject({ response: "305", message: "Expired Card" });
  });

  test("the magic token 1111000100092332 and unknown tokens give 822", async () => {
    for (const token of ["1111000100092332", "1111999999999999"]) {
      expect(await pay("authorization", token, 100)).toMatchObject({ response: "822", message: "Token was not found" });
    }
  });

  test("a token is only known to the merchant that registered it", async () => {
    const token = await tokenOf("5555555555554444");
    const other = (await createAccount(t.url)).processor;
    const res = await postCnp(t.url, cnpRequest(other, `<authorization id="x" reportGroup="rg"><orderId>o</orderId><amount>1</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token></authorization>`));
    expect(res.envelope.authorizationResponse.response).toBe("822");
  });
});

describe("capture", () => {
  test("partial captures up to the authorized amount, then 111", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 1000);
    const first = await followUp("capture", auth.cnpTxnId, 400);
    expect(first).toMatchObject({ response: "000", message: "Approved" });
    expect(first.postDate).toBeDefined();
    expect(first.orderId).toBeUndefined();
    expect(await followUp("capture", auth.cnpTxnId, 700)).toMatchObject({ response: "340", message: "Invalid Amount" });
    expect((await followUp("capture", auth.cnpTxnId, 600)).response).toBe("000");
    expect(await followUp("capture", auth.cnpTxnId, 1)).toMatchObject({ response: "111", message: "Authorization amount has already been depleted" });
    expect((await followUp("capture", auth.cnpTxnId)).response).toBe("111");
  });

  test("without an amount, captures the rest", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 900);
    await followUp("capture", auth.cnpTxnId, 100);
    expect((await followUp("capture", auth.cnpTxnId)).response).toBe("000");
    const list = await control(t.url, `/processor/transactions?type=capture`);
    const last = list.body.items.at(-1);
    expect(last.amount).toBe(800);
  });

  test("360 for unknown, declined, non-authorization or another merchant's transactions", async () => {
    expect(await followUp("capture", "123456789012345678", 1)).toMatchObject({ response: "360", message: "No transaction found with specified transaction Id" });
    const declined = await pay("authorization", await tokenOf("4000000000000002"), 100);
    expect((await followUp("capture", declined.cnpTxnId)).response).toBe("360");
    const sale = await pay("sale", await tokenOf("4111111111111111"), 100);
    expect((await followUp("capture", sale.cnpTxnId)).response).toBe("360");
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 100);
    const other = (await createAccount(t.url)).processor;
    const res = await postCnp(t.url, cnpRequest(other, `<capture id="c" reportGroup="rg"><cnpTxnId>${auth.cnpTxnId}</cnpTxnId></capture>`));
    expect(res.envelope.captureResponse.response).toBe("360");
  });

  test("306 after the authorization was reversed", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 500);
    expect((await followUp("authReversal", auth.cnpTxnId)).response).toBe("000");
    expect(await followUp("capture", auth.cnpTxnId)).toMatchObject({ response: "306", message: "Authorization no longer available" });
  });
});

describe("authReversal", () => {
  test("full reversal, then 306 on a second reversal", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 500);
    const el = await followUp("authReversal", auth.cnpTxnId);
    expect(el).toMatchObject({ response: "000", message: "Approved" });
    expect((await followUp("authReversal", auth.cnpTxnId)).response).toBe("306");
  });

  test("partial reversal leaves the rest capturable; too much is 336", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 500);
    expect((await followUp("authReversal", auth.cnpTxnId, 200)).response).toBe("000");
    expect(await followUp("authReversal", auth.cnpTxnId, 400)).toMatchObject({ response: "336", message: "Reversal amount does not match Authorization amount" });
    expect((await followUp("capture", auth.cnpTxnId, 300)).response).toBe("000");
    expect((await followUp("capture", auth.cnpTxnId, 1)).response).toBe("111");
  });

  test("reversing a fully captured authorization gives 111", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 500);
    await followUp("capture", auth.cnpTxnId);
    expect((await followUp("authReversal", auth.cnpTxnId)).response).toBe("111");
  });

  test("360 for a sale or an unknown transaction", async () => {
    const sale = await pay("sale", await tokenOf("4111111111111111"), 100);
    expect((await followUp("authReversal", sale.cnpTxnId)).response).toBe("360");
    expect((await followUp("authReversal", "999999999999999999")).response).toBe("360");
  });
});

describe("credit (refund)", () => {
  test("partial and repeated refunds of a capture, never more than was captured", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 1000);
    const capture = await followUp("capture", auth.cnpTxnId, 800);
    expect((await followUp("credit", capture.cnpTxnId, 300)).response).toBe("000");
    expect((await followUp("credit", capture.cnpTxnId, 300)).response).toBe("000");
    expect(await followUp("credit", capture.cnpTxnId, 300)).toMatchObject({ response: "365", message: "Total credit amount exceeds capture amount" });
    expect((await followUp("credit", capture.cnpTxnId, 200)).response).toBe("000");
    expect((await followUp("credit", capture.cnpTxnId, 1)).response).toBe("365");
  });

  test("refund of a sale; without an amount refunds the rest", async () => {
    const sale = await pay("sale", await tokenOf("5555555555554444"), 700);
    expect((await followUp("credit", sale.cnpTxnId, 200)).response).toBe("000");
    expect((await followUp("credit", sale.cnpTxnId)).response).toBe("000");
    expect((await followUp("credit", sale.cnpTxnId)).response).toBe("365");
  });

  test("360 for an authorization or an unknown transaction", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 100);
    expect((await followUp("credit", auth.cnpTxnId, 100)).response).toBe("360");
    expect((await followUp("credit", "111111111111111111", 100)).response).toBe("360");
  });
});

describe("void", () => {
  test("voiding a capture gives the amount back to the authorization; a second void is 362", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 1000);
    const capture = await followUp("capture", auth.cnpTxnId);
    expect(await followUp("void", capture.cnpTxnId)).toMatchObject({ response: "000", message: "Approved" });
    expect(await followUp("void", capture.cnpTxnId)).toMatchObject({ response: "362", message: "Transaction Not Voided - Already Settled" });
    expect((await followUp("capture", auth.cnpTxnId)).response).toBe("000");
    // A voided capture has nothing left to refund.
    expect((await followUp("credit", capture.cnpTxnId, 1)).response).toBe("365");
  });

  test("voiding a sale; voiding a refund makes the money refundable again", async () => {
    const sale = await pay("sale", await tokenOf("4111111111111111"), 500);
    const credit = await followUp("credit", sale.cnpTxnId, 500);
    expect(await followUp("void", sale.cnpTxnId)).toMatchObject({ response: "322", message: "Invalid Transaction" });
    expect((await followUp("void", credit.cnpTxnId)).response).toBe("000");
    expect((await followUp("void", credit.cnpTxnId)).response).toBe("362");
    expect((await followUp("void", sale.cnpTxnId)).response).toBe("000");
    const other = await pay("sale", await tokenOf("4111111111111111"), 300);
    const c2 = await followUp("credit", other.cnpTxnId, 300);
    await followUp("void", c2.cnpTxnId);
    expect((await followUp("credit", other.cnpTxnId, 300)).response).toBe("000");
  });

  test("360 for an authorization (use authReversal) or an unknown transaction", async () => {
    const auth = await pay("authorization", await tokenOf("4111111111111111"), 100);
    expect((await followUp("void", auth.cnpTxnId)).response).toBe("360");
    expect((await followUp("void", "222222222222222222")).response).toBe("360");
  });
});

describe("duplicate detection", () => {
  test("the same id and type for the same merchant returns the original response, marked duplicate, with no new effect", async () => {
    const token = await tokenOf("4111111111111111");
    const first = await pay("authorization", token, 1000, { id: "dup-auth" });
    const again = await pay("authorization", token, 1000, { id: "dup-auth" });
    expect(again["@_duplicate"]).toBe("true");
    expect(first["@_duplicate"]).toBeUndefined();
    expect(again.cnpTxnId).toBe(first.cnpTxnId);
    expect(again.authCode).toBe(first.authCode);

    const capture = await followUp("capture", first.cnpTxnId, 600, { id: "dup-cap" });
    const captureAgain = await followUp("capture", first.cnpTxnId, 600, { id: "dup-cap" });
    expect(captureAgain["@_duplicate"]).toBe("true");
    expect(captureAgain.cnpTxnId).toBe(capture.cnpTxnId);
    // Only one 600 was captured, so 400 remain.
    expect((await followUp("capture", first.cnpTxnId, 400)).response).toBe("000");

    const list = await control(t.url, "/processor/transactions?id=dup-cap");
    expect(list.body.items.map((/** @type {any} */ i) => [i.type, i.duplicate, i.cnpTxnId])).toEqual([
      ["capture", false, capture.cnpTxnId],
      ["capture", true, capture.cnpTxnId],
    ]);
  });

  test("the same id with another type, or at another merchant, is not a duplicate", async () => {
    const token = await tokenOf("4111111111111111");
    const auth = await pay("authorization", token, 100, { id: "shared-id" });
    const sale = await pay("sale", token, 100, { id: "shared-id" });
    expect(sale["@_duplicate"]).toBeUndefined();
    expect(sale.cnpTxnId).not.toBe(auth.cnpTxnId);
    const other = (await createAccount(t.url)).processor;
    const otherToken = (await register("4111111111111111", other)).cnpToken;
    const res = await postCnp(t.url, cnpRequest(other, `<authorization id="shared-id" reportGroup="rg"><orderId>o</orderId><amount>1</amount><orderSource>ecommerce</orderSource><token><cnpToken>${otherToken}</cnpToken></token></authorization>`));
    expect(res.envelope.authorizationResponse["@_duplicate"]).toBeUndefined();
  });

  test("a declined original is returned as a duplicate too", async () => {
    const token = await tokenOf("4000000000009995");
    await pay("authorization", token, 100, { id: "dup-decline" });
    const again = await pay("authorization", token, 100, { id: "dup-decline" });
    expect(again).toMatchObject({ response: "110", "@_duplicate": "true" });
  });

  test("transactions without an id are never duplicates", async () => {
    const token = await tokenOf("4111111111111111");
    const a = await pay("sale", token, 100, { id: /** @type {any} */ (null) });
    const b = await pay("sale", token, 100, { id: /** @type {any} */ (null) });
    expect(a.cnpTxnId).not.toBe(b.cnpTxnId);
  });
});

describe("envelope errors: HTTP 200, response=\"1\"", () => {
  /** @param {string} xml */
  async function refused(xml) {
    const res = await postCnp(t.url, xml);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/xml/);
    expect(res.envelope["@_response"]).toBe("1");
    expect(res.envelope["@_xmlns"]).toBe("http://www.vantivcnp.com/schema");
    return /** @type {string} */ (res.envelope["@_message"]);
  }
  const auth = `<authorization id="a" reportGroup="rg"><orderId>o</orderId><amount>1</amount><orderSource>ecommerce</orderSource><token><cnpToken>1111000276870123</cnpToken></token></authorization>`;

  test.each([
    ["a wrong password", () => ({ ...creds, password: "nope" })],
    ["a wrong user", () => ({ ...creds, user: "nope" })],
    ["an unknown merchantId", () => ({ ...creds, merchantId: "000" })],
  ])("bad credentials: %s", async (_what, who) => {
    expect(await refused(cnpRequest(who(), auth))).toMatch(/^Authentication failed/);
  });

  test.each([
    ["malformed XML", "<cnpOnlineRequest><authentication>", /not well-formed/],
    ["not XML at all", "hello", /not well-formed|root element/],
    ["an empty body", "", /empty/],
    ["a DOCTYPE", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><cnpOnlineRequest/>', /DOCTYPE/],
    ["another root element", "<paymentRequest/>", /root element/],
    ["no merchantId", '<cnpOnlineRequest version="12.30"><authentication><user>u</user><password>p</password></authentication></cnpOnlineRequest>', /merchantId/],
    ["no authentication", `<cnpOnlineRequest merchantId="m">${auth}</cnpOnlineRequest>`, /authentication/],
  ])("%s", async (_what, xml, message) => {
    expect(await refused(xml)).toMatch(message);
  });

  test.each([
    ["no transaction", "", /exactly one transaction/],
    ["two transactions", `${auth}${auth.replace('id="a"', 'id="b"')}`, /exactly one transaction/],
    ["an unsupported transaction", '<echeckSale id="e" reportGroup="rg"/>', /echeckSale.*not supported/],
    ["a missing reportGroup", '<capture id="c"><cnpTxnId>1</cnpTxnId></capture>', /reportGroup/],
    ["a decimal amount", auth.replace("<amount>1</amount>", "<amount>10.50</amount>"), /amount/],
    ["a missing orderSource", auth.replace("<orderSource>ecommerce</orderSource>", ""), /orderSource/],
    ["a card instead of a token", '<sale id="s" reportGroup="rg"><orderId>o</orderId><amount>1</amount><orderSource>ecommerce</orderSource><card><number>4111111111111111</number></card></sale>', /token/],
    ["an id over 25 characters", auth.replace('id="a"', `id="${"x".repeat(26)}"`), /id attribute/],
    ["a non-numeric cnpTxnId", '<void id="v" reportGroup="rg"><cnpTxnId>abc</cnpTxnId></void>', /cnpTxnId/],
  ])("schema problem: %s", async (_what, transaction, message) => {
    expect(await refused(cnpRequest(creds, transaction))).toMatch(message);
  });

  test("refused requests leave no transaction behind", async () => {
    const before = (await control(t.url, "/processor/transactions")).body.count;
    await refused(cnpRequest({ ...creds, password: "bad" }, auth));
    expect((await control(t.url, "/processor/transactions")).body.count).toBe(before);
  });
});

describe("the older litle dialect", () => {
  test("litleOnlineRequest is answered with litleOnlineResponse, litleTxnId and litleToken", async () => {
    const res = await postCnp(t.url, cnpRequest(creds, '<registerTokenRequest id="l1" reportGroup="rg"><accountNumber>4111111111111111</accountNumber></registerTokenRequest>', "litleOnlineRequest"));
    expect(res.text).toContain("<litleOnlineResponse");
    expect(res.envelope["@_xmlns"]).toBe("http://www.litle.com/schema");
    const el = res.envelope.registerTokenResponse;
    expect(el.litleTxnId).toMatch(/^\d{18}$/);
    expect(el.litleToken).toMatch(/^\d{16}$/);
    const auth = await postCnp(t.url, cnpRequest(creds, `<authorization id="l2" reportGroup="rg"><orderId>o</orderId><amount>5</amount><orderSource>ecommerce</orderSource><token><litleToken>${el.litleToken}</litleToken></token></authorization>`, "litleOnlineRequest"));
    expect(auth.envelope.authorizationResponse.response).toBe("000");
    const capture = await postCnp(t.url, cnpRequest(creds, `<capture id="l3" reportGroup="rg"><litleTxnId>${auth.envelope.authorizationResponse.litleTxnId}</litleTxnId></capture>`, "litleOnlineRequest"));
    expect(capture.envelope.captureResponse.response).toBe("000");
  });
});

describe("HTTP surface", () => {
  test("only POST", async () => {
    const res = await call(t.url, "/cnp/online");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  test("the transactions list filters by type and redacts passwords", async () => {
    const list = await control(t.url, "/processor/transactions?type=authorization");
    expect(list.body.count).toBe(list.body.items.length);
    expect(list.body.count).toBeGreaterThan(0);
    for (const item of list.body.items) {
      expect(item.type).toBe("authorization");
      expect(item.requestXml).toContain("<password>[REDACTED]</password>");
      expect(item.requestXml).not.toContain(creds.password);
      expect(item).toEqual(expect.objectContaining({ merchantId: expect.any(String), cnpTxnId: expect.stringMatching(/^\d{18}$/), response: expect.stringMatching(/^\d{3}$/), duplicate: expect.any(Boolean), amount: expect.any(Number), orderId: expect.any(String) }));
    }
  });

  test("the demo merchant's credentials work", async () => {
    const { processor } = t.sb.demo;
    expect(processor.url).toBe(`${t.url}/cnp/online`);
    const res = await postCnp(t.url, cnpRequest(processor, '<registerTokenRequest id="d" reportGroup="rg"><accountNumber>4457119922390123</accountNumber></registerTokenRequest>'));
    expect(res.envelope.registerTokenResponse.cnpToken).toBe("1111000276870123");
  });
});
