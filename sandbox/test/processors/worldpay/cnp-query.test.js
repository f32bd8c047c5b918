// @ts-check
"use strict";

/**
 * cnpAPI queryTransaction: finding an earlier transaction by the id it was sent with, the way a
 * client reconciles a request whose answer it never got.
 */

const { useSandbox, control, createAccount, postCnp, cnpRequest } = require("../../helpers");

const t = useSandbox();
/** @type {{ merchantId: string, user: string, password: string }} */
let creds;
/** A card registered at `creds`' merchant. */
let token = "";
let seq = 0;
const nextId = () => `q${++seq}-${Date.now().toString(36)}`;
const futureExp = `12${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}`;

/** @typedef {Record<string, any>} El */

beforeAll(async () => {
  creds = (await createAccount(t.url)).processor;
  const res = await postCnp(t.url, cnpRequest(creds, `<registerTokenRequest reportGroup="rg"><accountNumber>4111111111111111</accountNumber></registerTokenRequest>`));
  token = res.envelope.registerTokenResponse.cnpToken;
});

afterEach(async () => {
  await control(t.url, "/faults", undefined, "DELETE");
});

/**
 * @param {string} type
 * @param {string} id
 * @param {string} inner
 * @param {{ creds?: typeof creds, root?: string }} [options]
 */
async function send(type, id, inner, options = {}) {
  const res = await postCnp(t.url, cnpRequest(options.creds ?? creds, `<${type} id="${id}" reportGroup="rg">${inner}</${type}>`, options.root));
  expect(res.envelope["@_response"]).toBe("0");
  return res;
}

/** @param {string} id @param {number} amount @param {string} [type] @param {string} [cardToken] */
async function authorize(id, amount, type = "authorization", cardToken = token) {
  const res = await send(
    type,
    id,
    `<orderId>ord-${id}</orderId><amount>${amount}</amount><orderSource>ecommerce</orderSource><token><cnpToken>${cardToken}</cnpToken><expDate>${futureExp}</expDate></token>`,
  );
  return /** @type {El} */ (res.envelope[`${type}Response`]);
}

/** @param {string} type @param {string} id @param {string} cnpTxnId @param {number} [amount] */
async function followUp(type, id, cnpTxnId, amount) {
  const res = await send(type, id, `<cnpTxnId>${cnpTxnId}</cnpTxnId>${amount === undefined ? "" : `<amount>${amount}</amount>`}`);
  return /** @type {El} */ (res.envelope[`${type}Response`]);
}

/**
 * @param {string} inner
 * @param {{ creds?: typeof creds, root?: string, attrs?: string }} [options]
 */
async function query(inner, options = {}) {
  return postCnp(t.url, cnpRequest(options.creds ?? creds, `<queryTransaction id="qry" reportGroup="rg"${options.attrs ?? ""}>${inner}</queryTransaction>`, options.root));
}

/** @param {El | El[] | undefined} value @returns {El[]} */
const list = (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** @param {string} type */
async function transactions(type) {
  return /** @type {El[]} */ ((await control(t.url, `/processor/transactions?type=${type}&merchantId=${creds.merchantId}`)).body.items);
}

describe("found (150)", () => {
  test("an authorization whose answer was lost is found with its original response, and nothing is authorized again", async () => {
    const id = nextId();
    await control(t.url, "/faults", { dropResponse: { route: "cnp.online", count: 1 } });
    const xml = cnpRequest(
      creds,
      `<authorization id="${id}" reportGroup="rg"><orderId>ord-1</orderId><amount>4200</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token></authorization>`,
    );
    await expect(fetch(`${t.url}/cnp/online`, { method: "POST", body: xml })).rejects.toThrow();
    const [original] = (await transactions("authorization")).filter((x) => x.id === id);
    expect(original).toMatchObject({ response: "000", amount: 4200 });

    const res = await query(`<origId>${id}</origId><origActionType>A</origActionType>`, { attrs: ` customerId="cust-9"` });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/xml/);
    const answer = res.envelope.queryTransactionResponse;
    expect(answer).toMatchObject({
      "@_id": "qry",
      "@_reportGroup": "rg",
      "@_customerId": "cust-9",
      response: "150",
      message: "Original transaction found",
      matchCount: "1",
    });
    expect(answer.responseTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    const found = answer.results_max10.authorizationResponse;
    expect(found).toMatchObject({ "@_id": id, "@_reportGroup": "rg", cnpTxnId: original.cnpTxnId, orderId: "ord-1", response: "000", message: "Approved" });
    expect(found.authCode).toMatch(/^\d{6}$/);
    expect(found["@_duplicate"]).toBeUndefined();
    // The query itself moved no money and left exactly one authorization behind.
    expect((await transactions("authorization")).filter((x) => x.id === id)).toHaveLength(1);
  });

  test("each action type finds its own transaction: A, S, D, R, AR, V", async () => {
    const ids = { auth: nextId(), sale: nextId(), capture: nextId(), credit: nextId(), reversal: nextId(), void: nextId() };
    const auth = await authorize(ids.auth, 1000);
    const sale = await authorize(ids.sale, 700, "sale");
    const capture = await followUp("capture", ids.capture, auth.cnpTxnId, 600);
    const credit = await followUp("credit", ids.credit, capture.cnpTxnId, 100);
    const reversal = await followUp("authReversal", ids.reversal, auth.cnpTxnId, 400);
    const voided = await followUp("void", ids.void, credit.cnpTxnId);
    /** @type {[string, string, string, El][]} */
    const cases = [
      ["A", ids.auth, "authorizationResponse", auth],
      ["S", ids.sale, "saleResponse", sale],
      ["D", ids.capture, "captureResponse", capture],
      ["R", ids.credit, "creditResponse", credit],
      ["AR", ids.reversal, "authReversalResponse", reversal],
      ["V", ids.void, "voidResponse", voided],
    ];
    for (const [action, id, element, sent] of cases) {
      const answer = (await query(`<origId>${id}</origId><origActionType>${action}</origActionType>`)).envelope.queryTransactionResponse;
      expect({ action, response: answer.response }).toEqual({ action, response: "150" });
      expect(answer.results_max10[element]).toEqual(sent);
    }
  });

  test("a declined original is found too, with its decline", async () => {
    const declining = (await postCnp(t.url, cnpRequest(creds, `<registerTokenRequest reportGroup="rg"><accountNumber>4000000000009995</accountNumber></registerTokenRequest>`)))
      .envelope.registerTokenResponse.cnpToken;
    const id = nextId();
    const sent = await authorize(id, 500, "authorization", declining);
    expect(sent.response).toBe("110");
    const answer = (await query(`<origId>${id}</origId><origActionType>A</origActionType>`)).envelope.queryTransactionResponse;
    expect(answer.response).toBe("150");
    expect(answer.results_max10.authorizationResponse).toEqual(sent);
  });

  test("retries answered as duplicates are not listed: the original is", async () => {
    const id = nextId();
    const sent = await authorize(id, 300);
    const again = await authorize(id, 300);
    expect(again["@_duplicate"]).toBe("true");
    const answer = (await query(`<origId>${id}</origId><origActionType>A</origActionType>`)).envelope.queryTransactionResponse;
    expect(answer.matchCount).toBe("1");
    expect(answer.results_max10.authorizationResponse).toEqual(sent);
  });

  test("without an action type every transaction sent with the id is listed, in the order they happened", async () => {
    const id = nextId();
    const auth = await authorize(id, 900);
    const capture = await followUp("capture", id, auth.cnpTxnId, 900);
    const register = (await send("registerTokenRequest", id, "<accountNumber>4111111111111111</accountNumber>")).envelope.registerTokenResponse;
    const res = await query(`<origId>${id}</origId>`);
    const answer = res.envelope.queryTransactionResponse;
    expect(answer.matchCount).toBe("3");
    expect(answer.results_max10.authorizationResponse).toEqual(auth);
    expect(answer.results_max10.captureResponse).toEqual(capture);
    expect(answer.results_max10.registerTokenResponse).toEqual(register);
    const order = [...res.text.matchAll(/<(authorizationResponse|captureResponse|registerTokenResponse)\b/g)].map((m) => m[1]);
    expect(order).toEqual(["authorizationResponse", "captureResponse", "registerTokenResponse"]);
  });

  test("results_max10 holds at most ten; matchCount counts them all", async () => {
    const id = nextId();
    // Token registrations are not deduplicated, so each one is an original.
    for (let i = 0; i < 12; i++) await send("registerTokenRequest", id, "<accountNumber>4111111111111111</accountNumber>");
    const answer = (await query(`<origId>${id}</origId>`)).envelope.queryTransactionResponse;
    expect(answer.response).toBe("150");
    expect(answer.matchCount).toBe("12");
    expect(list(answer.results_max10.registerTokenResponse)).toHaveLength(10);
  });

  test("origCnpTxnId alone finds the transaction", async () => {
    const sent = await authorize(nextId(), 250);
    const answer = (await query(`<origCnpTxnId>${sent.cnpTxnId}</origCnpTxnId>`)).envelope.queryTransactionResponse;
    expect(answer.response).toBe("150");
    expect(answer.results_max10.authorizationResponse).toEqual(sent);
  });

  test("origId is compared after collapsing white space, as the schema's type does", async () => {
    const id = nextId();
    await authorize(id, 100);
    const answer = (await query(`<origId>  ${id}\n</origId><origActionType>A</origActionType>`)).envelope.queryTransactionResponse;
    expect(answer.response).toBe("150");
  });

  test("the litle dialect is answered in the litle dialect", async () => {
    const id = nextId();
    const sent = await authorize(id, 100);
    const res = await query(`<origId>${id}</origId><origActionType>A</origActionType>`, { root: "litleOnlineRequest" });
    expect(res.envelope["@_xmlns"]).toBe("http://www.litle.com/schema");
    const found = res.envelope.queryTransactionResponse.results_max10.authorizationResponse;
    expect(found.litleTxnId).toBe(sent.cnpTxnId);
    expect(found.cnpTxnId).toBeUndefined();
  });
});

describe("not found (151)", () => {
  test.each([
    ["an id never sent", () => `<origId>never-${nextId()}</origId><origActionType>A</origActionType>`],
    ["an unknown cnpTxnId", () => `<origCnpTxnId>123456789012345678</origCnpTxnId>`],
  ])("%s", async (_, inner) => {
    const answer = (await query(inner())).envelope.queryTransactionResponse;
    expect(answer).toMatchObject({ response: "151", message: "Original transaction not found", matchCount: "0" });
    expect(answer.results_max10).toBeUndefined();
  });

  test("the right id with another action type", async () => {
    const id = nextId();
    await authorize(id, 100);
    for (const action of ["D", "S", "R", "G"]) {
      expect((await query(`<origId>${id}</origId><origActionType>${action}</origActionType>`)).envelope.queryTransactionResponse.response).toBe("151");
    }
  });

  test("another merchant's transaction with the same id", async () => {
    const id = nextId();
    await authorize(id, 100);
    const other = (await createAccount(t.url)).processor;
    const answer = (await query(`<origId>${id}</origId><origActionType>A</origActionType>`, { creds: other })).envelope.queryTransactionResponse;
    expect(answer.response).toBe("151");
  });
});

describe("not yet available (152): the queryUnavailable fault", () => {
  test("the next found query answers 152 with the original's cnpTxnId, the one after it 150", async () => {
    const id = nextId();
    const sent = await authorize(id, 100);
    const missing = await query(`<origId>missing-${id}</origId><origActionType>A</origActionType>`);
    expect((await control(t.url, "/faults", { queryUnavailable: { count: 1 } })).body).toEqual({ queryUnavailable: { count: 1 } });
    // A query that finds nothing does not use the fault up.
    expect((await query(`<origId>missing-${id}</origId><origActionType>A</origActionType>`)).envelope.queryTransactionResponse.response).toBe("151");
    expect(missing.envelope.queryTransactionResponse.response).toBe("151");

    const res = await query(`<origId>${id}</origId><origActionType>A</origActionType>`, { attrs: ` customerId="c1"` });
    expect(res.envelope.queryTransactionResponse).toBeUndefined();
    expect(res.envelope.queryTransactionUnavailableResponse).toEqual({
      "@_id": "qry",
      "@_reportGroup": "rg",
      "@_customerId": "c1",
      cnpTxnId: sent.cnpTxnId,
      response: "152",
      message: "Original transaction found but response not yet available",
    });
    expect((await control(t.url, "/faults")).body).toEqual({});
    expect((await query(`<origId>${id}</origId><origActionType>A</origActionType>`)).envelope.queryTransactionResponse.response).toBe("150");
  });

  test.each([
    [{ queryUnavailable: { count: 0 } }, /queryUnavailable.count/],
    [{ queryUnavailable: { count: 2.5 } }, /queryUnavailable.count must be a whole number/],
    [{ queryUnavailable: { count: 1, route: "cnp.online" } }, /queryUnavailable has unknown field route/],
    [{ queryUnavailable: 1 }, /queryUnavailable must be an object/],
  ])("control refuses %j", async (body, message) => {
    const res = await control(t.url, "/faults", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });
});

describe("refused requests", () => {
  test.each([
    ["neither origId nor origCnpTxnId", `<origActionType>A</origActionType>`, /needs <origId>/],
    ["an action type outside the schema's enumeration", `<origId>x</origId><origActionType>Q</origActionType>`, /<origActionType> must be one of A, S, D, R, AR, V, G/],
    ["an origId over 36 characters", `<origId>${"x".repeat(37)}</origId>`, /<origId> must be 1 to 36 characters/],
    ["a blank origId", `<origId>   </origId>`, /<origId> must be 1 to 36 characters/],
    ["a non-numeric origCnpTxnId", `<origCnpTxnId>12a</origCnpTxnId>`, /<origCnpTxnId> must be numeric/],
    ["a showStatusOnly other than Y or N", `<origId>x</origId><showStatusOnly>yes</showStatusOnly>`, /<showStatusOnly> must be Y or N/],
  ])("%s: response=1 on the envelope", async (_, inner, message) => {
    const res = await query(inner);
    expect(res.status).toBe(200);
    expect(res.envelope["@_response"]).toBe("1");
    expect(res.envelope["@_message"]).toMatch(/^Error validating xml data against the schema: /);
    expect(res.envelope["@_message"]).toMatch(message);
    expect(res.envelope.queryTransactionResponse).toBeUndefined();
  });

  test("a query without reportGroup is refused", async () => {
    const res = await postCnp(t.url, cnpRequest(creds, `<queryTransaction id="q"><origId>x</origId></queryTransaction>`));
    expect(res.envelope["@_response"]).toBe("1");
    expect(res.envelope["@_message"]).toMatch(/reportGroup attribute of <queryTransaction> is required/);
  });

  test("showStatusOnly Y is accepted", async () => {
    const id = nextId();
    await authorize(id, 100);
    const answer = (await query(`<origId>${id}</origId><origActionType>A</origActionType><showStatusOnly>Y</showStatusOnly>`)).envelope.queryTransactionResponse;
    expect(answer.response).toBe("150");
  });
});

describe("what the sandbox records", () => {
  test("queries are listed as queryTransaction, with no cnpTxnId of their own and the original they found", async () => {
    const id = nextId();
    const sent = await authorize(id, 100);
    await query(`<origId>${id}</origId><origActionType>A</origActionType>`);
    await query(`<origId>none-${id}</origId><origActionType>A</origActionType>`);
    const queries = (await transactions("queryTransaction")).slice(-2);
    expect(queries).toEqual([
      expect.objectContaining({ type: "queryTransaction", id: "qry", cnpTxnId: null, originalCnpTxnId: sent.cnpTxnId, response: "150", amount: null, duplicate: false }),
      expect.objectContaining({ type: "queryTransaction", id: "qry", cnpTxnId: null, originalCnpTxnId: null, response: "151" }),
    ]);
    expect(queries[0].requestXml).toContain("<password>[REDACTED]</password>");
    expect(queries[0].requestXml).not.toContain(creds.password);
    expect(queries[0].responseXml).toContain("<queryTransactionResponse");
  });

  test("a query is one cnp.online request in the stats", async () => {
    await control(t.url, "/reset-stats", {});
    await query(`<origId>x</origId>`);
    expect((await control(t.url, "/stats")).body.requests["cnp.online"]).toBe(1);
  });
});
