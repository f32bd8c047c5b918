// @ts-check
"use strict";

const { Store } = require("./store");
const { Disputes } = require("./disputes");
const { createServer } = require("./server");
const { TEST_CARDS } = require("./test-cards");
const { CODES, CERT_CARD, CERT_TOKEN, MISSING_TOKEN, UNTOKENIZABLE_CARD } = require("./cnp");

/** @typedef {import("./server").Log} Log */

const DEMO_ACCOUNT_ID = "acct_demo";
const DEMO_KEYS = Object.freeze({
  shareable: "pk_test_servicescan_demo",
  paymentToken: "ptk_test_servicescan_demo",
  secret: "sk_test_servicescan_demo",
});
const DEMO_PROCESSOR = Object.freeze({ merchantId: "demo-merchant", user: "demo-user", password: "demo-password" });
const DEMO_DOMAINS = ["localhost", "127.0.0.1"];
const ENV_KEYS = {
  shareable: "SERVICESCAN_SANDBOX_SHAREABLE_KEY",
  paymentToken: "SERVICESCAN_SANDBOX_PAYMENT_TOKEN_KEY",
  secret: "SERVICESCAN_SANDBOX_SECRET_KEY",
};
const DEFAULT_FORM_TTL_MS = 30 * 60 * 1000;

/**
 * Warnings and errors only by default: a library should not chatter on stdout.
 * @type {Log}
 */
const defaultLog = (level, message) => {
  if (level !== "info") console.error(`[servicescan-sandbox] ${level}: ${message}`);
};

/**
 * @param {import("./index").SandboxOptions} options
 */
function checkOptions(options) {
  const { port = 0, host = "127.0.0.1", proofDelayMs, formTtlMs = DEFAULT_FORM_TTL_MS, fraudLabel = "invalid" } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError("port must be an integer from 0 to 65535");
  if (typeof host !== "string" || host === "") throw new TypeError("host must be a non-empty string");
  if (proofDelayMs !== undefined && proofDelayMs !== null && !(Number.isFinite(proofDelayMs) && proofDelayMs >= 0)) {
    throw new TypeError("proofDelayMs must be a non-negative number");
  }
  if (!(Number.isFinite(formTtlMs) && formTtlMs > 0)) throw new TypeError("formTtlMs must be a positive number");
  if (fraudLabel !== "invalid" && fraudLabel !== "fraud") throw new TypeError('fraudLabel must be "invalid" or "fraud"');
  if (options.logger !== undefined && options.logger !== false && typeof options.logger !== "function") {
    throw new TypeError("logger must be false or a function (level, message) => void");
  }
  /** @type {Record<"shareable" | "paymentToken" | "secret", string>} */
  const keys = { ...DEMO_KEYS };
  for (const kind of /** @type {const} */ (["shareable", "paymentToken", "secret"])) {
    const value = options.demoKeys?.[kind] ?? (process.env[ENV_KEYS[kind]] || undefined);
    if (value === undefined) continue;
    if (typeof value !== "string" || value.trim() === "") throw new TypeError(`demoKeys.${kind} must be a non-empty string`);
    keys[kind] = value;
  }
  if (new Set(Object.values(keys)).size !== 3) throw new TypeError("the three demo keys must differ");
  return { port, host, proofDelayMs: proofDelayMs ?? null, formTtlMs, fraudLabel, keys };
}

/**
 * Starts a sandbox on its own HTTP server.
 * @param {import("./index").SandboxOptions} [options]
 * @returns {Promise<import("./index").Sandbox>}
 */
async function startSandbox(options = {}) {
  const opts = checkOptions(options);
  /** @type {Log} */
  const log = options.logger === false ? () => {} : options.logger ?? defaultLog;
  const store = new Store({ fraudLabel: opts.fraudLabel, proofDelayMs: opts.proofDelayMs, formTtlMs: opts.formTtlMs });
  store.createAccount({ id: DEMO_ACCOUNT_ID, domains: DEMO_DOMAINS, processor: { ...DEMO_PROCESSOR }, keys: opts.keys });
  const disputes = new Disputes(store);

  let url = "";
  const server = createServer(store, { disputes }, log, () => url);
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve(undefined);
    });
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the sandbox server has no TCP address");
  const hostPart = address.family === "IPv6" || opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  url = `http://${hostPart}:${address.port}`;
  log("info", `listening on ${url}`);

  /** @type {Promise<void> | null} */
  let closing = null;
  const close = () => {
    closing ??= new Promise((resolve, reject) => {
      disputes.close();
      server.close((error) => (error ? reject(error) : resolve()));
      // Keep-alive sockets would hold the process (and jest) open until they time out.
      server.closeAllConnections();
    });
    return closing;
  };

  return {
    url,
    clientScriptUrl: `${url}/client.js`,
    close,
    demo: {
      accountId: DEMO_ACCOUNT_ID,
      keys: { ...opts.keys },
      domains: [...DEMO_DOMAINS],
      processor: { ...DEMO_PROCESSOR, url: `${url}/cnp/online` },
    },
    state: store,
  };
}

module.exports = {
  startSandbox,
  DEMO_KEYS,
  DEMO_PROCESSOR,
  DEMO_ACCOUNT_ID,
  TEST_CARDS,
  CERT_CARD,
  CERT_TOKEN,
  MISSING_TOKEN,
  UNTOKENIZABLE_CARD,
  CNP_CODES: CODES,
};
