/**
 * @jest-environment node
 */
// Real-browser spec: Chromium (found by scripts/chromium.cjs, driven by playwright-core) loads a small page from its own
// localhost origin; the page renders <ServiceScanCardForm> against the sandbox's real client.js
// and card iframe (another origin), and the card is typed into that iframe.
import { build } from "esbuild";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Browser, FrameLocator, Page } from "playwright-core";
// The repository's one browser finder: CHROMIUM_PATH, a system Chromium, or the packaged one.
import { launchChromium } from "../../scripts/chromium.cjs";
import { serviceScanMessages } from "../src/messages";

const VALID_CARD = "4457119922390123";
const LUHN_INVALID_CARD = "4457119922390124";

interface Sandbox {
  url: string;
  demo: { keys: { shareable: string; paymentToken: string } };
  close(): Promise<void>;
}

jest.setTimeout(60_000);

let sandbox: Sandbox;
let server: Server;
let pageUrl: string;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSandbox } = require("servicescan-sandbox") as { startSandbox(o: object): Promise<Sandbox> };
  sandbox = await startSandbox({ port: 0, logger: false });

  const bundle = await build({
    entryPoints: [join(__dirname, "browser/page.tsx")],
    bundle: true,
    write: false,
    format: "iife",
    jsx: "automatic",
    target: "es2020",
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "silent",
  });
  const js = bundle.outputFiles[0].text;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop checkout</title></head>
<body><div id="root"></div>
<script>window.__SANDBOX__ = ${JSON.stringify({ url: sandbox.url, shareableKey: sandbox.demo.keys.shareable })};</script>
<script src="/page.js"></script></body></html>`;
  server = createServer((req, res) => {
    const [type, body] = req.url === "/page.js" ? ["text/javascript", js] : ["text/html", html];
    res.writeHead(200, { "Content-Type": `${type}; charset=utf-8`, "Cache-Control": "no-store" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  pageUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  expect(new URL(pageUrl).origin).not.toBe(new URL(sandbox.url).origin);

  // Fails loudly when no browser can be found: never a silently skipped spec.
  browser = await launchChromium();
  page = await browser.newPage();
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(pageUrl);
  await page.locator("#pay:enabled").waitFor({ timeout: 20_000 });
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await sandbox?.close();
});

const cardFrame = (): FrameLocator => page.frameLocator("iframe");

async function typeCard(number: string, expiry = "12/30", cvv = "123") {
  const frame = cardFrame();
  for (const [field, value] of [
    ["cc-number", number],
    ["cc-exp", expiry],
    ["cc-csc", cvv],
  ]) {
    const input = frame.locator(`input[autocomplete="${field}"]`);
    await input.fill("");
    await input.pressSequentially(value);
  }
}

let attempts = 0;
/** Clicks the page's Pay button (which calls submit()) and returns what submit() resolved with. */
async function pay(): Promise<{ formId?: string; responseCode?: string; error?: string }> {
  const n = ++attempts;
  await page.click("#pay");
  await page.waitForFunction((k) => {
    const text = document.querySelector("#result")?.textContent;
    return !!text && JSON.parse(text).n === k;
  }, n);
  return JSON.parse((await page.textContent("#result"))!);
}

async function exchange(formId: string) {
  const res = await fetch(`${sandbox.url}/api/v1/worldpay/form/${formId}`, {
    headers: { "X-API-KEY": sandbox.demo.keys.paymentToken },
  });
  return { status: res.status, body: (await res.json()) as { token?: string } };
}

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("ServiceScanCardForm in Chromium against the sandbox", () => {
  it("attaches one titled iframe under StrictMode", async () => {
    expect(await page.locator("iframe").count()).toBe(1);
    expect(await page.getAttribute("iframe", "title")).toBeTruthy();
    await expect(cardFrame().locator('input[autocomplete="cc-number"]').isVisible()).resolves.toBe(true);
  });

  it("types a valid card, gets 870 and a form id the token exchange accepts", async () => {
    await typeCard(VALID_CARD);
    const result = await pay();
    expect(result).toMatchObject({ responseCode: "870" });
    expect(result.formId).toMatch(UUID_V4);
    expect(await page.textContent('[aria-live="polite"]')).toBe("");

    const { status, body } = await exchange(result.formId!);
    expect(status).toBe(200);
    expect(body.token).toMatch(/^\d{13,19}$/);
    expect(body.token!.endsWith(VALID_CARD.slice(-4))).toBe(true);
  });

  it("types an invalid card, shows the 871 message and moves focus to the form", async () => {
    await typeCard(LUHN_INVALID_CARD);
    const result = await pay();
    expect(result).toMatchObject({ responseCode: "871" });
    const live = page.locator('[aria-live="polite"]');
    await live.filter({ hasText: serviceScanMessages["871"] }).waitFor();
    expect(await live.textContent()).toBe(serviceScanMessages["871"]);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("IFRAME");
  });

  it('fills the card with the iframe\'s "Scan card" button and gets 870', async () => {
    await cardFrame().getByRole("button", { name: "Scan card" }).click();
    await expect(cardFrame().locator('input[autocomplete="cc-number"]').inputValue()).resolves.not.toBe("");
    const result = await pay();
    expect(result).toMatchObject({ responseCode: "870" });
    expect(result.formId).toMatch(UUID_V4);
    // The earlier 871 message is cleared once the form is valid.
    expect(await page.textContent('[aria-live="polite"]')).toBe("");
    const { status, body } = await exchange(result.formId!);
    expect(status).toBe(200);
    expect(typeof body.token).toBe("string");
  });

  it("raised no page errors", () => {
    expect(pageErrors).toEqual([]);
  });
});
