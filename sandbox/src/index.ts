/**
 * servicescan-sandbox: a local, in-memory copy of the ServiceScan hosted card form, token
 * exchange and chargeback disputes API, with two simulated processors: Worldpay (cnpAPI and its
 * Chargeback API) and Adyen (Checkout API v71, Disputes API v30, notification webhooks).
 */
import { CERT_CARD, CERT_TOKEN, CODES, MISSING_TOKEN, UNTOKENIZABLE_CARD, type ProcessorCredentials } from "./processors/worldpay/cnp";
import { Chargebacks, DEFAULT_MAX_DOCUMENT_BYTES } from "./processors/worldpay/chargebacks";
import { Disputes } from "./disputes";
import { Adyen, DEMO_ADYEN, demoMerchantInput } from "./processors/adyen";
import { createServer, type Log, type LogLevel } from "./server";
import { Store, type KeyKind } from "./store";
import { TEST_CARDS } from "./test-cards";

export type { ProcessorCredentials, ProcessorTransaction, TxnType, TransactionFilter } from "./processors/worldpay/cnp";
export type { LogLevel } from "./server";
export type { ChargebackActivity, ChargebackCase, Cycle, Queue, UpdateActivity } from "./processors/worldpay/chargebacks";
export type { Account, ApiKey, Faults, FormConfig, FormRecord, GroundTruth, KeyKind, Permission, ProofRequest, Scan, Settings, Stats } from "./store";
export type { TestCard } from "./test-cards";
export type {
  AdyenDispute,
  AdyenMerchant,
  AdyenModification,
  AdyenNotification,
  AdyenPayment,
  AdyenSettings,
  SignedFields as AdyenSignedFields,
  StoredCard as AdyenStoredCard,
} from "./processors/adyen";
/** Adyen's notification HMAC (base64 HMAC-SHA256 of the eight signed fields under a hex key), for tests that forge or check notifications. */
export { DEMO_ADYEN, hmacSignature as adyenHmacSignature, signingString as adyenSigningString } from "./processors/adyen";
export { CERT_CARD, CERT_TOKEN, MISSING_TOKEN, UNTOKENIZABLE_CARD, TEST_CARDS };

/** cnpAPI response codes the simulated processor returns, as [code, message]. */
export const CNP_CODES = CODES;

/** The in-memory state. Exposed for tests and benchmarks; prefer the control API, which is stable. */
export type SandboxState = Store;

export type DemoKeys = Record<KeyKind, string>;

export interface SandboxOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; default "127.0.0.1". */
  host?: string;
  /**
   * When set, every new proof request completes by itself after this many milliseconds, the
   * sandbox labelling its unlabelled scans by the test-card rule. Default: off.
   */
  proofDelayMs?: number | null | undefined;
  /** Forms older than this cannot be exchanged for a token (410). Default 30 minutes. */
  formTtlMs?: number;
  /** Word used for the negative verdict in proof results. Default "invalid" (the spec's word). */
  fraudLabel?: "invalid" | "fraud" | undefined;
  /** Override the demo account's keys; falls back to the SERVICESCAN_SANDBOX_*_KEY env vars. */
  demoKeys?: Partial<DemoKeys>;
  /**
   * The Chargeback API's per-document size limit in bytes: larger uploads get Worldpay's 012
   * "Filesize exceeds limit". Default 2 MiB (2097152).
   */
  maxDocumentBytes?: number;
  /** `false` silences the sandbox; a function receives every log line. Default: warnings and errors to stderr. */
  logger?: false | ((level: LogLevel, message: string) => void);
  /** The simulated Adyen; all of it can also be changed later through `/__sandbox/adyen/...`. */
  adyen?: AdyenOptions;
}

export interface AdyenOptions {
  /** Where the demo merchant's standard notifications go. Default: nowhere (nothing is sent). */
  webhookUrl?: string | undefined;
  /** The demo merchant's capture delay setting. Default "immediate", as a new Adyen account. */
  captureDelay?: "immediate" | "manual" | undefined;
  /**
   * Multiplies Adyen's clock (webhook retry delays, delayed captures, the 30-day retry window),
   * e.g. 0.001 to retry after 9 ms instead of 9 s. From 0.000001 to 1; default 1.
   */
  timeScale?: number | undefined;
  /** How long a webhook delivery may take before it counts as failed. Default 10000 (Adyen's 10 s). */
  webhookTimeoutMs?: number | undefined;
}

export interface Sandbox {
  /** Base URL, e.g. http://127.0.0.1:4010: plays {checkout_url} and {base_url}. */
  url: string;
  /** `${url}/client.js`: plays {client_script_url}. */
  clientScriptUrl: string;
  /** Stops listening and drops keep-alive connections. Idempotent. */
  close(): Promise<void>;
  demo: {
    accountId: string;
    keys: DemoKeys;
    domains: string[];
    /** `url` is `${url}/cnp/online` */
    processor: ProcessorCredentials & { url: string };
    /** the demo Adyen merchant: Checkout at `${url}/v71`, Disputes at `${url}/ca/services/DisputeService/v30` */
    adyen: typeof DEMO_ADYEN & { checkoutUrl: string; disputesUrl: string; webhookUrl: string | null };
  };
  state: SandboxState;
}

export const DEMO_ACCOUNT_ID = "acct_demo";
export const DEMO_KEYS: Readonly<DemoKeys> = Object.freeze({
  shareable: "pk_test_servicescan_demo",
  paymentToken: "ptk_test_servicescan_demo",
  secret: "sk_test_servicescan_demo",
});
export const DEMO_PROCESSOR: Readonly<ProcessorCredentials> = Object.freeze({
  merchantId: "1234567",
  user: "demo-user",
  password: "demo-password",
});
const DEMO_DOMAINS: readonly string[] = ["localhost", "127.0.0.1"];
const ENV_KEYS: Record<KeyKind, string> = {
  shareable: "SERVICESCAN_SANDBOX_SHAREABLE_KEY",
  paymentToken: "SERVICESCAN_SANDBOX_PAYMENT_TOKEN_KEY",
  secret: "SERVICESCAN_SANDBOX_SECRET_KEY",
};
const DEFAULT_FORM_TTL_MS = 30 * 60 * 1000;

/** Warnings and errors only by default: a library should not chatter on stdout. */
const defaultLog: Log = (level, message) => {
  if (level !== "info") console.error(`[servicescan-sandbox] ${level}: ${message}`);
};

/** Options come from JavaScript callers too, so every one is checked at run time. */
function checkOptions(options: SandboxOptions) {
  const {
    port = 0,
    host = "127.0.0.1",
    proofDelayMs,
    formTtlMs = DEFAULT_FORM_TTL_MS,
    fraudLabel = "invalid",
    maxDocumentBytes = DEFAULT_MAX_DOCUMENT_BYTES,
  } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new TypeError("port must be an integer from 0 to 65535");
  if (typeof host !== "string" || host === "") throw new TypeError("host must be a non-empty string");
  if (proofDelayMs !== undefined && proofDelayMs !== null && !(Number.isFinite(proofDelayMs) && proofDelayMs >= 0)) {
    throw new TypeError("proofDelayMs must be a non-negative number");
  }
  if (!(Number.isFinite(formTtlMs) && formTtlMs > 0)) throw new TypeError("formTtlMs must be a positive number");
  if (fraudLabel !== "invalid" && fraudLabel !== "fraud") throw new TypeError('fraudLabel must be "invalid" or "fraud"');
  if (!Number.isInteger(maxDocumentBytes) || maxDocumentBytes < 1 || maxDocumentBytes > 64 * 1024 * 1024) {
    throw new TypeError("maxDocumentBytes must be a whole number of bytes from 1 to 67108864 (64 MiB)");
  }
  if (options.logger !== undefined && options.logger !== false && typeof options.logger !== "function") {
    throw new TypeError("logger must be false or a function (level, message) => void");
  }
  const keys: DemoKeys = { ...DEMO_KEYS };
  for (const kind of ["shareable", "paymentToken", "secret"] as const) {
    const value: unknown = options.demoKeys?.[kind] ?? (process.env[ENV_KEYS[kind]] || undefined);
    if (value === undefined) continue;
    if (typeof value !== "string" || value.trim() === "") throw new TypeError(`demoKeys.${kind} must be a non-empty string`);
    keys[kind] = value;
  }
  if (new Set(Object.values(keys)).size !== 3) throw new TypeError("the three demo keys must differ");
  return { port, host, proofDelayMs: proofDelayMs ?? null, formTtlMs, fraudLabel, maxDocumentBytes, keys, adyen: checkAdyenOptions(options.adyen) };
}

function checkAdyenOptions(adyen: AdyenOptions | undefined) {
  if (adyen === undefined) return {};
  if (typeof adyen !== "object" || adyen === null) throw new TypeError("adyen must be an object");
  const { webhookUrl, captureDelay, timeScale, webhookTimeoutMs } = adyen;
  if (webhookUrl !== undefined) {
    let protocol = "";
    try {
      protocol = new URL(webhookUrl).protocol;
    } catch {
      // reported below
    }
    if (protocol !== "http:" && protocol !== "https:") throw new TypeError("adyen.webhookUrl must be an http(s) URL");
  }
  if (captureDelay !== undefined && captureDelay !== "immediate" && captureDelay !== "manual") throw new TypeError('adyen.captureDelay must be "immediate" or "manual"');
  if (timeScale !== undefined && !(Number.isFinite(timeScale) && timeScale >= 1e-6 && timeScale <= 1)) throw new TypeError("adyen.timeScale must be a number from 0.000001 to 1");
  if (webhookTimeoutMs !== undefined && !(Number.isFinite(webhookTimeoutMs) && webhookTimeoutMs >= 1 && webhookTimeoutMs <= 60_000)) {
    throw new TypeError("adyen.webhookTimeoutMs must be a number of milliseconds from 1 to 60000");
  }
  return { webhookUrl, captureDelay, timeScale, webhookTimeoutMs };
}

/** Starts a sandbox on its own HTTP server. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const opts = checkOptions(options);
  const log: Log = options.logger === false ? () => {} : (options.logger ?? defaultLog);
  const store = new Store(
    { fraudLabel: opts.fraudLabel, proofDelayMs: opts.proofDelayMs, formTtlMs: opts.formTtlMs },
    { maxDocumentBytes: opts.maxDocumentBytes },
  );
  store.createAccount({
    id: DEMO_ACCOUNT_ID,
    domains: DEMO_DOMAINS,
    processor: { ...DEMO_PROCESSOR },
    adyen: demoMerchantInput({ webhookUrl: opts.adyen.webhookUrl, captureDelay: opts.adyen.captureDelay }),
    keys: opts.keys,
  });
  store.adyen.settings = {
    ...store.adyen.settings,
    ...(opts.adyen.timeScale === undefined ? {} : { timeScale: opts.adyen.timeScale }),
    ...(opts.adyen.webhookTimeoutMs === undefined ? {} : { webhookTimeoutMs: opts.adyen.webhookTimeoutMs }),
  };
  const disputes = new Disputes(store);
  const chargebacks = new Chargebacks(store);
  const adyen = new Adyen(store.adyen, log);

  let url = "";
  const server = createServer(store, { disputes, chargebacks, adyen }, log, () => url);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("the sandbox server has no TCP address");
  const hostPart = address.family === "IPv6" || opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  url = `http://${hostPart}:${address.port}`;
  log("info", `listening on ${url}`);

  let closing: Promise<void> | null = null;
  const close = () => {
    closing ??= new Promise<void>((resolve, reject) => {
      disputes.close();
      adyen.close();
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
      adyen: {
        ...DEMO_ADYEN,
        checkoutUrl: `${url}/v71`,
        disputesUrl: `${url}/ca/services/DisputeService/v30`,
        webhookUrl: opts.adyen.webhookUrl ?? null,
      },
    },
    state: store,
  };
}
