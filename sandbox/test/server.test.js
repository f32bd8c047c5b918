// @ts-check
"use strict";

const http = require("node:http");
const path = require("node:path");
const { spawn } = require("node:child_process");
const { startSandbox, DEMO_KEYS } = require("../dist/index");
const { call, control, submitCard, postCnp, cnpRequest, ORIGIN } = require("./helpers");

/** @type {string[]} */
const logs = [];
/** @type {import("../dist/index").Sandbox} */
let sb;
/** @type {string} */
let url;

beforeAll(async () => {
  sb = await startSandbox({ logger: (level, message) => logs.push(`${level} ${message}`) });
  url = sb.url;
});
afterAll(() => sb.close());

const MIB = 1024 * 1024;

describe("body limit: 1 MiB", () => {
  test.each([
    ["POST", "/api/v1/forms", "application/json"],
    ["PUT", "/disputes/proofRequest", "application/json"],
    ["POST", "/cnp/online", "text/xml"],
    ["POST", "/__sandbox/accounts", "application/json"],
  ])("%s %s: 413 for a larger body", async (method, route, contentType) => {
    const res = await call(url, route, { method, key: DEMO_KEYS.secret, body: Buffer.alloc(MIB + 1, 0x20), contentType });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: "Request body too large" });
  });

  test("413 for a chunked body without Content-Length", async () => {
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    let sent = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (sent >= 5) return controller.close();
        sent++;
        controller.enqueue(chunk);
      },
    });
    /** @type {RequestInit & { duplex: "half" }} */
    const init = { method: "POST", body: stream, headers: { "Content-Type": "application/json" }, duplex: "half" };
    const res = await fetch(`${url}/api/v1/forms`, init);
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ error: "Request body too large" });
  });

  test("a body of exactly 1 MiB is read", async () => {
    const json = JSON.stringify({ pad: "x".repeat(MIB - 10) });
    const body = json + " ".repeat(MIB - Buffer.byteLength(json));
    expect(Buffer.byteLength(body)).toBe(MIB);
    const res = await call(url, "/api/v1/forms", { method: "POST", body });
    expect(res.status).toBe(400); // read and parsed: the key is missing
    expect(JSON.parse(res.text).error).toMatch(/key/);
  });

  test("the server keeps serving after oversized bodies", async () => {
    expect((await control(url, "/health")).status).toBe(200);
  });
});

describe("routing", () => {
  test.each([["/"], ["/nope"], ["/api/v1"], ["/api/v1/forms/extra"], ["/disputes/proof"], ["/disputes/image/"], ["/client.js/"], ["/%E0%A4%A"]])("404 JSON for %s", async (route) => {
    const res = await call(url, route);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toEqual({ error: "Not found" });
  });

  test.each([
    ["PUT", "/client.js", "GET, HEAD"],
    ["POST", "/form/frame", "GET, HEAD"],
    ["GET", "/api/v1/forms", "POST, OPTIONS"],
    ["DELETE", "/api/v1/worldpay/form/x", "GET, HEAD"],
    ["GET", "/disputes/proofRequest", "PUT"],
    ["POST", "/disputes/proof/x", "GET, HEAD"],
    ["DELETE", "/disputes/image/x.jpg", "GET, HEAD"],
  ])("405 with Allow for %s %s", async (method, route, allow) => {
    const res = await call(url, route, { method, body: method === "GET" || method === "HEAD" ? undefined : "" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe(allow);
    expect(JSON.parse(res.text)).toEqual({ error: "Method not allowed" });
  });

  test("percent-encoded path segments are decoded safely", async () => {
    const res = await call(url, "/disputes/proof/%ZZ", { key: DEMO_KEYS.secret });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text)).toEqual({ error: "Proof request not found" });
  });

  test("every response says nosniff", async () => {
    expect((await call(url, "/nope")).headers.get("x-content-type-options")).toBe("nosniff");
    expect((await call(url, "/client.js")).headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("a malformed HTTP request gets a 400, and the server lives on", async () => {
    const net = require("node:net");
    const { port } = new URL(url);
    const answer = await new Promise((resolve, reject) => {
      const socket = net.connect(Number(port), "127.0.0.1", () => socket.write("GARBAGE\r\n\r\n"));
      let data = "";
      socket.on("data", (d) => (data += d));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    expect((await control(url, "/health")).status).toBe(200);
  });
});

describe("unexpected errors", () => {
  test("become 500 Internal sandbox error without a stack trace, and are logged", async () => {
    // Reaching into the internals is the only way to make the sandbox itself fail.
    const processor = /** @type {any} */ (sb.state.processor);
    const original = processor.handle;
    processor.handle = () => {
      throw new Error("boom: simulated bug");
    };
    try {
      const res = await call(url, "/cnp/online", { method: "POST", body: "<x/>", contentType: "text/xml" });
      expect(res.status).toBe(500);
      expect(JSON.parse(res.text)).toEqual({ error: "Internal sandbox error" });
      expect(res.text).not.toMatch(/boom|at |\.js/);
    } finally {
      processor.handle = original;
    }
    expect(logs.some((l) => l.startsWith("error ") && l.includes("boom: simulated bug"))).toBe(true);
    expect((await control(url, "/health")).status).toBe(200);
  });
});

describe("logs", () => {
  test("never contain full API keys or processor passwords", async () => {
    const { formId } = await submitCard(url, DEMO_KEYS.shareable, {}, {});
    await call(url, `/api/v1/worldpay/form/${formId}`, { key: DEMO_KEYS.paymentToken });
    await call(url, `/disputes/proof/${crypto.randomUUID()}`, { key: DEMO_KEYS.secret });
    await call(url, `/form/frame?key=${DEMO_KEYS.shareable}&origin=${encodeURIComponent(ORIGIN)}`);
    await postCnp(url, cnpRequest(sb.demo.processor, '<registerTokenRequest id="l" reportGroup="rg"><accountNumber>4111111111111111</accountNumber></registerTokenRequest>'));
    const text = logs.join("\n");
    expect(text).toMatch(/key=ptk_…/);
    expect(text).toMatch(/key=sk_t…/);
    expect(text).toMatch(/frame\?key=pk_t…/);
    for (const secret of [...Object.values(DEMO_KEYS), sb.demo.processor.password]) expect(text).not.toContain(secret);
  });
});

describe("startSandbox", () => {
  test("exposes url, the client script URL, the demo account and its processor", () => {
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(sb.clientScriptUrl).toBe(`${sb.url}/client.js`);
    expect(sb.demo).toEqual({
      accountId: "acct_demo",
      keys: { shareable: "pk_test_servicescan_demo", paymentToken: "ptk_test_servicescan_demo", secret: "sk_test_servicescan_demo" },
      domains: ["localhost", "127.0.0.1"],
      processor: { merchantId: "1234567", user: "demo-user", password: "demo-password", url: `${sb.url}/cnp/online` },
      adyen: {
        companyAccount: "ServiceScanDemo",
        merchantAccount: "ServiceScanDemoECOM",
        apiKey: "AQE_test_servicescan_demo_adyen_api_key",
        username: "ws@Company.ServiceScanDemo",
        password: "demo-adyen-password",
        hmacKey: "5934AD24EED2B42F39D1F8BBAA602FF05E7D291AC95BC71EA5538AC41B6F0F56",
        webhookUsername: "adyen-webhook",
        webhookPassword: "demo-webhook-password",
        checkoutUrl: `${sb.url}/v71`,
        disputesUrl: `${sb.url}/ca/services/DisputeService/v30`,
        webhookUrl: null,
      },
    });
  });

  test("demo keys can be overridden by option or environment", async () => {
    process.env.SERVICESCAN_SANDBOX_SECRET_KEY = "sk_from_env";
    try {
      const other = await startSandbox({ logger: false, demoKeys: { shareable: "pk_from_option" } });
      try {
        expect(other.demo.keys).toEqual({ shareable: "pk_from_option", paymentToken: "ptk_test_servicescan_demo", secret: "sk_from_env" });
        const res = await call(other.url, `/disputes/proof/${crypto.randomUUID()}`, { key: "sk_from_env" });
        expect(res.status).toBe(404);
      } finally {
        await other.close();
      }
    } finally {
      delete process.env.SERVICESCAN_SANDBOX_SECRET_KEY;
    }
  });

  test.each([
    [{ port: -1 }, /port/],
    [{ port: 1.5 }, /port/],
    [{ host: "" }, /host/],
    [{ proofDelayMs: -5 }, /proofDelayMs/],
    [{ formTtlMs: 0 }, /formTtlMs/],
    [{ fraudLabel: "bad" }, /fraudLabel/],
    [{ logger: "yes" }, /logger/],
    [{ demoKeys: { shareable: "same", secret: "same" } }, /differ/],
  ])("rejects bad options %j", async (options, message) => {
    await expect(startSandbox(/** @type {any} */ ({ logger: false, ...options }))).rejects.toThrow(message);
  });

  test("close() is idempotent, drops keep-alive connections and frees the port", async () => {
    const other = await startSandbox({ logger: false });
    const { port } = new URL(other.url);
    const agent = new http.Agent({ keepAlive: true });
    await new Promise((resolve, reject) => {
      http.get(`${other.url}/__sandbox/health`, { agent }, (res) => {
        res.resume();
        res.on("end", resolve);
      }).on("error", reject);
    });
    const started = Date.now();
    await Promise.all([other.close(), other.close()]);
    // Far below the idle keep-alive a close that waited for the connection would take, with room
    // for a busy machine.
    expect(Date.now() - started).toBeLessThan(5000);
    agent.destroy();
    const again = await startSandbox({ logger: false, port: Number(port) });
    await again.close();
  });

  test("a port in use is reported", async () => {
    const { port } = new URL(url);
    await expect(startSandbox({ logger: false, port: Number(port) })).rejects.toThrow(/EADDRINUSE/);
  });
});

describe("CLI", () => {
  // The bin as package.json declares it, so a wrong mapping fails here too.
  const bin = path.join(__dirname, "..", require("../package.json").bin["servicescan-sandbox"]);

  /**
   * @param {string[]} args
   * @param {NodeJS.ProcessEnv} [env]
   */
  function run(args, env = {}) {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
    return {
      child,
      exited: /** @type {Promise<{ code: number | null, signal: string | null }>} */ (exited),
      out: () => stdout,
      err: () => stderr,
      /** @param {RegExp} pattern */
      waitFor: async (pattern) => {
        const deadline = Date.now() + 30000; // a cold start on a busy machine
        while (!pattern.test(stdout)) {
          if (Date.now() > deadline || child.exitCode !== null) throw new Error(`CLI output did not match ${pattern}: ${stdout}${stderr}`);
          await new Promise((r) => setTimeout(r, 20));
        }
        return /** @type {RegExpExecArray} */ (pattern.exec(stdout));
      },
    };
  }

  test("starts, prints what a developer needs, serves, and stops cleanly on SIGTERM", async () => {
    const cli = run(["--port", "0", "--proof-delay", "100"], { SERVICESCAN_SANDBOX_SHAREABLE_KEY: "pk_env_override" });
    try {
      const [, base] = await cli.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      await cli.waitFor(/Press Ctrl\+C/);
      const out = cli.out();
      for (const expected of [
        `${base}/client.js`,
        "acct_demo",
        "pk_env_override",
        "ptk_test_servicescan_demo",
        "sk_test_servicescan_demo",
        `${base}/cnp/online`,
        "1234567",
        "demo-user / demo-password",
        "4457119922390123",
        "after 100 ms",
      ]) {
        expect(out).toContain(expected);
      }
      expect((await control(base, "/health")).body).toEqual({ ok: true });
      expect((await control(base, "/settings")).body.proofDelayMs).toBe(100);
      await cli.waitFor(/GET \/__sandbox\/health -> 200/);
    } finally {
      cli.child.kill("SIGTERM");
    }
    expect(await cli.exited).toEqual({ code: 0, signal: null });
  });

  test("SIGINT stops it too", async () => {
    const cli = run(["--port=0", "--quiet"]);
    await cli.waitFor(/listening on/);
    cli.child.kill("SIGINT");
    expect(await cli.exited).toEqual({ code: 0, signal: null });
  });

  test("--help prints usage", async () => {
    const cli = run(["--help"]);
    expect((await cli.exited).code).toBe(0);
    expect(cli.out()).toMatch(/Usage: servicescan-sandbox/);
    expect(cli.out()).toMatch(/--proof-delay/);
  });

  test("exits 2 with usage on bad arguments", async () => {
    const cases = [["--bogus"], ["--port", "abc"], ["--port"], ["--port", "70000"], ["--proof-delay", "-1"], ["--fraud-label", "maybe"]];
    const runs = cases.map((args) => ({ args, cli: run(args) }));
    for (const { args, cli } of runs) {
      expect([args, (await cli.exited).code]).toEqual([args, 2]);
      expect(cli.err()).toMatch(/Usage/);
    }
  });
});
