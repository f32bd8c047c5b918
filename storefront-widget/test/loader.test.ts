import { ServiceScanLoadError, loadServiceScan } from "../src/index";
import { freshUrl, installFakeService, resetPage, type FakeService } from "./fake-service";

let svc: FakeService;
beforeEach(() => {
  resetPage();
  svc = installFakeService();
});
afterEach(() => svc.stop());

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error("expected the load to fail");
    },
    (e: unknown) => e as ServiceScanLoadError,
  );

describe("loadServiceScan", () => {
  it("injects one script for concurrent calls and resolves all of them with the namespace", async () => {
    const url = freshUrl();
    const results = await Promise.all([loadServiceScan(url), loadServiceScan(url), loadServiceScan(url)]);
    expect(svc.scripts).toHaveLength(1);
    expect(svc.scripts[0].src).toBe(url);
    expect(svc.scripts[0].async).toBe(true);
    for (const ns of results) expect(ns).toBe(svc.namespace);
    // Later calls reuse the settled load.
    await expect(loadServiceScan(url)).resolves.toBe(svc.namespace);
    expect(document.querySelectorAll("script")).toHaveLength(1);
  });

  it("uses the global without injecting when the page already has it", async () => {
    (window as { ServiceScan?: unknown }).ServiceScan = svc.namespace;
    await expect(loadServiceScan(freshUrl())).resolves.toBe(svc.namespace);
    expect(svc.scripts).toHaveLength(0);
  });

  it("waits for a matching <script> the page already added instead of adding another", async () => {
    const url = freshUrl();
    const own = document.createElement("script");
    own.src = url;
    document.head.appendChild(own);
    await expect(loadServiceScan(url)).resolves.toBe(svc.namespace);
    expect(document.querySelectorAll("script")).toHaveLength(1);
  });

  it("rejects a network failure with kind 'network', removes the tag, and a later call retries", async () => {
    const url = freshUrl();
    svc.outcome = "network";
    const [a, b] = await Promise.all([failure(loadServiceScan(url)), failure(loadServiceScan(url))]);
    expect(a).toBeInstanceOf(ServiceScanLoadError);
    expect(a).toMatchObject({ kind: "network", url, name: "ServiceScanLoadError" });
    expect(b).toBe(a);
    expect(svc.scripts).toHaveLength(1);
    expect(document.querySelectorAll("script")).toHaveLength(0);

    svc.outcome = "ok";
    await expect(loadServiceScan(url)).resolves.toBe(svc.namespace);
    expect(svc.scripts).toHaveLength(2);
    expect(document.querySelectorAll("script")).toHaveLength(1);
  });

  it.each(["network", "timeout"] as const)(
    "leaves a <script> the page added in place when it fails (%s), and the retry adds its own",
    async (kind) => {
      const url = freshUrl();
      svc.outcome = kind == "network" ? "network" : "hang";
      const own = document.createElement("script");
      own.src = url;
      document.head.appendChild(own);

      await expect(failure(loadServiceScan(url, { timeoutMs: 30 }))).resolves.toMatchObject({ kind });
      expect(own.isConnected).toBe(true);

      // The retry does not wait on the page's dead tag again; it injects (and owns) a fresh one.
      svc.outcome = "network";
      await expect(failure(loadServiceScan(url, { timeoutMs: 1000 }))).resolves.toMatchObject({ kind: "network" });
      expect(own.isConnected).toBe(true);
      expect(Array.from(document.scripts)).toEqual([own]);

      svc.outcome = "ok";
      await expect(loadServiceScan(url)).resolves.toBe(svc.namespace);
      expect(own.isConnected).toBe(true);
      expect(svc.scripts).toHaveLength(3);
    },
  );

  it("rejects with kind 'script' when the script loads but defines no ServiceScan.Form", async () => {
    const url = freshUrl();
    svc.outcome = "script";
    await expect(failure(loadServiceScan(url))).resolves.toMatchObject({ kind: "script" });
    expect(document.querySelectorAll("script")).toHaveLength(0);
    svc.outcome = "ok";
    await expect(loadServiceScan(url)).resolves.toBe(svc.namespace);
  });

  it("rejects with kind 'timeout' after timeoutMs, and a later call retries", async () => {
    const url = freshUrl();
    svc.outcome = "hang";
    const started = Date.now();
    const error = await failure(loadServiceScan(url, { timeoutMs: 30 }));
    expect(error.kind).toBe("timeout");
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    expect(document.querySelectorAll("script")).toHaveLength(0);
    svc.outcome = "ok";
    await expect(loadServiceScan(url)).resolves.toBe(svc.namespace);
  });
});
