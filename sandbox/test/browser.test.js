// @ts-check
"use strict";

/**
 * The hosted form in a real browser: a merchant page on another origin loads client.js, attaches
 * the form, and the test types into the sandbox's iframe like a shopper would.
 */

const http = require("node:http");
// The repository's one browser finder: CHROMIUM_PATH, a system Chromium, or the packaged one.
const { launchChromium } = require("../../scripts/chromium.cjs");
const { startSandbox } = require("../dist/index");
const { control, createAccount, exchange, call } = require("./helpers");

/** @type {import("../dist/index").Sandbox} */
let sb;
/** @type {http.Server} */
let merchant;
/** @type {string} */
let merchantUrl;
/** @type {import("playwright-core").Browser} */
let browser;
/** One context for the file: creating one per test costs more than the test itself. */
/** @type {import("playwright-core").BrowserContext} */
let context;

const expiry = `12/${String((new Date().getFullYear() + 3) % 100).padStart(2, "0")}`;

/**
 * The merchant's checkout page, exactly as the spec's usage sequence describes it.
 * @param {string} key
 */
function merchantPage(key) {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Test shop checkout</title><script src="${sb.url}/client.js"></script></head>
<body>
  <h1>Checkout</h1>
  <div id="card-container"></div>
  <script>
    window.results = [];
    window.form = ServiceScan.Form({
      key: ${JSON.stringify(key)},
      config: {
        uiVersion: 2,
        showExplanation: false,
        showResult: false,
        customerId: "browser-customer",
        callback: function (formId, responseCode) { window.results.push({ formId: formId, code: responseCode }); }
      }
    });
    window.form.attach(document.getElementById("card-container"));
  </script>
</body>
</html>`;
}

beforeAll(async () => {
  sb = await startSandbox({ logger: false });
  merchant = http.createServer((req, res) => {
    const key = new URL(req.url ?? "/", "http://x").searchParams.get("key") ?? sb.demo.keys.shareable;
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(merchantPage(key));
  });
  await new Promise((resolve) => merchant.listen(0, "127.0.0.1", () => resolve(undefined)));
  const address = /** @type {import("node:net").AddressInfo} */ (merchant.address());
  // `localhost` against the sandbox's 127.0.0.1: another origin, and a registered demo domain.
  merchantUrl = `http://localhost:${address.port}/`;
  browser = await launchChromium();
  context = await browser.newContext();
  // The first run may unpack the packaged Chromium (seconds, once).
}, 90000);

afterAll(async () => {
  await browser?.close();
  merchant?.closeAllConnections();
  await new Promise((resolve) => (merchant ? merchant.close(() => resolve(undefined)) : resolve(undefined)));
  await sb?.close();
});

/**
 * @param {string} [url]
 */
async function openCheckout(url = merchantUrl) {
  const page = await context.newPage();
  await page.goto(url);
  const frame = page.frameLocator('iframe[title="Secure card form"]');
  await frame.getByLabel("Card number").waitFor();
  return { page, frame };
}

/** @param {import("playwright-core").Page} page */
async function getIdAndWait(page) {
  const formId = await page.evaluate(() => /** @type {any} */ (window).form.getId());
  await page.waitForFunction(() => /** @type {any} */ (window).results.length > 0, undefined, { timeout: 30000 });
  const results = await page.evaluate(() => /** @type {any} */ (window).results);
  return { formId, results };
}

test("a typed valid card gives 870, and the sandbox exchanges that form id for a token", async () => {
  const { page, frame } = await openCheckout();
  try {
    await frame.getByLabel("Card number").fill("4457 1199 2239 0123");
    await frame.getByLabel("Expiry date (MM/YY)").fill(expiry);
    await frame.getByLabel("Security code").fill("123");
    // The card number lives in the sandbox's origin: the merchant page cannot reach into the frame.
    expect(await page.evaluate(() => /** @type {HTMLIFrameElement} */ (document.querySelector("iframe")).contentDocument)).toBeNull();

    const { formId, results } = await getIdAndWait(page);
    expect(formId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(results).toEqual([{ formId, code: "870" }]);

    const res = await exchange(sb.url, formId, sb.demo.keys.paymentToken);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ token: "1111000276870123" });
    const [registration] = (await control(sb.url, "/processor/transactions?type=registerTokenRequest")).body.items;
    expect(registration.customerId).toBe("browser-customer");
    expect(sb.state.forms.get(formId)?.origin).toBe(new URL(merchantUrl).origin);
  } finally {
    await page.close();
  }
});

test("a typed invalid card gives 871, announced in the frame", async () => {
  const { page, frame } = await openCheckout();
  try {
    await frame.getByLabel("Card number").fill("4457 1199 2239 0124");
    await frame.getByLabel("Expiry date (MM/YY)").fill(expiry);
    await frame.getByLabel("Security code").fill("123");
    const { formId, results } = await getIdAndWait(page);
    expect(results).toEqual([{ formId, code: "871" }]);
    await expect(frame.getByRole("alert").textContent()).resolves.toMatch(/not valid/);
    await expect(frame.getByLabel("Card number").getAttribute("aria-invalid")).resolves.toBe("true");
    expect((await exchange(sb.url, formId, sb.demo.keys.paymentToken)).status).toBe(422);
  } finally {
    await page.close();
  }
});

test('"Scan card" fills a test card and the submission creates a scan whose id is the form id', async () => {
  const { page, frame } = await openCheckout();
  try {
    await frame.getByLabel("Test card to scan").selectOption("4111111111111111");
    // Keyboard activation: it is what a keyboard user does, and Playwright's mouse click() hangs
    // in its hit-target check on cross-site (out-of-process) iframes with Debian's Chromium 156.
    await frame.getByRole("button", { name: "Scan card" }).press("Enter");
    await expect(frame.getByLabel("Card number").inputValue()).resolves.toBe("4111 1111 1111 1111");
    await expect(frame.getByRole("status").textContent()).resolves.toMatch(/ending 1111/);
    const { formId, results } = await getIdAndWait(page);
    expect(results).toEqual([{ formId, code: "870" }]);

    expect((await control(sb.url, `/scans/${formId}/label`, { groundTruth: "valid" })).status).toBe(200);
    const created = await call(sb.url, "/disputes/proofRequest", { method: "PUT", key: sb.demo.keys.secret, body: JSON.stringify([formId]) });
    const proof = await call(sb.url, `/disputes/proof/${JSON.parse(created.text).id}`, { key: sb.demo.keys.secret });
    expect(JSON.parse(proof.text)).toEqual({
      status: "complete",
      scans: [{ scanId: formId, groundTruth: "valid", image: `${sb.url}/disputes/image/${formId}.jpg` }],
    });
  } finally {
    await page.close();
  }
});

test("a page on a domain the key's account did not register gets no form, and callbacks report 889", async () => {
  const shop = await createAccount(sb.url, { domains: ["shop.example"] });
  const page = await context.newPage();
  try {
    await page.goto(`${merchantUrl}?key=${shop.keys.shareable}`);
    const frame = page.frameLocator('iframe[title="Secure card form"]');
    await expect(frame.getByRole("alert").textContent()).resolves.toMatch(/not a registered domain/);
    const { formId, results } = await getIdAndWait(page);
    expect(results).toEqual([{ formId, code: "889" }]);
  } finally {
    await page.close();
  }
});
