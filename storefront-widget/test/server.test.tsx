/**
 * @jest-environment node
 */
// `medusa-servicescan-storefront/server` with the real `@medusajs/js-sdk` against a local HTTP server
// standing in for Medusa's store routes, as a Next.js Server Component / server action calls it.
import Medusa from "@medusajs/js-sdk";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createElement } from "react";
import { renderToString } from "react-dom/server";
import { ServiceScanSavedCards } from "../src/index";
import { deleteServiceScanSavedCard, listServiceScanSavedCards, type ServiceScanSavedCard } from "../src/server";

const CARDS: ServiceScanSavedCard[] = [{ id: "sscard_AAAAAAAAAAAAAAAAAAAAAA", brand: "Visa", last4: "4242" }];
let server: Server;
let sdk: Medusa;
const seen: { method: string; url: string; authorization?: string; key?: string }[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    seen.push({ method: req.method!, url: req.url!, authorization: req.headers.authorization, key: req.headers["x-publishable-api-key"] as string });
    const json = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.headers.authorization == "Bearer expired") return json(401, { message: "Unauthorized" });
    if (req.headers.authorization != "Bearer jwt_customer") return json(500, { message: "unexpected" });
    if (req.method == "GET" && req.url == "/store/servicescan/payment-methods") return json(200, { payment_methods: CARDS });
    if (req.method == "DELETE" && req.url == `/store/servicescan/payment-methods/${CARDS[0].id}`)
      return json(200, { id: CARDS[0].id, object: "payment_method", deleted: true });
    json(404, { type: "not_found", message: "Saved card not found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  // As the starter builds it (src/lib/config.ts): a publishable key, no browser auth storage.
  sdk = new Medusa({ baseUrl: `http://127.0.0.1:${port}`, publishableKey: "pk_test", auth: { type: "jwt", jwtTokenStorageMethod: "nostore" } });
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => (seen.length = 0));

describe("medusa-servicescan-storefront/server", () => {
  it("lists the customer's cards with the server action's auth headers, and a server-rendered picker shows them", async () => {
    const cards = await listServiceScanSavedCards(sdk, { authorization: "Bearer jwt_customer" });
    expect(cards).toEqual(CARDS);
    expect(seen).toEqual([{ method: "GET", url: "/store/servicescan/payment-methods", authorization: "Bearer jwt_customer", key: "pk_test" }]);
    // The data a Server Component passes down: the picker renders from it, no browser fetch involved.
    const html = renderToString(
      createElement(ServiceScanSavedCards, { cards, value: cards[0].id, onChange: () => undefined, save: false, onSaveChange: () => undefined }),
    );
    expect(html).toContain("Visa ending in 4242");
    expect(html).toMatch(/<input type="radio"[^>]*checked=""/);
  });

  it("gives a guest (no token) [] without calling Medusa, and a signed-out customer (401) [] too", async () => {
    expect(await listServiceScanSavedCards(sdk, {})).toEqual([]);
    expect(seen).toEqual([]);
    expect(await listServiceScanSavedCards(sdk, { authorization: "Bearer expired" })).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it("rejects other failures instead of hiding them as 'no cards'", async () => {
    await expect(listServiceScanSavedCards(sdk, { authorization: "Bearer other" })).rejects.toMatchObject({ status: 500 });
  });

  it("deletes a card with the auth headers, and passes a 404 for someone else's card on", async () => {
    await expect(deleteServiceScanSavedCard(sdk, CARDS[0].id, { authorization: "Bearer jwt_customer" })).resolves.toMatchObject({
      id: CARDS[0].id,
      deleted: true,
    });
    expect(seen[0]).toMatchObject({ method: "DELETE", url: `/store/servicescan/payment-methods/${CARDS[0].id}`, authorization: "Bearer jwt_customer" });
    await expect(deleteServiceScanSavedCard(sdk, "sscard_x/../y", { authorization: "Bearer jwt_customer" })).rejects.toMatchObject({ status: 404 });
    expect(seen[1].url).toBe("/store/servicescan/payment-methods/sscard_x%2F..%2Fy");
  });
});
