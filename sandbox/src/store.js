// @ts-check
"use strict";

const crypto = require("node:crypto");
const { Processor } = require("./cnp");
const { randomDigits } = require("./util");

/** @typedef {import("./cnp").ProcessorCredentials} ProcessorCredentials */
/** @typedef {"shareable" | "paymentToken" | "secret"} KeyKind */
/** @typedef {"form:submit" | "token:exchange" | "disputes:write" | "disputes:read" | "images:read"} Permission */

/** @type {Record<KeyKind, Permission[]>} */
const DEFAULT_PERMISSIONS = {
  shareable: ["form:submit"],
  paymentToken: ["token:exchange"],
  secret: ["disputes:write", "disputes:read", "images:read"],
};
const ALL_PERMISSIONS = /** @type {Permission[]} */ (Object.values(DEFAULT_PERMISSIONS).flat());
const KEY_PREFIX = { shareable: "pk_test_", paymentToken: "ptk_test_", secret: "sk_test_" };

/** The service routes whose requests `GET /__sandbox/stats` counts. */
const SERVICE_ROUTES = [
  "forms.create",
  "token.exchange",
  "cnp.online",
  "disputes.proofRequest.create",
  "disputes.proof.get",
  "disputes.image.get",
];

/**
 * @typedef {object} Account
 * @property {string} id
 * @property {string[]} domains
 * @property {ProcessorCredentials} processor
 * @property {string} createdAt
 */

/**
 * @typedef {object} ApiKey
 * @property {string} value
 * @property {string} accountId
 * @property {KeyKind} kind
 * @property {Permission[]} permissions
 */

/**
 * @typedef {object} FormConfig
 * @property {string} [customerId]
 * @property {string} [id]
 * @property {string} [reportGroup]
 */

/**
 * @typedef {object} FormRecord
 * @property {string} id
 * @property {string} accountId
 * @property {{ number: string, cvv: string, expiry: string }} card
 * @property {string} responseCode
 * @property {FormConfig} config
 * @property {boolean} scanned
 * @property {string} origin
 * @property {number} createdAt  epoch ms
 * @property {boolean} expired   set by the control API
 * @property {string | null} token  cached after the first successful exchange
 */

/** @typedef {"valid" | "invalid"} GroundTruth */

/**
 * @typedef {object} Scan
 * @property {string} id
 * @property {string} accountId
 * @property {GroundTruth | null} groundTruth
 * @property {boolean} imageDeleted
 * @property {string | null} cardNumber  drives the auto-labeller's test-card rule
 * @property {"form" | "control"} source
 * @property {string} createdAt
 */

/**
 * @typedef {object} ProofRequest
 * @property {string} id
 * @property {string} accountId
 * @property {string[]} scanIds  as submitted, without repeats
 * @property {"pending" | "complete"} status
 * @property {{ scanId: string, groundTruth: GroundTruth }[] | null} results  frozen at completion
 * @property {string} createdAt
 * @property {string | null} completedAt
 */

/**
 * @typedef {object} Settings
 * @property {"invalid" | "fraud"} fraudLabel  the word used for the negative verdict
 * @property {number | null} proofDelayMs     null: scans are only labelled through the control API
 * @property {number} formTtlMs
 */

/**
 * @typedef {object} Faults
 * @property {"fail"} [keyLookup]
 * @property {"fail"} [ownershipCheck]
 * @property {number} [latencyMs]
 * @property {number} [errorRate]
 * @property {number} [resetRate]
 * @property {{ route?: string, count: number }} [dropResponse]  process, then lose the answer
 */

/** All sandbox state, in memory. Business rules live in the feature modules, not here. */
class Store {
  /**
   * @param {Settings} settings
   */
  constructor(settings) {
    /** @type {Settings} */
    this.settings = { ...settings };
    /** @type {Faults} */
    this.faults = {};
    /** @type {Map<string, Account>} */
    this.accounts = new Map();
    /** @type {Map<string, ApiKey>} */
    this.keys = new Map();
    /** @type {Map<string, FormRecord>} */
    this.forms = new Map();
    /** @type {Map<string, Scan>} */
    this.scans = new Map();
    /** @type {Map<string, ProofRequest>} */
    this.proofRequests = new Map();
    this.processor = new Processor();
    /** @type {Record<string, number>} */
    this.requestCounts = {};
    this.resetStats();
  }

  /**
   * @param {{ id?: string, domains: string[], processor?: ProcessorCredentials, keys?: Partial<Record<KeyKind, string>> }} input
   */
  createAccount(input) {
    const processor = input.processor ?? {
      merchantId: randomDigits(7),
      user: `user_${crypto.randomBytes(4).toString("hex")}`,
      password: crypto.randomBytes(12).toString("base64url"),
    };
    this.processor.registerMerchant(processor);
    /** @type {Account} */
    const account = {
      id: input.id ?? crypto.randomUUID(),
      domains: [...input.domains],
      processor: { ...processor },
      createdAt: new Date().toISOString(),
    };
    this.accounts.set(account.id, account);
    const keys = /** @type {Record<KeyKind, string>} */ ({});
    for (const kind of /** @type {KeyKind[]} */ (["shareable", "paymentToken", "secret"])) {
      keys[kind] = this.createKey(account.id, kind, { value: input.keys?.[kind] }).value;
    }
    return { account, keys };
  }

  /**
   * @param {string} accountId
   * @param {KeyKind} kind
   * @param {{ value?: string, permissions?: Permission[] }} [options]
   */
  createKey(accountId, kind, options = {}) {
    const value = options.value ?? `${KEY_PREFIX[kind]}${crypto.randomBytes(16).toString("hex")}`;
    if (this.keys.has(value)) throw new Error("API key already exists");
    /** @type {ApiKey} */
    const key = { value, accountId, kind, permissions: [...(options.permissions ?? DEFAULT_PERMISSIONS[kind])] };
    this.keys.set(value, key);
    return key;
  }

  /**
   * @param {string} accountId
   * @param {{ id?: string, cardNumber?: string | null, source: Scan["source"] }} input
   */
  createScan(accountId, input) {
    /** @type {Scan} */
    const scan = {
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

  /** @param {string} route */
  countRequest(route) {
    this.requestCounts[route] = (this.requestCounts[route] ?? 0) + 1;
  }

  resetStats() {
    this.requestCounts = Object.fromEntries(SERVICE_ROUTES.map((r) => [r, 0]));
  }

  stats() {
    const requests = { ...this.requestCounts };
    return { requests, total: Object.values(requests).reduce((a, b) => a + b, 0) };
  }
}

module.exports = { Store, DEFAULT_PERMISSIONS, ALL_PERMISSIONS, SERVICE_ROUTES };
