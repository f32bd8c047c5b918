// @ts-check
"use strict";

/**
 * The Worldpay eComm Chargeback API played by the sandbox: cases raised through the control API on
 * real authorizations and sales, retrieved, updated and given evidence documents over HTTP Basic,
 * with Worldpay's XML answers and refusals.
 */

const crypto = require("node:crypto");
const { spawn, spawnSync } = require("node:child_process");
const path = require("node:path");
const { XMLParser } = require("fast-xml-parser");
const { startSandbox } = require("../../../dist/index");
const { control, createAccount, postCnp, cnpRequest, call } = require("../../helpers");

const XML_TYPE = "application/com.vantivcnp.services-v2+xml";
const NS = "http://www.vantivcnp.com/chargebacks";
const BAD_REQUEST = "Bad Request. Error in request. Poorly formatted header/xml or cannot perform activity.";
const futureExp = `12${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, "0")}`;

/** @typedef {Record<string, any>} Obj */
/** @typedef {{ merchantId: string, user: string, password: string }} Creds */

// Repeated elements always as arrays, so a single case or activity reads like many.
const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  isArray: (name) => ["chargebackCase", "activity", "documentId", "error"].includes(name),
});

/** @type {string[]} */
const logs = [];
/** @type {import("../../../dist/index").Sandbox} */
let sb;
let url = "";
/** @type {Creds} */
let creds;
/** @type {Creds} */
let otherCreds;
let seq = 0;
const today = () => new Date().toISOString().slice(0, 10);
/** @param {number} days */
const dayFromToday = (days) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  sb = await startSandbox({ logger: (level, message) => logs.push(`${level} ${message}`) });
  url = sb.url;
  creds = (await createAccount(url)).processor;
  otherCreds = (await createAccount(url)).processor;
});
afterAll(() => sb.close());
afterEach(async () => {
  await control(url, "/faults", undefined, "DELETE");
});

/** @param {Creds} who */
const basic = (who) => `Basic ${Buffer.from(`${who.user}:${who.password}`).toString("base64")}`;

/**
 * A call to the Chargeback API, its XML parsed.
 * @param {string} route
 * @param {{ method?: string, who?: Creds | null, body?: string | Buffer, contentType?: string, authorization?: string }} [options]
 */
async function api(route, options = {}) {
  /** @type {Record<string, string>} */
  const headers = {};
  const who = options.who === undefined ? creds : options.who;
  if (options.authorization !== undefined) headers.Authorization = options.authorization;
  else if (who) headers.Authorization = basic(who);
  if (options.contentType) headers["Content-Type"] = options.contentType;
  const res = await fetch(`${url}${route}`, { method: options.method ?? "GET", headers, body: /** @type {BodyInit | undefined} */ (options.body) });
  const bytes = Buffer.from(await res.arrayBuffer());
  const text = bytes.toString("utf8");
  const type = res.headers.get("content-type") ?? "";
  /** @type {Obj} */
  const xml = type.startsWith(XML_TYPE) ? parser.parse(text) : {};
  return { status: res.status, headers: res.headers, type, text, bytes, xml };
}

/** @param {string} caseId @param {string} activityType @param {string} [extra] @param {Creds} [who] */
function updateCase(caseId, activityType, extra = "", who = creds) {
  return api(`/chargebacks/${caseId}`, {
    method: "PUT",
    who,
    contentType: XML_TYPE,
    body: `<?xml version="1.0" encoding="UTF-8"?><chargebackUpdateRequest xmlns="${NS}"><activityType>${activityType}</activityType>${extra}</chargebackUpdateRequest>`,
  });
}

/** @param {string} caseId */
async function getCase(caseId) {
  const res = await api(`/chargebacks/${caseId}`);
  expect(res.status).toBe(200);
  return /** @type {Obj} */ (res.xml.chargebackRetrievalResponse.chargebackCase[0]);
}

/** @param {string} accountNumber @param {Creds} [who] */
async function tokenFor(accountNumber, who = creds) {
  const res = await postCnp(url, cnpRequest(who, `<registerTokenRequest reportGroup="rg"><accountNumber>${accountNumber}</accountNumber></registerTokenRequest>`));
  return /** @type {string} */ (res.envelope.registerTokenResponse.cnpToken);
}

/**
 * An approved payment at the processor.
 * @param {{ type?: "authorization" | "sale", amount?: number, card?: string, orderId?: string, who?: Creds, customerId?: string, expDate?: string | null }} [options]
 */
async function pay(options = {}) {
  const type = options.type ?? "authorization";
  const who = options.who ?? creds;
  const token = await tokenFor(options.card ?? "5555555555554444", who);
  const id = `cb${++seq}`;
  const orderId = options.orderId ?? `order-${seq}-${Date.now().toString(36)}`;
  const customer = options.customerId ? ` customerId="${options.customerId}"` : "";
  const exp = options.expDate === null ? "" : `<expDate>${options.expDate ?? futureExp}</expDate>`;
  const res = await postCnp(
    url,
    cnpRequest(who, `<${type} id="${id}" reportGroup="rg"${customer}><orderId>${orderId}</orderId><amount>${options.amount ?? 5000}</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken>${exp}</token></${type}>`),
  );
  const el = res.envelope[`${type}Response`];
  expect(el.response).toBe("000");
  return { cnpTxnId: /** @type {string} */ (el.cnpTxnId), id, orderId, token, amount: options.amount ?? 5000 };
}

/** @param {Record<string, unknown>} body */
async function raise(body) {
  const res = await control(url, "/chargebacks", body);
  expect(res.status).toBe(201);
  return /** @type {Obj} */ (res.body);
}

/** A fresh case on a fresh authorization. @param {Record<string, unknown>} [extra] */
async function newCase(extra = {}) {
  const payment = await pay();
  return { payment, kase: await raise({ cnpTxnId: payment.cnpTxnId, ...extra }) };
}

/** @param {string} caseId @param {string} documentId @param {Buffer} bytes @param {string} [contentType] @param {string} [method] */
function upload(caseId, documentId, bytes, contentType = "application/pdf", method = "POST") {
  const verb = method === "PUT" ? "replace" : "upload";
  return api(`/services/chargebacks/${verb}/${caseId}/${encodeURIComponent(documentId)}`, { method, body: bytes, contentType });
}

/** @param {Obj} res */
const docAnswer = (res) => res.xml.chargebackDocumentUploadResponse;

const PDF = Buffer.from("%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n");
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32, 2)]);
const GIF = Buffer.concat([Buffer.from("GIF89a"), Buffer.alloc(32, 3)]);
const TIFF = Buffer.concat([Buffer.from([0x49, 0x49, 0x2a, 0x00]), Buffer.alloc(32, 4)]);

describe("control API: raising cases", () => {
  test("on an authorization by cnpTxnId, with Worldpay's fields filled from the payment and sensible defaults", async () => {
    const payment = await pay({ amount: 1999, customerId: "cus_77" });
    const kase = await raise({ cnpTxnId: payment.cnpTxnId });
    expect(kase).toEqual({
      caseId: expect.stringMatching(/^[1-9]\d{11}$/),
      merchantId: creds.merchantId,
      dayIssuedByBank: dayFromToday(-1),
      dateReceivedByVantivCnp: today(),
      vantivCnpTxnId: payment.cnpTxnId,
      cycle: "First Chargeback",
      orderId: payment.orderId,
      cardNumberLast4: "4444",
      cardType: "MC",
      chargebackAmount: 1999,
      chargebackCurrencyType: "USD",
      originalTxnDay: today(),
      chargebackType: "Deposit",
      representedAmount: null,
      representedCurrencyType: null,
      reasonCode: "4837",
      reasonCodeDescription: "No Cardholder Authorization",
      currentQueue: "Merchant",
      acquirerReferenceNumber: expect.stringMatching(/^\d{23}$/),
      chargebackReferenceNumber: expect.stringMatching(/^\d{10}$/),
      merchantTxnId: payment.id,
      bin: "555555",
      token: payment.token,
      customerId: "cus_77",
      paymentAmount: 1999,
      replyByDay: dayFromToday(14),
      activities: [
        {
          activityDate: today(),
          activityType: "Assign To Merchant",
          fromQueue: "Vantiv",
          toQueue: "Merchant",
          settlementAmount: 1999,
          settlementCurrencyType: "USD",
        },
      ],
      documents: [],
    });
  });

  test("on a sale by orderId; a Visa card gets Visa's card-absent fraud code", async () => {
    const payment = await pay({ type: "sale", card: "4111111111111111" });
    const kase = await raise({ orderId: payment.orderId });
    expect(kase).toMatchObject({ vantivCnpTxnId: payment.cnpTxnId, cardType: "VI", reasonCode: "10.4", reasonCodeDescription: "Other Fraud - Card Absent Environment", bin: "411111" });
  });

  test("with every option given", async () => {
    const payment = await pay({ amount: 8000 });
    const kase = await raise({
      cnpTxnId: payment.cnpTxnId,
      reasonCode: "4853",
      amount: 2500,
      currency: "EUR",
      cycle: "Pre-Arbitration",
      replyBy: "2099-01-31",
      dayIssuedByBank: "2024-05-01",
      note: "Customer says the goods never came",
    });
    expect(kase).toMatchObject({
      reasonCode: "4853",
      reasonCodeDescription: "Cardholder Dispute",
      chargebackAmount: 2500,
      chargebackCurrencyType: "EUR",
      paymentAmount: 8000,
      cycle: "Pre-Arbitration",
      replyByDay: "2099-01-31",
      dayIssuedByBank: "2024-05-01",
    });
    expect(kase.activities[0]).toMatchObject({ notes: "Customer says the goods never came", settlementAmount: 2500, settlementCurrencyType: "EUR" });
    const custom = await raise({ cnpTxnId: payment.cnpTxnId, reasonCode: "99", reasonCodeDescription: "Made-up reason" });
    expect(custom).toMatchObject({ reasonCode: "99", reasonCodeDescription: "Made-up reason" });
  });

  test("an orderId used at two merchants needs merchantId", async () => {
    const orderId = `shared-${Date.now().toString(36)}`;
    const mine = await pay({ orderId });
    await pay({ orderId, who: otherCreds });
    const ambiguous = await control(url, "/chargebacks", { orderId });
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body.error).toMatch(/matches 2 approved authorizations or sales; name one by cnpTxnId or merchantId/);
    expect((await raise({ orderId, merchantId: creds.merchantId })).vantivCnpTxnId).toBe(mine.cnpTxnId);
  });

  test.each([
    ["neither cnpTxnId nor orderId", () => ({}), 400, /cnpTxnId or orderId is required/],
    ["both", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, orderId: p.orderId }), 400, /cnpTxnId or orderId is required/],
    ["an unknown cnpTxnId", () => ({ cnpTxnId: "123456789012345678" }), 404, /No approved authorization or sale with cnpTxnId 123456789012345678/],
    ["a non-numeric cnpTxnId", () => ({ cnpTxnId: "abc" }), 400, /cnpTxnId must be/],
    ["an unknown orderId", () => ({ orderId: "never-used" }), 404, /orderId never-used/],
    ["another merchant's orderId", (/** @type {Obj} */ p) => ({ orderId: p.orderId, merchantId: otherCreds.merchantId }), 404, /at merchant/],
    ["an amount above the payment's", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, amount: 5001 }), 400, /amount must be a whole number of minor units from 1 to 5000/],
    ["a zero amount", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, amount: 0 }), 400, /amount/],
    ["a fractional amount", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, amount: 10.5 }), 400, /amount must be a whole number/],
    ["an unknown reason code without description", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, reasonCode: "77" }), 400, /reasonCodeDescription is required for reason code 77/],
    ["an unknown cycle", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, cycle: "Second Chargeback" }), 400, /cycle must be one of First Chargeback/],
    ["a malformed replyBy", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, replyBy: "2025-02-30" }), 400, /replyBy must be a date/],
    ["a lower-case currency", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, currency: "usd" }), 400, /currency must be an ISO 4217 code/],
    ["an unknown field", (/** @type {Obj} */ p) => ({ cnpTxnId: p.cnpTxnId, colour: "red" }), 400, /Unknown field: colour/],
  ])("refuses %s", async (_, body, status, message) => {
    const payment = await pay();
    const before = (await control(url, "/chargebacks")).body.count;
    const res = await control(url, "/chargebacks", body(payment));
    expect(res.status).toBe(status);
    expect(res.body.error).toMatch(message);
    expect((await control(url, "/chargebacks")).body.count).toBe(before);
  });

  test("refuses declined payments and follow-ups: only approved authorizations and sales are disputed", async () => {
    const declining = await tokenFor("4000000000009995");
    const declined = await postCnp(url, cnpRequest(creds, `<authorization id="dcl" reportGroup="rg"><orderId>dcl</orderId><amount>100</amount><orderSource>ecommerce</orderSource><token><cnpToken>${declining}</cnpToken></token></authorization>`));
    expect(declined.envelope.authorizationResponse.response).toBe("110");
    expect((await control(url, "/chargebacks", { cnpTxnId: declined.envelope.authorizationResponse.cnpTxnId })).status).toBe(404);
    const payment = await pay();
    const capture = await postCnp(url, cnpRequest(creds, `<capture id="cap${seq}" reportGroup="rg"><cnpTxnId>${payment.cnpTxnId}</cnpTxnId></capture>`));
    expect((await control(url, "/chargebacks", { cnpTxnId: capture.envelope.captureResponse.cnpTxnId })).status).toBe(404);
  });

  test("bulk: every case is checked before any is raised", async () => {
    const a = await pay();
    const b = await pay();
    const before = (await control(url, "/chargebacks")).body.count;
    const bad = await control(url, "/chargebacks/bulk", { cases: [{ cnpTxnId: a.cnpTxnId }, { cnpTxnId: b.cnpTxnId, amount: -1 }] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/^cases\[1\]\.amount must be/);
    expect((await control(url, "/chargebacks")).body.count).toBe(before);

    const good = await control(url, "/chargebacks/bulk", { cases: [{ cnpTxnId: a.cnpTxnId }, { orderId: b.orderId, reasonCode: "4863" }] });
    expect(good.status).toBe(201);
    expect(good.body).toEqual({
      items: [
        { caseId: expect.stringMatching(/^\d{12}$/), merchantId: creds.merchantId, vantivCnpTxnId: a.cnpTxnId, orderId: a.orderId },
        { caseId: expect.stringMatching(/^\d{12}$/), merchantId: creds.merchantId, vantivCnpTxnId: b.cnpTxnId, orderId: b.orderId },
      ],
      count: 2,
    });
    expect((await control(url, "/chargebacks")).body.count).toBe(before + 2);
    expect((await control(url, `/chargebacks/${good.body.items[1].caseId}`)).body.reasonCode).toBe("4863");
  });

  test.each([
    [{ cases: [] }, /cases must be an array of 1 to 10000/],
    [{ cases: "x" }, /cases must be an array/],
    [{ cases: [{ cnpTxnId: "1" }], extra: 1 }, /Unknown field: extra/],
    [{ cases: [3] }, /^cases\[0\] must be a JSON object$/],
  ])("bulk refuses %j", async (body, message) => {
    const res = await control(url, "/chargebacks/bulk", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(message);
  });

  test("bulk raises 10,000 cases in one call", async () => {
    // In a process of its own: raising and listing 10,000 cases keeps a CPU busy for seconds,
    // which would stall this process's keep-alive connections to the shared sandbox.
    const child = spawn(process.execPath, ["-e", `require(${JSON.stringify(path.join(__dirname, "..", "..", "..", "dist", "index.js"))}).startSandbox({ logger: false }).then((s) => console.log(s.url))`], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const bigUrl = await new Promise((resolve, reject) => {
        child.stdout.once("data", (chunk) => resolve(String(chunk).trim()));
        child.once("exit", (code) => reject(new Error(`the sandbox exited with ${code}`)));
      });
      const who = (await createAccount(bigUrl)).processor;
      const token = (await postCnp(bigUrl, cnpRequest(who, `<registerTokenRequest reportGroup="rg"><accountNumber>4111111111111111</accountNumber></registerTokenRequest>`))).envelope.registerTokenResponse.cnpToken;
      const auth = await postCnp(bigUrl, cnpRequest(who, `<authorization id="big" reportGroup="rg"><orderId>big</orderId><amount>100</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token></authorization>`));
      const cnpTxnId = auth.envelope.authorizationResponse.cnpTxnId;
      const res = await control(bigUrl, "/chargebacks/bulk", { cases: Array.from({ length: 10_000 }, () => ({ cnpTxnId })) });
      expect(res.status).toBe(201);
      expect(res.body.count).toBe(10_000);
      expect(new Set(res.body.items.map((/** @type {Obj} */ i) => i.caseId)).size).toBe(10_000);
      const listed = await fetch(`${bigUrl}/chargebacks?actionable=true`, { headers: { Authorization: basic(who) } });
      expect((parser.parse(await listed.text()).chargebackRetrievalResponse.chargebackCase ?? []).length).toBe(10_000);
    } finally {
      child.kill();
    }
  }, 60_000);
});

describe("control API: cases, decisions, documents", () => {
  test("list filters by merchantId and queue; get one; 404 for an unknown case", async () => {
    const { kase } = await newCase();
    const mine = await control(url, `/chargebacks?merchantId=${creds.merchantId}&queue=Merchant`);
    expect(mine.body.items.map((/** @type {Obj} */ c) => c.caseId)).toContain(kase.caseId);
    expect(mine.body.items.every((/** @type {Obj} */ c) => c.merchantId === creds.merchantId && c.currentQueue === "Merchant")).toBe(true);
    expect(mine.body.count).toBe(mine.body.items.length);
    expect((await control(url, `/chargebacks?merchantId=${otherCreds.merchantId}`)).body.items.map((/** @type {Obj} */ c) => c.caseId)).not.toContain(kase.caseId);
    expect((await control(url, `/chargebacks/${kase.caseId}`)).body).toEqual(kase);
    const unknown = await control(url, "/chargebacks/123");
    expect(unknown).toMatchObject({ status: 404, body: { error: "Chargeback case not found" } });
  });

  test("decide won: the money comes back and the case closes at the network; a closed case cannot be decided again", async () => {
    const { kase } = await newCase();
    expect((await updateCase(kase.caseId, "MERCHANT_REPRESENT", "<representedAmount>3000</representedAmount>")).status).toBe(200);
    const won = await control(url, `/chargebacks/${kase.caseId}/decide`, { outcome: "won", note: "Issuer accepted the evidence" });
    expect(won.status).toBe(200);
    expect(won.body.currentQueue).toBe("Network Assumed");
    expect(won.body.activities[0]).toEqual({
      activityDate: today(),
      activityType: "Case Won",
      fromQueue: "Vantiv",
      toQueue: "Network Assumed",
      settlementAmount: 3000,
      settlementCurrencyType: "USD",
      notes: "Issuer accepted the evidence",
    });
    const again = await control(url, `/chargebacks/${kase.caseId}/decide`, { outcome: "lost" });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/already closed \(queue Network Assumed\)/);
    expect((await getCase(kase.caseId)).activity[0].activityType).toBe("Case Won");
  });

  test("decide lost: the case stays the merchant's loss", async () => {
    const { kase } = await newCase();
    const lost = await control(url, `/chargebacks/${kase.caseId}/decide`, { outcome: "lost" });
    expect(lost.body.currentQueue).toBe("Merchant Assumed");
    expect(lost.body.activities[0]).toEqual({ activityDate: today(), activityType: "Case Lost", fromQueue: "Merchant", toQueue: "Merchant Assumed" });
  });

  test.each([
    [{ outcome: "draw" }, 400, /outcome must be "won" or "lost"/],
    [{ outcome: "won", why: 1 }, 400, /Unknown field: why/],
  ])("decide refuses %j", async (body, status, message) => {
    const { kase } = await newCase();
    const res = await control(url, `/chargebacks/${kase.caseId}/decide`, body);
    expect(res.status).toBe(status);
    expect(res.body.error).toMatch(message);
    expect((await control(url, "/chargebacks/999/decide", { outcome: "won" })).status).toBe(404);
  });

  test("documents are listed with their size and digest, and their bytes can be read back", async () => {
    const { kase } = await newCase();
    expect(docAnswer(await upload(kase.caseId, "receipt.pdf", PDF)).responseCode).toBe("000");
    const listed = (await control(url, `/chargebacks/${kase.caseId}`)).body.documents;
    expect(listed).toEqual([
      {
        documentId: "receipt.pdf",
        contentType: "application/pdf",
        size: PDF.length,
        sha256: crypto.createHash("sha256").update(PDF).digest("hex"),
        uploadedAt: expect.any(String),
        replacedAt: null,
      },
    ]);
    const bytes = await call(url, `/__sandbox/chargebacks/${kase.caseId}/documents/receipt.pdf`);
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get("content-type")).toBe("application/pdf");
    expect(bytes.bytes.equals(PDF)).toBe(true);
    expect((await control(url, `/chargebacks/${kase.caseId}/documents/nope.pdf`)).status).toBe(404);
  });
});

describe("authentication: HTTP Basic with the processor user and password", () => {
  test.each([
    ["no Authorization header", { who: null }],
    ["a wrong password", { authorization: `Basic ${Buffer.from("x:y").toString("base64")}` }],
    ["another scheme", { authorization: "Bearer abc" }],
    ["no colon", { authorization: `Basic ${Buffer.from("justuser").toString("base64")}` }],
  ])("%s: 401 errorResponse", async (_, options) => {
    const kase = (await newCase()).kase;
    for (const route of [`/chargebacks/${kase.caseId}`, "/chargebacks?actionable=true", `/services/chargebacks/list/${kase.caseId}`]) {
      const res = await api(route, options);
      expect(res.status).toBe(401);
      expect(res.type).toBe(XML_TYPE);
      expect(res.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
      expect(res.xml.errorResponse).toEqual({
        "@_xmlns": NS,
        errors: { error: ["You are not authorized to access this resource. Please check your credentials."] },
      });
    }
    const put = await updateCase(kase.caseId, "ADD_NOTE", "", /** @type {any} */ ({ user: "x", password: "y" }));
    expect(put.status).toBe(401);
    expect((await control(url, `/chargebacks/${kase.caseId}`)).body.activities).toHaveLength(1);
  });

  test("another merchant's credentials do not see the case", async () => {
    const { kase } = await newCase();
    const res = await api(`/chargebacks/${kase.caseId}`, { who: otherCreds });
    expect(res.status).toBe(404);
    expect(res.xml.errorResponse.errors.error).toEqual(["Could not find requested object."]);
    const list = await api("/chargebacks?actionable=true", { who: otherCreds });
    expect((list.xml.chargebackRetrievalResponse.chargebackCase ?? []).map((/** @type {Obj} */ c) => c.caseId)).not.toContain(kase.caseId);
    expect((await updateCase(kase.caseId, "ADD_NOTE", "<note>x</note>", otherCreds)).status).toBe(404);
  });

  test("credentials and card numbers never reach the log", async () => {
    const { kase } = await newCase();
    await api(`/chargebacks/${kase.caseId}`);
    await updateCase(kase.caseId, "ADD_NOTE", "<note>log check</note>");
    await upload(kase.caseId, "log.pdf", PDF);
    await api(`/chargebacks/${kase.caseId}`, { authorization: `Basic ${Buffer.from(`${creds.user}:wrong-${creds.password}`).toString("base64")}` });
    await api("/chargebacks?cardNumber=5555555555554444&expirationDate=1230");
    const text = logs.join("\n");
    expect(text).toContain(`/chargebacks/${kase.caseId}`);
    expect(text).toContain("cardNumber=…4444");
    expect(text).not.toContain("5555555555554444");
    expect(text).not.toContain(creds.password);
    expect(text).not.toContain(Buffer.from(`${creds.user}:${creds.password}`).toString("base64"));
  });
});

describe("retrieval", () => {
  test("by case id: every field in the schema's order, activities newest first", async () => {
    const { payment, kase } = await newCase({ note: "first" });
    await updateCase(kase.caseId, "ADD_NOTE", "<note>second</note>");
    const res = await api(`/chargebacks/${kase.caseId}`);
    expect(res.status).toBe(200);
    expect(res.type).toBe(XML_TYPE);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = res.xml.chargebackRetrievalResponse;
    expect(body["@_xmlns"]).toBe(NS);
    expect(body.transactionId).toMatch(/^\d{16}$/);
    const c = body.chargebackCase[0];
    expect(Object.keys(c)).toEqual([
      "caseId",
      "merchantId",
      "dayIssuedByBank",
      "dateReceivedByVantivCnp",
      "vantivCnpTxnId",
      "cycle",
      "orderId",
      "cardNumberLast4",
      "cardType",
      "chargebackAmount",
      "chargebackCurrencyType",
      "originalTxnDay",
      "chargebackType",
      "reasonCode",
      "reasonCodeDescription",
      "currentQueue",
      "acquirerReferenceNumber",
      "chargebackReferenceNumber",
      "merchantTxnId",
      "bin",
      "token",
      "paymentAmount",
      "replyByDay",
      "activity",
    ]);
    expect(c).toMatchObject({
      caseId: kase.caseId,
      merchantId: creds.merchantId,
      vantivCnpTxnId: payment.cnpTxnId,
      orderId: payment.orderId,
      chargebackAmount: "5000",
      paymentAmount: "5000",
      currentQueue: "Merchant",
      acquirerReferenceNumber: kase.acquirerReferenceNumber,
      replyByDay: kase.replyByDay,
    });
    expect(c.activity).toEqual([
      { activityDate: today(), activityType: "Add Note", fromQueue: "Merchant", toQueue: "Merchant", notes: "second" },
      { activityDate: today(), activityType: "Assign To Merchant", fromQueue: "Vantiv", toQueue: "Merchant", settlementAmount: "5000", settlementCurrencyType: "USD", notes: "first" },
    ]);
  });

  test("an unknown or malformed case id is 404 errorResponse", async () => {
    for (const id of ["123456789012", "abc", "1".repeat(25)]) {
      const res = await api(`/chargebacks/${id}`);
      expect(res.status).toBe(404);
      expect(res.xml.errorResponse.errors.error).toEqual(["Could not find requested object."]);
    }
  });

  test("by activity date, optionally financial activity only (with or without the SDKs' trailing slash)", async () => {
    const { kase } = await newCase();
    // Reply-by two days ago: the case expired yesterday, a non-financial activity dated then.
    const expired = (await newCase({ replyBy: dayFromToday(-2) })).kase;
    const ids = async (/** @type {string} */ query) =>
      ((await api(`/chargebacks${query}`)).xml.chargebackRetrievalResponse.chargebackCase ?? []).map((/** @type {Obj} */ c) => c.caseId);
    expect(await ids(`?date=${today()}`)).toEqual(expect.arrayContaining([kase.caseId, expired.caseId]));
    expect(await ids(`/?date=${today()}&financialOnly=true`)).toEqual(expect.arrayContaining([kase.caseId, expired.caseId]));
    const yesterday = dayFromToday(-1);
    expect(await ids(`?date=${yesterday}`)).toContain(expired.caseId);
    expect(await ids(`?date=${yesterday}`)).not.toContain(kase.caseId);
    expect(await ids(`?date=${yesterday}&financialOnly=true`)).not.toContain(expired.caseId);
    expect(await ids(`?date=${yesterday}&financialOnly=false`)).toContain(expired.caseId);
    expect(await ids("?date=2001-01-01")).toEqual([]);
  });

  test("actionable: the cases waiting for the merchant", async () => {
    const open = (await newCase()).kase;
    const done = (await newCase()).kase;
    await updateCase(done.caseId, "MERCHANT_ACCEPTS_LIABILITY");
    const ids = async (/** @type {string} */ flag) =>
      ((await api(`/chargebacks?actionable=${flag}`)).xml.chargebackRetrievalResponse.chargebackCase ?? []).map((/** @type {Obj} */ c) => c.caseId);
    expect(await ids("true")).toContain(open.caseId);
    expect(await ids("true")).not.toContain(done.caseId);
    expect(await ids("false")).toContain(done.caseId);
    expect(await ids("false")).not.toContain(open.caseId);
  });

  test("by token, by card number with expiration date, by ARN", async () => {
    const card = "378282246310005";
    const payment = await pay({ card, expDate: "0930" });
    const kase = await raise({ cnpTxnId: payment.cnpTxnId });
    expect(kase).toMatchObject({ cardType: "AX", reasonCode: "F29", cardNumberLast4: "0005" });
    const ids = async (/** @type {string} */ query) =>
      ((await api(`/chargebacks?${query}`)).xml.chargebackRetrievalResponse.chargebackCase ?? []).map((/** @type {Obj} */ c) => c.caseId);
    expect(await ids(`token=${payment.token}`)).toEqual([kase.caseId]);
    expect(await ids(`cardNumber=${card}&expirationDate=0930`)).toEqual([kase.caseId]);
    expect(await ids(`cardNumber=${card}&expirationDate=1030`)).toEqual([]);
    expect(await ids(`arn=${kase.acquirerReferenceNumber}`)).toEqual([kase.caseId]);
    expect(await ids("arn=1")).toEqual([]);
  });

  test("an empty result is a response with a transactionId and no case", async () => {
    const res = await api("/chargebacks?arn=0");
    expect(res.status).toBe(200);
    expect(res.xml.chargebackRetrievalResponse).toEqual({ "@_xmlns": NS, transactionId: expect.stringMatching(/^\d{16}$/) });
  });

  test.each([
    ["no search", "", /search by date/],
    ["an unknown parameter", "?colour=red", /search by date/],
    ["two searches", "?actionable=true&arn=1", /search by date/],
    ["financialOnly without date", "?financialOnly=true", /search by date/],
    ["cardNumber without expirationDate", "?cardNumber=4111111111111111", /search by date/],
    ["a repeated parameter", "?arn=1&arn=2", /arn is given more than once/],
    ["a malformed date", "?date=2025-13-01", /date must be a date, YYYY-MM-DD/],
    ["a non-boolean actionable", "?actionable=yes", /actionable must be true or false/],
    ["a non-boolean financialOnly", `?date=2025-01-01&financialOnly=1`, /financialOnly must be true or false/],
    ["a short card number", "?cardNumber=4111&expirationDate=1230", /cardNumber must be 13 to 19 digits/],
    ["a malformed expirationDate", "?cardNumber=4111111111111111&expirationDate=2030-12", /expirationDate must be MMYY/],
    ["an empty token", "?token=", /token must not be empty/],
  ])("%s: 400 errorResponse", async (_, query, detail) => {
    const res = await api(`/chargebacks${query}`);
    expect(res.status).toBe(400);
    expect(res.type).toBe(XML_TYPE);
    expect(res.xml.errorResponse.errors.error[0]).toBe(BAD_REQUEST);
    expect(res.xml.errorResponse.errors.error[1]).toMatch(detail);
  });
});

describe("updates", () => {
  test("ADD_NOTE: recorded, the case stays where it is, also once closed", async () => {
    const { kase } = await newCase();
    const res = await updateCase(kase.caseId, "ADD_NOTE", "<note>Called the customer &amp; sent the receipt</note>");
    expect(res.status).toBe(200);
    expect(res.type).toBe(XML_TYPE);
    expect(res.xml.chargebackUpdateResponse).toEqual({ "@_xmlns": NS, transactionId: expect.stringMatching(/^\d{16}$/) });
    const after = await getCase(kase.caseId);
    expect(after.currentQueue).toBe("Merchant");
    expect(after.activity[0]).toEqual({ activityDate: today(), activityType: "Add Note", fromQueue: "Merchant", toQueue: "Merchant", notes: "Called the customer & sent the receipt" });
    await updateCase(kase.caseId, "MERCHANT_ACCEPTS_LIABILITY");
    expect((await updateCase(kase.caseId, "ADD_NOTE", "<note>after closing</note>")).status).toBe(200);
    expect((await getCase(kase.caseId)).activity[0]).toMatchObject({ activityType: "Add Note", fromQueue: "Merchant Assumed", toQueue: "Merchant Assumed" });
  });

  test("MERCHANT_REPRESENT with an amount: to Worldpay's queue, the amount on the case and its activity", async () => {
    const { kase } = await newCase();
    expect((await updateCase(kase.caseId, "MERCHANT_REPRESENT", "<note>Scan proves the card was present</note><representedAmount>4000</representedAmount>")).status).toBe(200);
    const after = await getCase(kase.caseId);
    expect(after).toMatchObject({ currentQueue: "Vantiv", representedAmount: "4000", representedCurrencyType: "USD" });
    expect(after.activity[0]).toEqual({
      activityDate: today(),
      activityType: "Merchant Represent",
      fromQueue: "Merchant",
      toQueue: "Vantiv",
      settlementAmount: "4000",
      settlementCurrencyType: "USD",
      notes: "Scan proves the card was present",
    });
    // A retried represent (its answer lost) is refused: the case is no longer the merchant's.
    const again = await updateCase(kase.caseId, "MERCHANT_REPRESENT");
    expect(again.status).toBe(400);
    expect(again.xml.errorResponse.errors.error).toEqual([`Cannot perform activity <Merchant Represent> for case <${kase.caseId}> in queue <Vantiv>`]);
  });

  test("MERCHANT_REPRESENT without an amount represents the whole chargeback", async () => {
    const { kase } = await newCase({ amount: 1234 });
    await updateCase(kase.caseId, "MERCHANT_REPRESENT");
    const after = (await control(url, `/chargebacks/${kase.caseId}`)).body;
    expect(after).toMatchObject({ representedAmount: 1234, currentQueue: "Vantiv" });
    expect(after.activities[0]).toEqual({ activityDate: today(), activityType: "Merchant Represent", fromQueue: "Merchant", toQueue: "Vantiv" });
  });

  test("MERCHANT_ACCEPTS_LIABILITY once; the second time is Worldpay's 400", async () => {
    const { kase } = await newCase();
    expect((await updateCase(kase.caseId, "MERCHANT_ACCEPTS_LIABILITY", "<note>Cert test4</note>")).status).toBe(200);
    const after = await getCase(kase.caseId);
    expect(after.currentQueue).toBe("Merchant Assumed");
    expect(after.activity[0]).toMatchObject({ activityType: "Merchant Accepts Liability", notes: "Cert test4", toQueue: "Merchant Assumed" });
    const again = await updateCase(kase.caseId, "MERCHANT_ACCEPTS_LIABILITY", "<note>Cert test5_1</note>");
    expect(again.status).toBe(400);
    expect(again.xml.errorResponse.errors.error).toEqual([`Cannot perform activity <Merchant Accepts Liability> for case <${kase.caseId}> in queue <Merchant Assumed>`]);
    expect((await getCase(kase.caseId)).activity).toHaveLength(2);
  });

  test("ASSIGN_TO_USER needs assignedTo and records it", async () => {
    const { kase } = await newCase();
    const missing = await updateCase(kase.caseId, "ASSIGN_TO_USER");
    expect(missing.status).toBe(400);
    expect(missing.xml.errorResponse.errors.error[0]).toMatch(/Cannot perform activity <Assign To User> .* without assignedTo/);
    expect((await updateCase(kase.caseId, "ASSIGN_TO_USER", "<assignedTo>disputes-team</assignedTo><note>yours</note>")).status).toBe(200);
    expect((await getCase(kase.caseId)).activity[0]).toEqual({
      activityDate: today(),
      activityType: "Assign To User",
      fromQueue: "Merchant",
      toQueue: "Merchant",
      notes: "yours",
      assignedTo: "disputes-team",
    });
  });

  test("MERCHANT_RESPOND answers retrieval requests only; MERCHANT_REPRESENT answers chargebacks only", async () => {
    const retrieval = (await newCase({ cycle: "Retrieval Request" })).kase;
    const represent = await updateCase(retrieval.caseId, "MERCHANT_REPRESENT");
    expect(represent.status).toBe(400);
    expect(represent.xml.errorResponse.errors.error).toEqual([`Cannot perform activity <Merchant Represent> for case <${retrieval.caseId}> in cycle <Retrieval Request>`]);
    expect((await updateCase(retrieval.caseId, "MERCHANT_RESPOND", "<note>copy of the receipt</note>")).status).toBe(200);
    expect((await getCase(retrieval.caseId)).activity[0]).toMatchObject({ activityType: "Merchant Respond", toQueue: "Vantiv" });

    const chargeback = (await newCase()).kase;
    const respond = await updateCase(chargeback.caseId, "MERCHANT_RESPOND");
    expect(respond.status).toBe(400);
    expect(respond.xml.errorResponse.errors.error[0]).toMatch(/in cycle <First Chargeback>/);
  });

  test("MERCHANT_REQUESTS_ARBITRATION after a declined pre-arbitration only", async () => {
    const first = (await newCase()).kase;
    expect((await updateCase(first.caseId, "MERCHANT_REQUESTS_ARBITRATION")).status).toBe(400);
    const declined = (await newCase({ cycle: "Issuer Declined Pre-Arbitration" })).kase;
    expect((await updateCase(declined.caseId, "MERCHANT_REQUESTS_ARBITRATION", "<note>to the network</note>")).status).toBe(200);
    expect((await getCase(declined.caseId))).toMatchObject({ currentQueue: "Vantiv", cycle: "Issuer Declined Pre-Arbitration" });
    expect((await getCase(declined.caseId)).activity[0]).toMatchObject({ activityType: "Merchant Requests Arbitration" });
  });

  test("a case past its reply-by day has gone to the merchant's loss, and is no longer answerable", async () => {
    const { kase } = await newCase({ replyBy: dayFromToday(-1) });
    const after = await getCase(kase.caseId);
    expect(after.currentQueue).toBe("Merchant Assumed");
    expect(after.activity[0]).toEqual({
      activityDate: today(),
      activityType: "Reply Period Expired",
      fromQueue: "Merchant",
      toQueue: "Merchant Assumed",
      notes: `No response by ${dayFromToday(-1)}`,
    });
    const represent = await updateCase(kase.caseId, "MERCHANT_REPRESENT");
    expect(represent.status).toBe(400);
    expect(represent.xml.errorResponse.errors.error[0]).toMatch(/in queue <Merchant Assumed>/);
    expect((await getCase(kase.caseId)).activity).toHaveLength(2);
  });

  test("a representedAmount above the chargeback is refused", async () => {
    const { kase } = await newCase({ amount: 100 });
    const res = await updateCase(kase.caseId, "MERCHANT_REPRESENT", "<representedAmount>101</representedAmount>");
    expect(res.status).toBe(400);
    expect(res.xml.errorResponse.errors.error[0]).toMatch(/representedAmount must be from 1 to the chargeback amount \(100\)/);
    expect((await getCase(kase.caseId)).currentQueue).toBe("Merchant");
  });

  test.each([
    ["malformed XML", "<chargebackUpdateRequest><activityType>ADD_NOTE</chargebackUpdateRequest>", /not well-formed/],
    ["an empty body", "", /the request body is empty/],
    ["a DOCTYPE", '<!DOCTYPE x [<!ENTITY a "b">]><chargebackUpdateRequest/>', /DOCTYPE/],
    ["another root", "<chargebackRetrievalRequest/>", /root element must be <chargebackUpdateRequest>/],
    ["no activityType", `<chargebackUpdateRequest xmlns="${NS}"><note>x</note></chargebackUpdateRequest>`, /<activityType> must be one of ASSIGN_TO_USER/],
    ["an unknown activityType", `<chargebackUpdateRequest xmlns="${NS}"><activityType>MERCHANT_WINS</activityType></chargebackUpdateRequest>`, /<activityType> must be one of/],
    ["a note over 4000 characters", `<chargebackUpdateRequest xmlns="${NS}"><activityType>ADD_NOTE</activityType><note>${"n".repeat(4001)}</note></chargebackUpdateRequest>`, /<note> must be 1 to 4000 characters/],
    ["assignedTo over 25 characters", `<chargebackUpdateRequest xmlns="${NS}"><activityType>ASSIGN_TO_USER</activityType><assignedTo>${"a".repeat(26)}</assignedTo></chargebackUpdateRequest>`, /<assignedTo> must be 1 to 25 characters/],
    ["a non-numeric representedAmount", `<chargebackUpdateRequest xmlns="${NS}"><activityType>MERCHANT_REPRESENT</activityType><representedAmount>10.50</representedAmount></chargebackUpdateRequest>`, /<representedAmount> must be a whole number/],
    ["an unknown element", `<chargebackUpdateRequest xmlns="${NS}"><activityType>ADD_NOTE</activityType><outcome>won</outcome></chargebackUpdateRequest>`, /<outcome> is not an element/],
    ["a repeated note", `<chargebackUpdateRequest xmlns="${NS}"><activityType>ADD_NOTE</activityType><note>a</note><note>b</note></chargebackUpdateRequest>`, /<note> must occur once/],
  ])("%s: 400 errorResponse, nothing recorded", async (_, body, detail) => {
    const { kase } = await newCase();
    const res = await api(`/chargebacks/${kase.caseId}`, { method: "PUT", contentType: XML_TYPE, body });
    expect(res.status).toBe(400);
    expect(res.xml.errorResponse.errors.error[0]).toBe(BAD_REQUEST);
    expect(res.xml.errorResponse.errors.error[1]).toMatch(detail);
    expect((await getCase(kase.caseId)).activity).toHaveLength(1);
  });

  test("an update of an unknown case is 404", async () => {
    const res = await updateCase("123456789012", "ADD_NOTE", "<note>x</note>");
    expect(res.status).toBe(404);
    expect(res.xml.errorResponse.errors.error).toEqual(["Could not find requested object."]);
  });
});

describe("documents", () => {
  test("upload each accepted format, list, retrieve the bytes, replace, delete", async () => {
    const { kase } = await newCase();
    for (const [name, bytes, type] of /** @type {[string, Buffer, string][]} */ ([
      ["scan.pdf", PDF, "application/pdf"],
      ["scan.png", PNG, "image/png"],
      ["scan.jpg", JPEG, "image/jpeg"],
      ["scan.gif", GIF, "image/gif"],
      ["scan.tiff", TIFF, "image/tiff"],
    ])) {
      const res = await upload(kase.caseId, name, bytes, type);
      expect(res.status).toBe(200);
      expect(res.type).toBe(XML_TYPE);
      expect(docAnswer(res)).toEqual({ "@_xmlns": NS, merchantId: creds.merchantId, caseId: kase.caseId, documentId: [name], responseCode: "000", responseMessage: "Success" });
    }
    const list = docAnswer(await api(`/services/chargebacks/list/${kase.caseId}`));
    expect(list).toMatchObject({ caseId: kase.caseId, responseCode: "000", responseMessage: "Success" });
    expect(list.documentId).toEqual(["scan.pdf", "scan.png", "scan.jpg", "scan.gif", "scan.tiff"]);

    const got = await api(`/services/chargebacks/retrieve/${kase.caseId}/scan.png`);
    expect(got.status).toBe(200);
    expect(got.type).toBe("image/png");
    expect(got.bytes.equals(PNG)).toBe(true);

    expect(docAnswer(await upload(kase.caseId, "scan.png", JPEG, "image/jpeg", "PUT")).responseCode).toBe("000");
    const replaced = await api(`/services/chargebacks/retrieve/${kase.caseId}/scan.png`);
    expect(replaced.type).toBe("image/jpeg");
    expect(replaced.bytes.equals(JPEG)).toBe(true);
    expect((await control(url, `/chargebacks/${kase.caseId}`)).body.documents.find((/** @type {Obj} */ d) => d.documentId === "scan.png").replacedAt).toEqual(expect.any(String));

    const deleted = docAnswer(await api(`/services/chargebacks/delete/${kase.caseId}/scan.gif`, { method: "DELETE" }));
    expect(deleted).toMatchObject({ documentId: ["scan.gif"], responseCode: "000", responseMessage: "Success" });
    expect(docAnswer(await api(`/services/chargebacks/list/${kase.caseId}`)).documentId).toEqual(["scan.pdf", "scan.png", "scan.jpg", "scan.tiff"]);
    expect((await control(url, `/chargebacks/${kase.caseId}`)).body.documents).toHaveLength(4);
  });

  test("a case without documents lists none", async () => {
    const { kase } = await newCase();
    const list = docAnswer(await api(`/services/chargebacks/list/${kase.caseId}`));
    expect(list).toEqual({ "@_xmlns": NS, merchantId: creds.merchantId, caseId: kase.caseId, responseCode: "000", responseMessage: "Success" });
  });

  test("005 for an existing document id; 009 for a missing one on retrieve, replace and delete", async () => {
    const { kase } = await newCase();
    await upload(kase.caseId, "a.pdf", PDF);
    expect(docAnswer(await upload(kase.caseId, "a.pdf", PDF))).toMatchObject({ responseCode: "005", responseMessage: "Document already exists" });
    const missing = await api(`/services/chargebacks/retrieve/${kase.caseId}/b.pdf`);
    expect(missing.status).toBe(200);
    expect(missing.type).toBe(XML_TYPE);
    expect(docAnswer(missing)).toMatchObject({ documentId: ["b.pdf"], responseCode: "009", responseMessage: "Document Not Found" });
    expect(docAnswer(await upload(kase.caseId, "b.pdf", PDF, "application/pdf", "PUT"))).toMatchObject({ responseCode: "009" });
    expect(docAnswer(await api(`/services/chargebacks/delete/${kase.caseId}/b.pdf`, { method: "DELETE" }))).toMatchObject({ responseCode: "009" });
  });

  test.each([
    ["text declared as a PDF", Buffer.from("not a pdf"), "application/pdf"],
    ["a PNG declared as a JPEG", PNG, "image/jpeg"],
    ["a BMP", Buffer.concat([Buffer.from("BM"), Buffer.alloc(30)]), "image/bmp"],
    ["a Word document", Buffer.from("PK\u0003\u0004 word"), "application/msword"],
    ["plain text", Buffer.from("hello"), "text/plain"],
    ["an empty file", Buffer.alloc(0), "image/tiff"],
  ])("013 Invalid File Content: %s", async (_, bytes, type) => {
    const { kase } = await newCase();
    expect(docAnswer(await upload(kase.caseId, "x.pdf", bytes, type))).toMatchObject({ responseCode: "013", responseMessage: "Invalid File Content" });
    await upload(kase.caseId, "y.pdf", PDF);
    expect(docAnswer(await upload(kase.caseId, "y.pdf", bytes, type, "PUT"))).toMatchObject({ responseCode: "013" });
    expect((await control(url, `/chargebacks/${kase.caseId}`)).body.documents.map((/** @type {Obj} */ d) => d.documentId)).toEqual(["y.pdf"]);
  });

  test("a file without Content-Type is taken by its signature", async () => {
    const { kase } = await newCase();
    const res = await api(`/services/chargebacks/upload/${kase.caseId}/nameless`, { method: "POST", body: GIF });
    expect(docAnswer(res).responseCode).toBe("000");
    expect((await api(`/services/chargebacks/retrieve/${kase.caseId}/nameless`)).type).toBe("image/gif");
  });

  test("012 above the default 2 MiB limit, naming it", async () => {
    const { kase } = await newCase();
    const exactly = Buffer.concat([PDF, Buffer.alloc(2 * 1024 * 1024 - PDF.length, 0x20)]);
    expect(docAnswer(await upload(kase.caseId, "max.pdf", exactly)).responseCode).toBe("000");
    const over = Buffer.concat([exactly, Buffer.from(" ")]);
    expect(docAnswer(await upload(kase.caseId, "over.pdf", over))).toMatchObject({ responseCode: "012", responseMessage: "Filesize exceeds limit of 2MB" });
    expect(docAnswer(await upload(kase.caseId, "max.pdf", over, "application/pdf", "PUT"))).toMatchObject({ responseCode: "012" });
  });

  test("the limit is a sandbox option", async () => {
    const small = await startSandbox({ logger: false, maxDocumentBytes: 100 });
    try {
      const who = (await createAccount(small.url)).processor;
      const token = (await postCnp(small.url, cnpRequest(who, `<registerTokenRequest reportGroup="rg"><accountNumber>4111111111111111</accountNumber></registerTokenRequest>`))).envelope.registerTokenResponse.cnpToken;
      const auth = await postCnp(small.url, cnpRequest(who, `<sale id="s" reportGroup="rg"><orderId>o</orderId><amount>100</amount><orderSource>ecommerce</orderSource><token><cnpToken>${token}</cnpToken></token></sale>`));
      const kase = (await control(small.url, "/chargebacks", { cnpTxnId: auth.envelope.saleResponse.cnpTxnId })).body;
      const post = async (/** @type {Buffer} */ bytes) => {
        const res = await fetch(`${small.url}/services/chargebacks/upload/${kase.caseId}/f${bytes.length}.pdf`, {
          method: "POST",
          headers: { Authorization: basic(who), "Content-Type": "application/pdf" },
          body: /** @type {BodyInit} */ (bytes),
        });
        return parser.parse(await res.text()).chargebackDocumentUploadResponse;
      };
      expect((await post(Buffer.concat([PDF, Buffer.alloc(100 - PDF.length, 0x20)]))).responseCode).toBe("000");
      expect(await post(Buffer.concat([PDF, Buffer.alloc(101 - PDF.length, 0x20)]))).toMatchObject({ responseCode: "012", responseMessage: "Filesize exceeds limit of 100 bytes" });
    } finally {
      await small.close();
    }
    await expect(startSandbox({ logger: false, maxDocumentBytes: 0 })).rejects.toThrow(/maxDocumentBytes/);
    const cli = spawnSync(process.execPath, [path.join(__dirname, "..", "..", "..", "dist", "cli.js"), "--max-document-bytes", "big"], { encoding: "utf8" });
    expect(cli.status).toBe(2);
    expect(cli.stderr).toMatch(/--max-document-bytes must be a positive number of bytes/);
  });

  test("008 past ten documents on a case", async () => {
    const { kase } = await newCase();
    for (let i = 1; i <= 10; i++) expect(docAnswer(await upload(kase.caseId, `d${i}.pdf`, PDF)).responseCode).toBe("000");
    expect(docAnswer(await upload(kase.caseId, "d11.pdf", PDF))).toMatchObject({ responseCode: "008", responseMessage: "Max Document Limit Per Case Reached" });
    // Replacing is not adding.
    expect(docAnswer(await upload(kase.caseId, "d1.pdf", PNG, "image/png", "PUT")).responseCode).toBe("000");
  });

  test("004 once the case has left the merchant's queue; reading stays possible", async () => {
    const { kase } = await newCase();
    await upload(kase.caseId, "kept.pdf", PDF);
    await updateCase(kase.caseId, "MERCHANT_REPRESENT");
    expect(docAnswer(await upload(kase.caseId, "late.pdf", PDF))).toMatchObject({ responseCode: "004", responseMessage: "Case Not In Merchant Queue" });
    expect(docAnswer(await upload(kase.caseId, "kept.pdf", PDF, "application/pdf", "PUT")).responseCode).toBe("004");
    expect(docAnswer(await api(`/services/chargebacks/delete/${kase.caseId}/kept.pdf`, { method: "DELETE" })).responseCode).toBe("004");
    expect(docAnswer(await api(`/services/chargebacks/list/${kase.caseId}`)).documentId).toEqual(["kept.pdf"]);
    expect((await api(`/services/chargebacks/retrieve/${kase.caseId}/kept.pdf`)).bytes.equals(PDF)).toBe(true);
  });

  test("010 in a cycle that takes no evidence", async () => {
    const { kase } = await newCase({ cycle: "Arbitration" });
    expect(docAnswer(await upload(kase.caseId, "a.pdf", PDF))).toMatchObject({ responseCode: "010", responseMessage: "Case not in valid cycle" });
  });

  test("003 for an unknown case or another merchant's", async () => {
    const { kase } = await newCase();
    const unknown = docAnswer(await upload("123456789012", "a.pdf", PDF));
    expect(unknown).toEqual({ "@_xmlns": NS, merchantId: creds.merchantId, caseId: "123456789012", documentId: ["a.pdf"], responseCode: "003", responseMessage: "Case Not Found" });
    const theirs = await api(`/services/chargebacks/upload/${kase.caseId}/a.pdf`, { method: "POST", who: otherCreds, body: PDF, contentType: "application/pdf" });
    expect(docAnswer(theirs)).toMatchObject({ merchantId: otherCreds.merchantId, responseCode: "003" });
    expect(docAnswer(await api(`/services/chargebacks/list/${kase.caseId}`, { who: otherCreds })).responseCode).toBe("003");
    expect(docAnswer(await api(`/services/chargebacks/retrieve/${kase.caseId}/a.pdf`, { who: otherCreds })).responseCode).toBe("003");
    expect((await control(url, `/chargebacks/${kase.caseId}`)).body.documents).toEqual([]);
  });

  test.each([["a%2Fb.pdf"], ["%3Cscript%3E.pdf"], [encodeURIComponent("x".repeat(101))], ["a%22.pdf"]])("400 errorResponse for the document id %s", async (id) => {
    const { kase } = await newCase();
    const res = await api(`/services/chargebacks/upload/${kase.caseId}/${id}`, { method: "POST", body: PDF, contentType: "application/pdf" });
    expect(res.status).toBe(400);
    expect(res.xml.errorResponse.errors.error[1]).toMatch(/document id must be 1 to 100/);
  });
});

describe("faults and stats", () => {
  test("every route is counted under its own name", async () => {
    const { kase } = await newCase();
    await control(url, "/reset-stats", {});
    await api(`/chargebacks/${kase.caseId}`);
    await api("/chargebacks?actionable=true");
    await updateCase(kase.caseId, "ADD_NOTE", "<note>n</note>");
    await upload(kase.caseId, "s.pdf", PDF);
    await api(`/services/chargebacks/retrieve/${kase.caseId}/s.pdf`);
    await upload(kase.caseId, "s.pdf", PDF, "application/pdf", "PUT");
    await api(`/services/chargebacks/list/${kase.caseId}`);
    await api(`/services/chargebacks/delete/${kase.caseId}/s.pdf`, { method: "DELETE" });
    await api("/chargebacks/1", { who: null }); // refused requests count too
    const stats = (await control(url, "/stats")).body;
    expect(stats.requests).toMatchObject({
      "chargebacks.retrieve": 3,
      "chargebacks.update": 1,
      "chargebacks.document.upload": 1,
      "chargebacks.document.retrieve": 1,
      "chargebacks.document.replace": 1,
      "chargebacks.document.delete": 1,
      "chargebacks.document.list": 1,
    });
    expect(stats.total).toBe(9);
  });

  test("errorRate 1: 503 on every chargeback route, the control API untouched", async () => {
    const { kase } = await newCase();
    await control(url, "/faults", { errorRate: 1 });
    for (const [route, method] of [
      [`/chargebacks/${kase.caseId}`, "GET"],
      [`/chargebacks/${kase.caseId}`, "PUT"],
      [`/services/chargebacks/list/${kase.caseId}`, "GET"],
      [`/services/chargebacks/upload/${kase.caseId}/x.pdf`, "POST"],
    ]) {
      const res = await api(route, { method, body: method === "GET" ? undefined : PDF });
      expect({ route, method, status: res.status }).toEqual({ route, method, status: 503 });
      expect(JSON.parse(res.text)).toEqual({ error: "Service unavailable" });
    }
    expect((await control(url, `/chargebacks/${kase.caseId}`)).status).toBe(200);
    expect((await control(url, "/chargebacks", { cnpTxnId: kase.vantivCnpTxnId })).status).toBe(201);
    await control(url, "/faults", undefined, "DELETE");
    expect((await control(url, `/chargebacks/${kase.caseId}`)).body.documents).toEqual([]);
  });

  test("resetRate 1 drops the connection; latencyMs delays the answer", async () => {
    const { kase } = await newCase();
    await control(url, "/faults", { resetRate: 1 });
    await expect(fetch(`${url}/chargebacks/${kase.caseId}`, { headers: { Authorization: basic(creds) } })).rejects.toThrow();
    await control(url, "/faults", { resetRate: null, latencyMs: 150 });
    const started = Date.now();
    expect((await api(`/services/chargebacks/list/${kase.caseId}`)).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  test("dropResponse on chargebacks.update: the represent is recorded, its answer lost, the retry refused", async () => {
    const { kase } = await newCase();
    await control(url, "/faults", { dropResponse: { route: "chargebacks.update", count: 1 } });
    await expect(updateCase(kase.caseId, "MERCHANT_REPRESENT", "<note>lost answer</note>")).rejects.toThrow();
    const after = (await control(url, `/chargebacks/${kase.caseId}`)).body;
    expect(after.currentQueue).toBe("Vantiv");
    expect(after.activities[0]).toMatchObject({ activityType: "Merchant Represent", notes: "lost answer" });
    expect((await updateCase(kase.caseId, "MERCHANT_REPRESENT")).status).toBe(400);
  });

  test("dropResponse on chargebacks.document.upload: the document is stored, then 005 on the retry", async () => {
    const { kase } = await newCase();
    await control(url, "/faults", { dropResponse: { route: "chargebacks.document.upload", count: 1 } });
    await expect(upload(kase.caseId, "once.pdf", PDF)).rejects.toThrow();
    expect((await control(url, `/chargebacks/${kase.caseId}`)).body.documents.map((/** @type {Obj} */ d) => d.documentId)).toEqual(["once.pdf"]);
    expect(docAnswer(await upload(kase.caseId, "once.pdf", PDF)).responseCode).toBe("005");
  });
});
