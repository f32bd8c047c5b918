// @ts-check
"use strict";

const jpeg = require("jpeg-js");
const { startSandbox } = require("../dist/index");
const { useSandbox, control, createAccount, submitCard, call, UUID_V4 } = require("./helpers");

const t = useSandbox();
/** @type {Awaited<ReturnType<typeof createAccount>>} */
let account;

beforeAll(async () => {
  account = await createAccount(t.url);
});

/** @param {string} [accountId] */
async function newScan(accountId = account.accountId, cardNumber = undefined) {
  const res = await control(t.url, "/scans", cardNumber ? { accountId, cardNumber } : { accountId });
  expect(res.status).toBe(201);
  return /** @type {string} */ (res.body.scanId);
}

/**
 * @param {string} scanId
 * @param {"valid" | "invalid"} groundTruth
 */
async function label(scanId, groundTruth) {
  expect((await control(t.url, `/scans/${scanId}/label`, { groundTruth })).status).toBe(200);
}

/**
 * @param {string | undefined} body
 * @param {{ key?: string, contentType?: string | null, url?: string }} [options]
 */
function putProofRequest(body, options = {}) {
  return call(options.url ?? t.url, "/disputes/proofRequest", { method: "PUT", key: options.key ?? account.keys.secret, body, contentType: options.contentType });
}

/** @param {string[]} ids */
async function proofRequest(ids, key = account.keys.secret, url = t.url) {
  const res = await putProofRequest(JSON.stringify(ids), { key, url });
  expect(res.status).toBe(200);
  const body = JSON.parse(res.text);
  expect(Object.keys(body)).toEqual(["id"]);
  expect(body.id).toMatch(UUID_V4);
  return /** @type {string} */ (body.id);
}

/** @param {string} id */
async function proof(id, key = account.keys.secret, url = t.url) {
  const res = await call(url, `/disputes/proof/${id}`, { key });
  return { status: res.status, headers: res.headers, body: JSON.parse(res.text) };
}

/** @param {string} scanId */
function image(scanId, key = account.keys.secret) {
  return call(t.url, `/disputes/image/${scanId}.jpg`, { key });
}

describe("PUT /disputes/proofRequest", () => {
  test("returns only { id } and stores a pending proof request owned by the key's account", async () => {
    const scanId = await newScan();
    const id = await proofRequest([scanId]);
    expect(await proof(id)).toMatchObject({ status: 200, body: { status: "pending" } });
    const list = await control(t.url, `/proof-requests?accountId=${account.accountId}`);
    expect(list.body.items.find((/** @type {any} */ p) => p.id === id)).toMatchObject({ accountId: account.accountId, scanIds: [scanId], status: "pending" });
  });

  test.each([
    ["no body", undefined, undefined],
    ["an empty body", "", undefined],
    ["a whitespace body", "  \n", undefined],
    ["an empty array", "[]", undefined],
    ["JSON null", "null", undefined],
    ["a body not declared as JSON (Content-Type text/plain)", JSON.stringify(["f47ac10b-58cc-4372-a567-0e02b2c3d479"]), "text/plain"],
    ["a body without Content-Type", JSON.stringify(["f47ac10b-58cc-4372-a567-0e02b2c3d479"]), null],
  ])("400 Empty body for %s", async (_what, body, contentType) => {
    const res = await putProofRequest(body, { contentType });
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toEqual({ error: "Invalid request. Empty body" });
  });

  test("Content-Type parameters are fine", async () => {
    const res = await putProofRequest(JSON.stringify([await newScan()]), { contentType: "application/json; charset=utf-8" });
    expect(res.status).toBe(200);
  });

  test.each([["{not json"], ["[\"a\",]"], ["'single'"]])("400 with an empty JSON object for unparseable JSON: %s", async (body) => {
    const res = await putProofRequest(body);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.text).toBe("{}");
  });

  test.each([
    ["a non-UUID string", ["not-a-uuid"]],
    ["a UUIDv1", ["f47ac10b-58cc-1372-a567-0e02b2c3d479"]],
    ["a bad variant", ["f47ac10b-58cc-4372-c567-0e02b2c3d479"]],
    ["a number", [42]],
    ["null in the array", [null]],
    ["one bad entry among good ones", ["f47ac10b-58cc-4372-a567-0e02b2c3d479", "nope"]],
    ["a JSON object", { scanIds: ["f47ac10b-58cc-4372-a567-0e02b2c3d479"] }],
    ["a JSON string", "f47ac10b-58cc-4372-a567-0e02b2c3d479"],
    ["a JSON number", 7],
  ])("400 At least one scan ID is not valid for %s", async (_what, value) => {
    const res = await putProofRequest(JSON.stringify(value));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: "Invalid request. At least one of the provided scan IDs is not valid" });
  });

  test("many scan ids in one request are fine; repeats are kept once", async () => {
    const ids = Array.from({ length: 2000 }, () => crypto.randomUUID());
    const scanId = await newScan();
    const id = await proofRequest([scanId, ...ids, scanId]);
    const list = await control(t.url, `/proof-requests?accountId=${account.accountId}`);
    expect(list.body.items.find((/** @type {any} */ p) => p.id === id).scanIds).toHaveLength(2001);
  });
});

describe("GET /disputes/proof/<id>", () => {
  test("complete results: valid scans carry an image URL, invalid ones do not", async () => {
    const good = await newScan();
    const bad = await newScan();
    const id = await proofRequest([good, bad]);
    await label(good, "valid");
    expect((await proof(id)).body).toEqual({ status: "pending" });
    await label(bad, "invalid");
    const res = await proof(id);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      status: "complete",
      scans: [
        { scanId: good, groundTruth: "valid", image: `${t.url}/disputes/image/${good}.jpg` },
        { scanId: bad, groundTruth: "invalid" },
      ],
    });
    expect(Object.keys(res.body.scans[1])).toEqual(["scanId", "groundTruth"]);
  });

  test("scan ids come back as submitted, even in upper case, and their image URL works", async () => {
    const scanId = await newScan();
    await label(scanId, "valid");
    const upper = scanId.toUpperCase();
    const id = await proofRequest([upper, scanId]);
    const res = await proof(id);
    expect(res.body.scans).toEqual([{ scanId: upper, groundTruth: "valid", image: `${t.url}/disputes/image/${upper}.jpg` }]);
    const img = await call(t.url, `/disputes/image/${upper}.jpg`, { key: account.keys.secret });
    expect(img.status).toBe(200);
    expect(img.headers.get("content-disposition")).toBe(`attachment; filename=${upper}.jpg`);
  });

  test("scan ids unknown to the account are left out of the results", async () => {
    const mine = await newScan();
    await label(mine, "valid");
    const other = await createAccount(t.url);
    const theirs = await newScan(other.accountId);
    const id = await proofRequest([crypto.randomUUID(), mine, theirs]);
    const res = await proof(id);
    expect(res.body.status).toBe("complete");
    expect(res.body.scans.map((/** @type {any} */ s) => s.scanId)).toEqual([mine]);
  });

  test("a proof request with no known scans completes immediately with no scans", async () => {
    const id = await proofRequest([crypto.randomUUID()]);
    expect((await proof(id)).body).toEqual({ status: "complete", scans: [] });
  });

  test("completion through the control API labels unlabelled scans by the test-card rule", async () => {
    const { formId: fraudScan } = await submitCard(t.url, account.keys.shareable, { number: "4000000000000259" }, { scanned: true });
    const { formId: goodScan } = await submitCard(t.url, account.keys.shareable, { number: "4111111111111111" }, { scanned: true });
    const cardless = await newScan();
    const id = await proofRequest([fraudScan, goodScan, cardless]);
    expect((await proof(id)).body.status).toBe("pending");
    const done = await control(t.url, `/proof-requests/${id}/complete`, {});
    expect(done).toMatchObject({ status: 200, body: { id, status: "complete" } });
    expect((await proof(id)).body.scans.map((/** @type {any} */ s) => [s.scanId, s.groundTruth])).toEqual([
      [fraudScan, "invalid"],
      [goodScan, "valid"],
      [cardless, "valid"],
    ]);
  });

  test("a labelled scan completes every pending proof request waiting on it", async () => {
    const scanId = await newScan();
    const a = await proofRequest([scanId]);
    const b = await proofRequest([scanId]);
    await label(scanId, "valid");
    expect((await proof(a)).body.status).toBe("complete");
    expect((await proof(b)).body.status).toBe("complete");
  });

  test("results are frozen at completion", async () => {
    const scanId = await newScan();
    const id = await proofRequest([scanId]);
    await label(scanId, "valid");
    await label(scanId, "invalid");
    expect((await proof(id)).body.scans[0].groundTruth).toBe("valid");
  });

  test("the image URL follows the host the client used", async () => {
    const scanId = await newScan();
    await label(scanId, "valid");
    const id = await proofRequest([scanId]);
    const port = new URL(t.url).port;
    const res = await fetch(`http://localhost:${port}/disputes/proof/${id}`, { headers: { "X-API-KEY": account.keys.secret } });
    expect((await res.json()).scans[0].image).toBe(`http://localhost:${port}/disputes/image/${scanId}.jpg`);
  });

  test("404 Proof request not found", async () => {
    for (const id of [crypto.randomUUID(), "nope"]) {
      const res = await proof(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "Proof request not found" });
    }
  });

  test("403 Forbidden for another account's proof request", async () => {
    const other = await createAccount(t.url);
    const id = await proofRequest([crypto.randomUUID()], other.keys.secret);
    const res = await proof(id);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: "Forbidden" });
  });
});

describe("GET /disputes/image/<scan_id>.jpg", () => {
  test("200 with real JPEG bytes and the attachment disposition", async () => {
    const scanId = await newScan();
    await label(scanId, "valid");
    const res = await image(scanId);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename=${scanId}.jpg`);
    expect([...res.bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect([...res.bytes.subarray(-2)]).toEqual([0xff, 0xd9]);
    const decoded = jpeg.decode(res.bytes);
    expect([decoded.width, decoded.height]).toEqual([320, 200]);
  });

  test("each scan has its own image, and the same scan always the same", async () => {
    const a = await newScan();
    const b = await newScan();
    await label(a, "valid");
    await label(b, "valid");
    const [ia, ib, ia2] = [await image(a), await image(b), await image(a)];
    expect(ia.bytes.equals(ib.bytes)).toBe(false);
    expect(ia.bytes.equals(ia2.bytes)).toBe(true);
  });

  test.each([
    ["a non-UUID id", "not-a-uuid.jpg"],
    ["a UUIDv1", "f47ac10b-58cc-1372-a567-0e02b2c3d479.jpg"],
    ["a missing .jpg", "f47ac10b-58cc-4372-a567-0e02b2c3d479"],
    ["another extension", "f47ac10b-58cc-4372-a567-0e02b2c3d479.png"],
  ])("400 Provided scan ID is not valid for %s", async (_what, file) => {
    const res = await call(t.url, `/disputes/image/${file}`, { key: account.keys.secret });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({ error: "Invalid request. Provided scan ID is not valid" });
  });

  test("400 plain-text Bad Request when verifying ownership fails", async () => {
    const scanId = await newScan();
    await label(scanId, "valid");
    await control(t.url, "/faults", { ownershipCheck: "fail" });
    try {
      const res = await image(scanId);
      expect(res.status).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(res.text).toBe("Bad Request");
      // The scan id is validated before ownership is checked.
      const invalid = await call(t.url, "/disputes/image/nope.jpg", { key: account.keys.secret });
      expect(JSON.parse(invalid.text)).toEqual({ error: "Invalid request. Provided scan ID is not valid" });
    } finally {
      await control(t.url, "/faults", undefined, "DELETE");
    }
    expect((await image(scanId)).status).toBe(200);
  });

  test("403 Forbidden for a scan labelled invalid", async () => {
    const scanId = await newScan();
    await label(scanId, "invalid");
    const res = await image(scanId);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toEqual({ error: "Forbidden" });
  });

  test("404 Image not found: unlabelled, another account's, or unknown", async () => {
    const unlabelled = await newScan();
    const other = await createAccount(t.url);
    const theirs = await newScan(other.accountId);
    await label(theirs, "valid");
    for (const scanId of [unlabelled, theirs, crypto.randomUUID()]) {
      const res = await image(scanId);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      expect(JSON.parse(res.text)).toEqual({ error: "Image not found" });
    }
  });

  test("404 plain-text Not Found when the labelled scan's image is gone", async () => {
    const scanId = await newScan();
    await label(scanId, "valid");
    expect((await image(scanId)).status).toBe(200);
    expect((await control(t.url, `/scans/${scanId}/image`, undefined, "DELETE")).status).toBe(204);
    const res = await image(scanId);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(res.text).toBe("Not Found");
  });
});

describe("the negative verdict's word", () => {
  test('fraudLabel "fraud" answers like the real service, and can be switched at runtime', async () => {
    const scanId = await newScan();
    await label(scanId, "invalid");
    const id = await proofRequest([scanId]);
    await control(t.url, "/settings", { fraudLabel: "fraud" });
    try {
      expect((await proof(id)).body.scans).toEqual([{ scanId, groundTruth: "fraud" }]);
    } finally {
      await control(t.url, "/settings", { fraudLabel: "invalid" });
    }
    expect((await proof(id)).body.scans).toEqual([{ scanId, groundTruth: "invalid" }]);
  });

  test("the fraudLabel start option", async () => {
    const sb = await startSandbox({ logger: false, fraudLabel: "fraud" });
    try {
      const res = await fetch(`${sb.url}/__sandbox/scans`, { method: "POST", body: JSON.stringify({ accountId: sb.demo.accountId }) });
      const { scanId } = await res.json();
      await fetch(`${sb.url}/__sandbox/scans/${scanId}/label`, { method: "POST", body: JSON.stringify({ groundTruth: "invalid" }) });
      const id = await proofRequest([scanId], sb.demo.keys.secret, sb.url);
      expect((await proof(id, sb.demo.keys.secret, sb.url)).body.scans).toEqual([{ scanId, groundTruth: "fraud" }]);
    } finally {
      await sb.close();
    }
  });
});

describe("automatic completion with proofDelayMs", () => {
  test("the sandbox labels scans by the test-card rule and completes by itself", async () => {
    const sb = await startSandbox({ logger: false, proofDelayMs: 150 });
    try {
      const origin = { "Content-Type": "application/json", Origin: "http://localhost:5173" };
      /** @param {string} number */
      const scanned = async (number) => {
        const res = await fetch(`${sb.url}/api/v1/forms`, {
          method: "POST",
          headers: origin,
          body: JSON.stringify({ key: sb.demo.keys.shareable, card: { number, cvv: "123", expiry: "12/40" }, scanned: true }),
        });
        return /** @type {string} */ ((await res.json()).formId);
      };
      const fraud = await scanned("4000000000000259");
      const good = await scanned("4457119922390123");
      const id = await proofRequest([fraud, good], sb.demo.keys.secret, sb.url);
      expect((await proof(id, sb.demo.keys.secret, sb.url)).body).toEqual({ status: "pending" });
      const deadline = Date.now() + 3000;
      let body;
      do {
        await new Promise((r) => setTimeout(r, 50));
        body = (await proof(id, sb.demo.keys.secret, sb.url)).body;
      } while (body.status === "pending" && Date.now() < deadline);
      expect(body).toEqual({
        status: "complete",
        scans: [
          { scanId: fraud, groundTruth: "invalid" },
          { scanId: good, groundTruth: "valid", image: `${sb.url}/disputes/image/${good}.jpg` },
        ],
      });
    } finally {
      await sb.close();
    }
  });

  test("proofDelayMs can be turned on through the settings", async () => {
    await control(t.url, "/settings", { proofDelayMs: 20 });
    try {
      const scanId = await newScan();
      const id = await proofRequest([scanId]);
      await new Promise((r) => setTimeout(r, 200));
      expect((await proof(id)).body.status).toBe("complete");
    } finally {
      await control(t.url, "/settings", { proofDelayMs: null });
    }
  });
});
