import * as crypto from "node:crypto";
import type { ChargebackCase } from "./processors/worldpay/chargebacks";
import { Processor, type ProcessorCredentials } from "./processors/worldpay/cnp";
import { ADYEN_SERVICE_ROUTES } from "./processors/adyen/route-names";
import { AdyenStore, type AdyenMerchant, type AdyenMerchantInput } from "./processors/adyen/state";
import { randomDigits } from "./util";

export type KeyKind = "shareable" | "paymentToken" | "secret";
export type Permission = "form:submit" | "token:exchange" | "disputes:write" | "disputes:read" | "images:read";
export type GroundTruth = "valid" | "invalid";

export const KEY_KINDS: readonly KeyKind[] = ["shareable", "paymentToken", "secret"];

export const DEFAULT_PERMISSIONS: Readonly<Record<KeyKind, readonly Permission[]>> = {
  shareable: ["form:submit"],
  paymentToken: ["token:exchange"],
  secret: ["disputes:write", "disputes:read", "images:read"],
};
export const ALL_PERMISSIONS: readonly Permission[] = Object.values(DEFAULT_PERMISSIONS).flat();
const KEY_PREFIX: Record<KeyKind, string> = { shareable: "pk_test_", paymentToken: "ptk_test_", secret: "sk_test_" };

/** The service routes whose requests `GET /__sandbox/stats` counts, and that faults apply to. */
export const SERVICE_ROUTES = [
  "forms.create",
  "token.exchange",
  "cnp.online",
  "disputes.proofRequest.create",
  "disputes.proof.get",
  "disputes.image.get",
  "chargebacks.retrieve",
  "chargebacks.update",
  "chargebacks.document.upload",
  "chargebacks.document.retrieve",
  "chargebacks.document.replace",
  "chargebacks.document.delete",
  "chargebacks.document.list",
  ...ADYEN_SERVICE_ROUTES,
] as const;
export type ServiceRouteName = (typeof SERVICE_ROUTES)[number];

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

export interface FormConfig {
  customerId?: string;
  id?: string;
  reportGroup?: string;
}

export interface FormRecord {
  id: string;
  accountId: string;
  card: { number: string; cvv: string; expiry: string };
  responseCode: string;
  config: FormConfig;
  scanned: boolean;
  origin: string;
  /** epoch ms */
  createdAt: number;
  /** set by the control API */
  expired: boolean;
  /** cached after the first successful exchange */
  token: string | null;
}

export interface Scan {
  id: string;
  accountId: string;
  groundTruth: GroundTruth | null;
  imageDeleted: boolean;
  /** set through the label call: serve an image of exactly this many bytes (benchmarks) */
  imageBytes?: number;
  /** drives the auto-labeller's test-card rule */
  cardNumber: string | null;
  source: "form" | "control";
  createdAt: string;
}

export interface ProofRequest {
  id: string;
  accountId: string;
  /** as submitted, without repeats */
  scanIds: string[];
  status: "pending" | "complete";
  /** frozen at completion */
  results: { scanId: string; groundTruth: GroundTruth }[] | null;
  createdAt: string;
  completedAt: string | null;
}

export interface Settings {
  /** the word used for the negative verdict */
  fraudLabel: "invalid" | "fraud";
  /** null: scans are only labelled through the control API */
  proofDelayMs: number | null;
  formTtlMs: number;
}

export interface Faults {
  keyLookup?: "fail";
  ownershipCheck?: "fail";
  latencyMs?: number;
  errorRate?: number;
  resetRate?: number;
  /** process, then lose the answer */
  dropResponse?: { route?: ServiceRouteName; count: number };
  /** the next `count` queryTransactions that find their original answer 152 "not yet available" */
  queryUnavailable?: { count: number };
}

export interface Limits {
  /** the Chargeback API's per-document size limit (code 012 above it) */
  maxDocumentBytes: number;
}

export interface Stats {
  requests: Record<string, number>;
  total: number;
  /**
   * Per service route, how long each answered request took as the sandbox saw it: from its
   * arrival to the last byte of its answer, in ms, oldest first (the newest 100,000 kept).
   * Benches subtract these from a completion's time to judge what the caller added.
   */
  durationsMs: Record<string, number[]>;
}

/** How many durations a route keeps: enough for any bench, bounded for a long-running sandbox. */
const MAX_DURATIONS = 100_000;

/** All sandbox state, in memory. Business rules live in the feature modules, not here. */
export class Store {
  settings: Settings;
  faults: Faults = {};
  readonly accounts = new Map<string, Account>();
  readonly keys = new Map<string, ApiKey>();
  readonly forms = new Map<string, FormRecord>();
  readonly scans = new Map<string, Scan>();
  readonly proofRequests = new Map<string, ProofRequest>();
  readonly processor = new Processor();
  /** Worldpay chargeback cases by caseId. */
  readonly chargebacks = new Map<string, ChargebackCase>();
  /** The simulated Adyen: merchant accounts, stored cards, payments, disputes, notifications. */
  readonly adyen = new AdyenStore();
  /** Fixed when the sandbox starts. */
  readonly limits: Limits;
  private requestCounts: Record<string, number> = {};
  private requestDurations: Record<string, number[]> = {};

  constructor(settings: Settings, limits: Limits) {
    this.settings = { ...settings };
    this.limits = { ...limits };
    this.resetStats();
  }

  createAccount(input: {
    id?: string;
    domains: readonly string[];
    processor?: ProcessorCredentials | undefined;
    /** what the account's Adyen merchant account leaves out is generated */
    adyen?: AdyenMerchantInput | undefined;
    keys?: Partial<Record<KeyKind, string>>;
  }): { account: Account; keys: Record<KeyKind, string>; adyen: AdyenMerchant } {
    const processor = input.processor ?? {
      merchantId: randomDigits(7),
      user: `user_${crypto.randomBytes(4).toString("hex")}`,
      password: crypto.randomBytes(12).toString("base64url"),
    };
    this.processor.registerMerchant(processor);
    const account: Account = {
      id: input.id ?? crypto.randomUUID(),
      domains: [...input.domains],
      processor: { ...processor },
      createdAt: new Date().toISOString(),
    };
    // Every account can pay through either processor, as every account has Worldpay credentials.
    const adyen = this.adyen.registerMerchant(account.id, input.adyen);
    this.accounts.set(account.id, account);
    const keyOf = (kind: KeyKind) => this.createKey(account.id, kind, { value: input.keys?.[kind] }).value;
    const keys = { shareable: keyOf("shareable"), paymentToken: keyOf("paymentToken"), secret: keyOf("secret") };
    return { account, keys, adyen };
  }

  createKey(
    accountId: string,
    kind: KeyKind,
    options: { value?: string | undefined; permissions?: readonly Permission[] | undefined } = {},
  ): ApiKey {
    const value = options.value ?? `${KEY_PREFIX[kind]}${crypto.randomBytes(16).toString("hex")}`;
    if (this.keys.has(value)) throw new Error("API key already exists");
    const key: ApiKey = { value, accountId, kind, permissions: [...(options.permissions ?? DEFAULT_PERMISSIONS[kind])] };
    this.keys.set(value, key);
    return key;
  }

  createScan(accountId: string, input: { id?: string; cardNumber?: string | null; source: Scan["source"] }): Scan {
    const scan: Scan = {
      id: input.id ?? crypto.randomUUID(),
      accountId,
      groundTruth: null,
      imageDeleted: false,
      cardNumber: input.cardNumber ?? null,
      source: input.source,
      createdAt: new Date().toISOString(),
    };
    this.scans.set(scan.id, scan);
    return scan;
  }

  /** Uses up one occurrence of the `queryUnavailable` fault; true when it applies to this query. */
  takeQueryUnavailable(): boolean {
    const fault = this.faults.queryUnavailable;
    if (!fault || fault.count <= 0) return false;
    fault.count -= 1;
    if (fault.count === 0) delete this.faults.queryUnavailable;
    return true;
  }

  countRequest(route: string): void {
    this.requestCounts[route] = (this.requestCounts[route] ?? 0) + 1;
  }

  /** Records how long one request of `route` took, arrival to answer sent. */
  recordDuration(route: string, ms: number): void {
    const list = (this.requestDurations[route] ??= []);
    list.push(ms);
    if (list.length > MAX_DURATIONS) list.splice(0, list.length - MAX_DURATIONS);
  }

  resetStats(): void {
    this.requestCounts = Object.fromEntries(SERVICE_ROUTES.map((r) => [r, 0]));
    this.requestDurations = {};
  }

  stats(): Stats {
    const requests = { ...this.requestCounts };
    const durationsMs = Object.fromEntries(Object.entries(this.requestDurations).map(([route, list]) => [route, [...list]]));
    return { requests, total: Object.values(requests).reduce((a, b) => a + b, 0), durationsMs };
  }
}
