/**
 * servicescan-sandbox: a local, in-memory copy of the ServiceScan hosted card form, token
 * exchange and chargeback disputes API, with a simulated Worldpay cnpAPI processor.
 */

export type KeyKind = "shareable" | "paymentToken" | "secret";
export type Permission = "form:submit" | "token:exchange" | "disputes:write" | "disputes:read" | "images:read";
export type GroundTruth = "valid" | "invalid";
export type LogLevel = "info" | "warn" | "error";

export interface DemoKeys {
  shareable: string;
  paymentToken: string;
  secret: string;
}

export interface ProcessorCredentials {
  merchantId: string;
  user: string;
  password: string;
}

export interface SandboxOptions {
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Interface to bind; default "127.0.0.1". */
  host?: string;
  /**
   * When set, every new proof request completes by itself after this many milliseconds, the
   * sandbox labelling its unlabelled scans by the test-card rule. Default: off.
   */
  proofDelayMs?: number | null;
  /** Forms older than this cannot be exchanged for a token (410). Default 30 minutes. */
  formTtlMs?: number;
  /** Word used for the negative verdict in proof results. Default "invalid" (the spec's word). */
  fraudLabel?: "invalid" | "fraud";
  /** Override the demo account's keys; falls back to the SERVICESCAN_SANDBOX_*_KEY env vars. */
  demoKeys?: Partial<DemoKeys>;
  /** `false` silences the sandbox; a function receives every log line. Default: warnings and errors to stderr. */
  logger?: false | ((level: LogLevel, message: string) => void);
}

export interface Account {
  id: string;
  domains: string[];
  processor: ProcessorCredentials;
  createdAt: string;
}

export interface ApiKey {
  value: string;
  accountId: string;
  kind: KeyKind;
  permissions: Permission[];
}

export interface FormRecord {
  id: string;
  accountId: string;
  card: { number: string; cvv: string; expiry: string };
  responseCode: string;
  config: { customerId?: string; id?: string; reportGroup?: string };
  scanned: boolean;
  origin: string;
  createdAt: number;
  expired: boolean;
  token: string | null;
}

export interface Scan {
  id: string;
  accountId: string;
  groundTruth: GroundTruth | null;
  imageDeleted: boolean;
  cardNumber: string | null;
  source: "form" | "control";
  createdAt: string;
}

export interface ProofRequest {
  id: string;
  accountId: string;
  scanIds: string[];
  status: "pending" | "complete";
  results: { scanId: string; groundTruth: GroundTruth }[] | null;
  createdAt: string;
  completedAt: string | null;
}

export interface Faults {
  keyLookup?: "fail";
  ownershipCheck?: "fail";
  latencyMs?: number;
  errorRate?: number;
  resetRate?: number;
}

export interface Settings {
  fraudLabel: "invalid" | "fraud";
  proofDelayMs: number | null;
  formTtlMs: number;
}

export interface ProcessorTransaction {
  seq: number;
  type: "registerTokenRequest" | "authorization" | "sale" | "capture" | "credit" | "void" | "authReversal";
  id: string | null;
  reportGroup: string | null;
  customerId: string | null;
  orderId: string | null;
  amount: number | null;
  cnpTxnId: string;
  originalCnpTxnId: string | null;
  token: string | null;
  response: string;
  message: string;
  duplicate: boolean;
  merchantId: string;
  source: "http" | "token-exchange";
  createdAt: string;
  requestXml: string;
  responseXml: string;
}

/** The in-memory state. Exposed for tests; prefer the control API, which is stable. */
export interface SandboxState {
  settings: Settings;
  faults: Faults;
  accounts: Map<string, Account>;
  keys: Map<string, ApiKey>;
  forms: Map<string, FormRecord>;
  scans: Map<string, Scan>;
  proofRequests: Map<string, ProofRequest>;
  processor: {
    listTransactions(filter?: { type?: string; merchantId?: string; id?: string }): ProcessorTransaction[];
  };
  stats(): { requests: Record<string, number>; total: number };
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
    processor: ProcessorCredentials & { /** `${url}/cnp/online` */ url: string };
  };
  state: SandboxState;
}

export function startSandbox(options?: SandboxOptions): Promise<Sandbox>;

export const DEMO_KEYS: Readonly<DemoKeys>;
export const DEMO_PROCESSOR: Readonly<ProcessorCredentials>;
export const DEMO_ACCOUNT_ID: string;
export const TEST_CARDS: ReadonlyArray<{ number: string; brand: "Visa" | "Mastercard" | "American Express"; outcome: string; label: string }>;
/** 4457119922390123: registers as token 1111000276870123 (certification data). */
export const CERT_CARD: string;
export const CERT_TOKEN: string;
/** 1111000100092332: a token the processor never knows (822). */
export const MISSING_TOKEN: string;
/** 4457119999999996: passes the form's Luhn check, but tokenization answers 820. */
export const UNTOKENIZABLE_CARD: string;
/** cnpAPI response codes the simulated processor returns, as [code, message]. */
export const CNP_CODES: Readonly<Record<string, readonly [string, string]>>;
