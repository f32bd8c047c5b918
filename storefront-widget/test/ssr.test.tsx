/**
 * @jest-environment node
 */
// Server rendering: no window, no document. Importing must not touch them, and
// rendering must produce the empty containers (the form attaches in the browser).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createElement } from "react";
import { renderToString } from "react-dom/server";

const root = join(__dirname, "..");
const session = {
  data: {
    client_script_url: "https://checkout.servicescan.test/client.js",
    shareable_key: "pk_share_123",
    processor: "worldpay",
    form_config: { uiVersion: 2, showExplanation: false, showResult: false, id: "pay_1" },
  },
};

beforeAll(() => {
  expect(typeof window).toBe("undefined");
  expect(typeof document).toBe("undefined");
});

describe("SSR", () => {
  it("imports the source and renders <ServiceScanCardForm> to a string", async () => {
    const mod = await import("../src/index");
    const html = renderToString(createElement(mod.ServiceScanCardForm, { session, className: "card" }));
    expect(html).toBe('<div class="card"><div></div><div aria-live="polite"></div></div>');
    await expect(mod.loadServiceScan(session.data.client_script_url)).rejects.toMatchObject({ kind: "ssr" });
  });

  it("requires the built CommonJS entry and renders it", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(join(root, "dist/index.cjs")) as typeof import("../src/index");
    const html = renderToString(createElement(mod.ServiceScanCardForm, { session }));
    expect(html).toContain('aria-live="polite"');
    expect(mod.describeResponseCode("871")).toMatch(/card number/);
  });

  it("imports the built ES module in plain Node (no bundler) and renders it", () => {
    const script = `
      import { ServiceScanCardForm, describeResponseCode } from ${JSON.stringify(join(root, "dist/index.mjs"))};
      import { createElement } from "react";
      import { renderToString } from "react-dom/server";
      if (typeof window !== "undefined") throw new Error("window exists");
      process.stdout.write(renderToString(createElement(ServiceScanCardForm, { session: ${JSON.stringify(session)} })) + "\\n" + describeResponseCode(886));
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" });
    expect(out).toContain('<div aria-live="polite"></div>');
    expect(out).toContain("expiry date");
  });

  it('starts both builds with the "use client" directive for the Next.js App Router', () => {
    for (const file of ["dist/index.mjs", "dist/index.cjs", "dist/place-order.mjs", "dist/place-order.cjs"])
      expect(readFileSync(join(root, file), "utf8").startsWith('"use client";')).toBe(true);
    // The server helpers run in Server Components and server actions: a client boundary would break them.
    for (const file of ["dist/server.mjs", "dist/server.cjs"]) expect(readFileSync(join(root, file), "utf8")).not.toContain("use client");
  });

  it("resolves ./place-order and ./server through the package's exports, in ESM and CommonJS", () => {
    // A package may import itself by name: this goes through package.json "exports", as a storefront does.
    const script = `
      import { ServiceScanPlaceOrder } from "medusa-servicescan-storefront/place-order";
      import { listServiceScanSavedCards } from "medusa-servicescan-storefront/server";
      import { createElement } from "react";
      import { renderToString } from "react-dom/server";
      const cjs = (await import("node:module")).createRequire(import.meta.url);
      const both = typeof cjs("medusa-servicescan-storefront/server").deleteServiceScanSavedCard == "function"
        && typeof cjs("medusa-servicescan-storefront/place-order").ServiceScanPlaceOrder == "function";
      const html = renderToString(createElement(ServiceScanPlaceOrder, { pay: () => new Promise(() => {}), onOrder() {}, buttonProps: { className: "btn" } }));
      process.stdout.write(JSON.stringify({ html, both, guest: await listServiceScanSavedCards({ client: { fetch() { throw new Error("called"); } } }, {}) }));
    `;
    const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: root, encoding: "utf8" }));
    expect(out).toEqual({ html: '<button type="button" class="btn" aria-busy="false">Place order</button>', both: true, guest: [] });
  });
});
