// @ts-check
"use strict";

/**
 * Large dispute images on demand (image-proxy benchmarks): the label call's imageBytes makes a
 * scan's image a valid JPEG of exactly that size, built from cached parts.
 */

const jpeg = require("jpeg-js");
const { largeScanImage, scanImage, MIN_LARGE_IMAGE_BYTES, MAX_LARGE_IMAGE_BYTES } = require("../dist/jpeg");
const { useSandbox, control, call } = require("./helpers");

const t = useSandbox();
const FIVE_MB = 5 * 1000 * 1000;

/** A labelled scan of the demo account. @param {Record<string, unknown>} label */
async function labelledScan(label) {
  const { scanId } = (await control(t.url, "/scans", { accountId: t.sb.demo.accountId })).body;
  const res = await control(t.url, `/scans/${scanId}/label`, label);
  return { scanId: /** @type {string} */ (scanId), res };
}

/** @param {string} scanId */
function image(scanId) {
  return call(t.url, `/disputes/image/${scanId}.jpg`, { key: t.sb.demo.keys.secret });
}

/**
 * The markers of a JPEG up to its entropy-coded data, each with its segment's full length.
 * @param {Buffer} bytes
 */
function segments(bytes) {
  /** @type {{ marker: number, length: number }[]} */
  const out = [];
  let at = 2;
  for (;;) {
    expect(bytes[at]).toBe(0xff);
    const marker = bytes[at + 1];
    const length = bytes.readUInt16BE(at + 2);
    out.push({ marker, length: length + 2 });
    at += length + 2;
    if (marker === 0xda) return out; // start of scan: compressed data follows
  }
}

test("a 5 MB image: exactly that long, a valid JPEG of the scan's own picture", async () => {
  const { scanId, res } = await labelledScan({ groundTruth: "valid", imageBytes: FIVE_MB });
  expect(res.body).toEqual({ scanId, groundTruth: "valid", imageBytes: FIVE_MB });
  const big = await image(scanId);
  expect(big.status).toBe(200);
  expect(big.headers.get("content-type")).toBe("image/jpeg");
  expect(big.headers.get("content-length")).toBe(String(FIVE_MB));
  expect(big.headers.get("content-disposition")).toBe(`attachment; filename=${scanId}.jpg`);
  expect(big.bytes.length).toBe(FIVE_MB);
  expect(big.bytes.subarray(0, 2).toString("hex")).toBe("ffd8");
  expect(big.bytes.subarray(-2).toString("hex")).toBe("ffd9");

  // The padding is comment segments (FF FE) ahead of the ordinary image's own segments.
  const small = scanImage(scanId);
  const padding = segments(big.bytes).filter((s) => s.marker === 0xfe);
  expect(padding.reduce((n, s) => n + s.length, 0)).toBe(FIVE_MB - small.length);
  expect(big.bytes.subarray(FIVE_MB - small.length + 2).equals(small.subarray(2))).toBe(true);

  const decoded = jpeg.decode(big.bytes, { maxMemoryUsageInMB: 1024 });
  expect([decoded.width, decoded.height]).toEqual([320, 200]);
  // Random padding: nothing on the way can compress the benchmark's bytes away.
  const { deflateSync } = require("node:zlib");
  expect(deflateSync(big.bytes).length).toBeGreaterThan(FIVE_MB * 0.99);
});

describe("any size is exact and valid, the awkward remainders included", () => {
  const id = "0b4f5a7e-4c3d-4e2f-9a1b-6c5d4e3f2a1b";
  const base = scanImage(id).length;
  // Padding of k full 65537-byte comment segments plus r bytes; r of 1 to 3 cannot be a segment.
  test.each([MIN_LARGE_IMAGE_BYTES, ...[0, 1, 2, 3, 4, 5, 100, 65536].map((r) => base + 30 * 65537 + r)])("%i bytes", (size) => {
    const bytes = Buffer.concat(largeScanImage(id, size));
    expect(bytes.length).toBe(size);
    expect(segments(bytes).every((s) => s.length >= 4)).toBe(true);
    expect(jpeg.decode(bytes).width).toBe(320);
  });
});

test("the padding is drawn once and shared: responses are references to the same segment", () => {
  const a = largeScanImage("1b4f5a7e-4c3d-4e2f-9a1b-6c5d4e3f2a1b", FIVE_MB);
  const b = largeScanImage("2b4f5a7e-4c3d-4e2f-9a1b-6c5d4e3f2a1b", 3 * FIVE_MB);
  const full = a[1];
  expect(full.length).toBe(65537);
  expect(b[1]).toBe(full);
  expect(a.filter((part) => part === full).length).toBe(Math.floor((FIVE_MB - scanImage("1b4f5a7e-4c3d-4e2f-9a1b-6c5d4e3f2a1b").length) / 65537));
  // The same scan and size again: the very same list.
  expect(largeScanImage("1b4f5a7e-4c3d-4e2f-9a1b-6c5d4e3f2a1b", FIVE_MB)).toBe(a);
});

test("omitting imageBytes on a later label keeps the size; null brings the ordinary image back", async () => {
  const { scanId } = await labelledScan({ groundTruth: "valid", imageBytes: 100_000 });
  expect((await image(scanId)).bytes.length).toBe(100_000);
  expect((await control(t.url, `/scans/${scanId}/label`, { groundTruth: "valid" })).body).toEqual({ scanId, groundTruth: "valid", imageBytes: 100_000 });
  expect((await image(scanId)).bytes.length).toBe(100_000);
  expect((await control(t.url, `/scans/${scanId}/label`, { groundTruth: "valid", imageBytes: null })).body).toEqual({ scanId, groundTruth: "valid" });
  expect((await image(scanId)).bytes.equals(scanImage(scanId))).toBe(true);
});

test("the other answers of the image route do not change: invalid scans 403, deleted images 404", async () => {
  const fraud = await labelledScan({ groundTruth: "invalid", imageBytes: 100_000 });
  expect((await image(fraud.scanId)).status).toBe(403);
  const gone = await labelledScan({ groundTruth: "valid", imageBytes: 100_000 });
  await call(t.url, `/__sandbox/scans/${gone.scanId}/image`, { method: "DELETE" });
  const res = await image(gone.scanId);
  expect(res.status).toBe(404);
  expect(res.text).toBe("Not Found");
});

test("a large image is one disputes.image.get and obeys dropResponse", async () => {
  const { scanId } = await labelledScan({ groundTruth: "valid", imageBytes: FIVE_MB });
  await control(t.url, "/reset-stats", {});
  await image(scanId);
  expect((await control(t.url, "/stats")).body.requests["disputes.image.get"]).toBe(1);
  await control(t.url, "/faults", { dropResponse: { route: "disputes.image.get", count: 1 } });
  await expect(image(scanId)).rejects.toThrow();
  expect((await image(scanId)).bytes.length).toBe(FIVE_MB);
});

test.each([
  [{ groundTruth: "valid", imageBytes: MIN_LARGE_IMAGE_BYTES - 1 }],
  [{ groundTruth: "valid", imageBytes: MAX_LARGE_IMAGE_BYTES + 1 }],
  [{ groundTruth: "valid", imageBytes: 100_000.5 }],
  [{ groundTruth: "valid", imageBytes: "5MB" }],
])("the label call refuses %j", async (body) => {
  const { scanId } = (await control(t.url, "/scans", { accountId: t.sb.demo.accountId })).body;
  const res = await control(t.url, `/scans/${scanId}/label`, body);
  expect(res.status).toBe(400);
  expect(res.body.error).toMatch(/^imageBytes must be a (whole )?number/);
  expect(t.sb.state.scans.get(scanId)).toMatchObject({ groundTruth: null });
});
