// @ts-check
"use strict";

/**
 * Conformance to Worldpay's published XSDs (xsd.js names the files): every cnpAPI transaction the
 * sandbox plays, approved and refused, answers an element its XSD type allows; the Chargeback
 * API's long-typed elements are numbers. Three differences these found, each fixed:
 * `registerTokenResponse` carried the request's `orderId` (its type has none), a refused void had
 * no `postDate` (required in `voidResponse`), and the demo merchant's id (`demo-merchant`) could
 * not be the `xs:long` the Chargeback API sends.
 */

const { XMLParser } = require("fast-xml-parser");
const { cnpRequest, control, createAccount, postCnp, useSandbox } = require("../../helpers");
const { caseViolations, cnpViolations, documentResponseViolations, isLong } = require("./xsd");

const t = useSandbox();
const XML_TYPE = "application/com.vantivcnp.services-v2+xml";
const futureExp = `12${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}`;
const PDF = Buffer.from("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n");
const chargebackXml = new XMLParser({ parseTagValue: false, isArray: (name) => ["chargebackCase", "activity", "documentId"].includes(name) });

/** @typedef {{ merchantId: string, user: string, password: string }} Creds */
/** @type {Creds} */
let creds;
let seq = 0;
/** Every response element checked, by name, so the last test can require each to have been met. */
const seen = new Set();

beforeAll(async () => {
  creds = (await createAccount(t.url)).processor;
});

/**
 * Sends one transaction, checks its answer against the XSD and returns the element.
 * @param {string} type
 * @param {string} inner
 * @param {Creds} [who]
 */
async function txn(type, inner, who = creds) {
  const res = await postCnp(t.url, cnpRequest(who, `<${type} id="x${++seq}" reportGroup="rg"${type === "authorization" ? ' customerId="cus_1"' : ""}>${inner}</${type}>`));
  expect(res.envelope["@_response"]).toBe("0");
  expect(res.envelope["@_version"]).toEqual(expect.any(String));
  expect(res.envelope["@_message"]).toEqual(expect.any(String));
  const name = `${type === "registerTokenRequest" ? "registerToken" : type}Response`;
  const element = res.envelope[name];
  expect(cnpViolations(name, element)).toEqual([]);
  seen.add(name);
  return element;
}

/** @param {string} number @param {Creds} [who] */
const register = (number, who) =>
  txn("registerTokenRequest", `<orderId>order-r${seq}</orderId><accountNumber>${number}</accountNumber><cardValidationNum>123</cardValidationNum>`, who);
/** @param {"authorization" | "sale"} type @param {string} token @param {number} amount */
const pay = (type, token, amount) =>
  txn(type, `<orderId>order-${seq}</orderId><amount>${amount}</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken><expDate>${futureExp}</expDate></token>`);
/** @param {string} type @param {string} cnpTxnId @param {number} [amount] */
const followUp = (type, cnpTxnId, amount) => txn(type, `<cnpTxnId>${cnpTxnId}</cnpTxnId>${amount === undefined ? "" : `<amount>${amount}</amount>`}`);

describe("cnpAPI answers conform to cnpOnline/cnpTransaction v12.34", () => {
  test("registerTokenResponse: no orderId, even when the request sent one (801, 802 and 820)", async () => {
    const first = await register("4111111111111111");
    expect(first.response).toBe("801");
    expect(first.orderId).toBeUndefined();
    expect((await register("4111111111111111")).response).toBe("802");
    expect((await register("4457119999999996")).response).toBe("820");
  });

  test("authorizationResponse and saleResponse, approved and declined, carry their required orderId", async () => {
    const token = (await register("4111111111111111")).cnpToken;
    const declining = (await register("4000000000000002")).cnpToken;
    for (const type of /** @type {const} */ (["authorization", "sale"])) {
      expect((await pay(type, token, 1000)).orderId).toEqual(expect.any(String));
      expect((await pay(type, declining, 1000)).response).toBe("349");
    }
  });

  test("captureResponse, creditResponse, authReversalResponse, approved and refused", async () => {
    const token = (await register("5555555555554444")).cnpToken;
    const auth = await pay("authorization", token, 1000);
    const capture = await followUp("capture", auth.cnpTxnId, 600);
    expect(capture.response).toBe("000");
    expect((await followUp("capture", auth.cnpTxnId, 9999)).response).toBe("340");
    expect((await followUp("credit", capture.cnpTxnId, 100)).response).toBe("000");
    expect((await followUp("credit", capture.cnpTxnId, 9999)).response).toBe("365");
    expect((await followUp("authReversal", auth.cnpTxnId)).response).toBe("000");
    expect((await followUp("authReversal", auth.cnpTxnId)).response).toBe("306");
  });

  test("voidResponse carries its required postDate, refused as well as approved", async () => {
    const sale = await pay("sale", (await register("4012888888881881")).cnpToken, 500);
    const voided = await followUp("void", sale.cnpTxnId);
    expect(voided.response).toBe("000");
    const again = await followUp("void", sale.cnpTxnId);
    expect(again.response).toBe("362");
    expect(again.postDate).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect((await followUp("void", "123456789012345678")).response).toBe("360");
  });

  test("every response element the sandbox writes was checked", () => {
    expect([...seen].sort()).toEqual(
      ["authReversalResponse", "authorizationResponse", "captureResponse", "creditResponse", "registerTokenResponse", "saleResponse", "voidResponse"],
    );
  });
});

describe("the Chargeback API's merchantId is an xs:long (chargeback-api-v2.1.xsd)", () => {
  test("the demo merchant's id is one, and so is every merchant's the sandbox accepts", async () => {
    expect(isLong(t.sb.demo.processor.merchantId)).toBe(true);
    expect(isLong(creds.merchantId)).toBe(true);
    for (const merchantId of ["demo-merchant", "0123", "12345678901234567890", "-5"]) {
      const res = await control(t.url, "/accounts", { processor: { merchantId, user: "u", password: "p" } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/processor\.merchantId: .*xs:long/);
    }
  });

  test("a case of the demo merchant, retrieved and given a document, names it as a number", async () => {
    const demo = t.sb.demo.processor;
    const token = (await register("4111111111111111", demo)).cnpToken;
    const auth = await txn("authorization", `<orderId>demo-${seq}</orderId><amount>700</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token>`, demo);
    const raised = await control(t.url, "/chargebacks", { cnpTxnId: auth.cnpTxnId });
    expect(raised.status).toBe(201);
    const authorization = `Basic ${Buffer.from(`${demo.user}:${demo.password}`).toString("base64")}`;
    const read = await fetch(`${t.url}/chargebacks/${raised.body.caseId}`, { headers: { Authorization: authorization } });
    const [kase] = chargebackXml.parse(await read.text()).chargebackRetrievalResponse.chargebackCase;
    expect(kase.merchantId).toBe(demo.merchantId);
    expect(caseViolations(kase)).toEqual([]);
    const uploaded = await fetch(`${t.url}/services/chargebacks/upload/${raised.body.caseId}/evidence.pdf`, {
      method: "POST",
      headers: { Authorization: authorization, "Content-Type": "application/pdf" },
      body: PDF,
    });
    expect(uploaded.headers.get("content-type")).toContain(XML_TYPE);
    const answer = chargebackXml.parse(await uploaded.text()).chargebackDocumentUploadResponse;
    expect(answer.responseCode).toBe("000");
    expect(documentResponseViolations(answer)).toEqual([]);
    const listed = await control(t.url, `/chargebacks?merchantId=${demo.merchantId}`);
    expect(listed.body.items.map((/** @type {{ caseId: string }} */ c) => c.caseId)).toContain(raised.body.caseId);
  });
});
