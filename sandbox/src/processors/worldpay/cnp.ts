import * as crypto from "node:crypto";
import { cardType, luhnValid, randomDigits } from "../../util";
import { isXmlNode as isNode, ordered, orderedXmlBuilder, xmlBuilder as builder, xmlParser as parser, xmlProblem, XML_DECLARATION, type OrderedNode, type XmlNode } from "./xml";

/**
 * A simulated Worldpay eCommerce (cnpAPI) processor: token vault, authorizations and the
 * follow-up transactions that move money, with cnpAPI's duplicate detection. It only knows XML in
 * and XML out, so the token exchange and `POST /cnp/online` exercise exactly the same code.
 */

export interface ProcessorCredentials {
  merchantId: string;
  user: string;
  password: string;
}

/** The transactions that register a card or move money: each has an original response to look up. */
export type PaymentTxnType = "registerTokenRequest" | "authorization" | "sale" | "capture" | "credit" | "void" | "authReversal";
export type TxnType = PaymentTxnType | "queryTransaction";
export type TxnSource = "http" | "token-exchange";

type Code = readonly [code: string, message: string];

/** What `GET /__sandbox/processor/transactions` shows of a transaction. */
export interface ProcessorTransaction {
  seq: number;
  type: TxnType;
  merchantId: string;
  /** the request's `id` attribute */
  id: string | null;
  reportGroup: string | null;
  customerId: string | null;
  orderId: string | null;
  /** minor units, as requested (or as applied when defaulted) */
  amount: number | null;
  /** for duplicates, the original transaction's id; null for a queryTransaction, which has none */
  cnpTxnId: string | null;
  /** the transaction a follow-up refers to; for a queryTransaction, the first original it found */
  originalCnpTxnId: string | null;
  token: string | null;
  response: string;
  message: string;
  duplicate: boolean;
  source: TxnSource;
  /** password redacted */
  requestXml: string;
  responseXml: string;
  createdAt: string;
}

/** The processor's own record of a payment transaction: the public view plus the money state and the answer it gave. */
interface TxnRecord extends ProcessorTransaction {
  type: PaymentTxnType;
  cnpTxnId: string;
  /** money state of approved originals */
  ledger: Ledger | null;
  responseElement: XmlNode;
  /** the dialect the response element was written in (cnpTxnId or litleTxnId) */
  dialect: Dialect;
  /** `<token><expDate>` of an authorization or sale, MMYY */
  expDate: string | null;
}

/** An approved authorization or sale, as a chargeback case needs it. */
export interface OriginalPayment {
  merchantId: string;
  type: "authorization" | "sale";
  cnpTxnId: string;
  /** the request's `id` attribute: the merchant's own transaction id */
  id: string | null;
  orderId: string | null;
  customerId: string | null;
  /** minor units */
  amount: number;
  token: string | null;
  /** the card behind the token (test cards only ever reach the sandbox) */
  cardNumber: string | null;
  /** MMYY, when the request carried one */
  expDate: string | null;
  createdAt: string;
}

interface Ledger {
  /** authorization: amount authorized */
  authorized: number;
  /** authorization: sum of live captures; capture/sale: amount captured */
  captured: number;
  /** authorization: amount released by authReversal */
  reversed: number;
  fullyReversed: boolean;
  /** capture/sale: sum of live credits */
  refunded: number;
  voided: boolean;
  parent: TxnRecord | null;
}

interface ParsedRequest {
  orderId?: string | undefined;
  amount?: number | undefined;
  cnpTxnId?: string;
  accountNumber?: string;
  token?: string;
  expDate?: string;
}

interface Outcome {
  code: Code;
  amount?: number | undefined;
  token?: string | null;
  extra?: { token?: string; bin?: string | undefined; type?: string | undefined; authCode?: string };
  ledger?: Ledger;
  commit?: (record: TxnRecord) => void;
}

export const CODES = {
  approved: ["000", "Approved"],
  insufficientFunds: ["110", "Insufficient Funds"],
  depleted: ["111", "Authorization amount has already been depleted"],
  expiredCard: ["305", "Expired Card"],
  authNoLongerAvailable: ["306", "Authorization no longer available"],
  invalidTransaction: ["322", "Invalid Transaction"],
  reversalAmountMismatch: ["336", "Reversal amount does not match Authorization amount"],
  invalidAmount: ["340", "Invalid Amount"],
  doNotHonor: ["349", "Do Not Honor"],
  noTransaction: ["360", "No transaction found with specified transaction Id"],
  notVoided: ["362", "Transaction Not Voided - Already Settled"],
  creditExceedsCapture: ["365", "Total credit amount exceeds capture amount"],
  originalFound: ["150", "Original transaction found"],
  originalNotFound: ["151", "Original transaction not found"],
  originalUnavailable: ["152", "Original transaction found but response not yet available"],
  registered: ["801", "Account number was successfully registered"],
  previouslyRegistered: ["802", "Account number was previously registered"],
  invalidCardNumber: ["820", "Credit card number was invalid"],
  tokenNotFound: ["822", "Token was not found"],
} as const satisfies Record<string, Code>;

/** Cards whose authorizations and sales decline, decided from the card behind the token. */
export const DECLINING_CARDS: ReadonlyMap<string, Code> = new Map<string, Code>([
  ["4000000000009995", CODES.insufficientFunds],
  ["4000000000000002", CODES.doNotHonor],
  ["4000000000000069", CODES.expiredCard],
]);

/**
 * Worldpay merchant ids are numbers: cnpAPI's `merchantId` attribute is a string of up to 50
 * characters, but the Chargeback API sends the case's `merchantId` as an `xs:long`
 * (chargeback-api-v2.1.xsd), so a merchant the sandbox serves has one both APIs can carry: 1 to
 * 18 digits, no leading zero (the long's canonical form, so both APIs spell it alike).
 */
export const WORLDPAY_MERCHANT_ID = /^[1-9]\d{0,17}$/;
export const MERCHANT_ID_RULE = "a Worldpay merchant id is a number (1 to 18 digits, no leading zero): the Chargeback API sends it as an xs:long";

/** Luhn-valid, so it passes the hosted form, but the processor refuses to tokenize it. */
export const UNTOKENIZABLE_CARD = "4457119999999996";
/** Certification data: the cert card's token is the same at every merchant. */
export const CERT_CARD = "4457119922390123";
export const CERT_TOKEN = "1111000276870123";
/** Certification data: a token the vault never knows. */
export const MISSING_TOKEN = "1111000100092332";

interface Dialect {
  request: string;
  response: string;
  xmlns: string;
  txnId: string;
  token: string;
}

const NAMESPACES = {
  cnp: { request: "cnpOnlineRequest", response: "cnpOnlineResponse", xmlns: "http://www.vantivcnp.com/schema", txnId: "cnpTxnId", token: "cnpToken" },
  litle: { request: "litleOnlineRequest", response: "litleOnlineResponse", xmlns: "http://www.litle.com/schema", txnId: "litleTxnId", token: "litleToken" },
} as const satisfies Record<string, Dialect>;

const RESPONSE_ELEMENT: Record<PaymentTxnType, string> = {
  registerTokenRequest: "registerTokenResponse",
  authorization: "authorizationResponse",
  sale: "saleResponse",
  capture: "captureResponse",
  credit: "creditResponse",
  void: "voidResponse",
  authReversal: "authReversalResponse",
};
const TXN_TYPES: readonly TxnType[] = [...(Object.keys(RESPONSE_ELEMENT) as PaymentTxnType[]), "queryTransaction"];
/** Token registration is idempotent by itself (802), so only money movements are deduplicated. */
const DEDUPLICATED: ReadonlySet<TxnType> = new Set(["authorization", "sale", "capture", "credit", "void", "authReversal"]);

function isTxnType(name: string): name is TxnType {
  return (TXN_TYPES as readonly string[]).includes(name);
}

/**
 * cnpAPI's `actionTypeEnum` (every value the schema allows) and the sandbox transactions each
 * one names. The others name transactions the sandbox does not have (gift cards, eCheck, funding
 * instructions, ...), so a query for them finds nothing.
 */
const ACTION_TYPES: Readonly<Record<string, readonly PaymentTxnType[]>> = {
  A: ["authorization"],
  S: ["sale"],
  D: ["capture"],
  R: ["credit"],
  AR: ["authReversal"],
  V: ["void"],
  ...Object.fromEntries(
    ["G", "I", "J", "L", "LR", "P", "RR", "T", "UR", "W", "X", "FIFA", "FIVC", "FIVD", "FISC", "FISD", "FIPC", "FIPD", "FIRC", "FIRD"].map(
      (code) => [code, []],
    ),
  ),
};
/** At most this many original responses come back in `<results_max10>`; `<matchCount>` tells all. */
const MAX_QUERY_RESULTS = 10;

/** A response element written in one dialect, renamed for another (cnpTxnId ↔ litleTxnId, cnpToken ↔ litleToken). */
function inDialect(el: XmlNode, from: Dialect, to: Dialect): XmlNode {
  if (from === to) return el;
  const renamed: Record<string, string> = { [from.txnId]: to.txnId, [from.token]: to.token };
  return Object.fromEntries(Object.entries(el).map(([key, value]) => [renamed[key] ?? key, value]));
}

/** Raised for requests cnpAPI would refuse as a whole (`response="1"` on the envelope). */
class EnvelopeError extends Error {}

const schemaError = (detail: string) => new EnvelopeError(`Error validating xml data against the schema: ${detail}`);

export function redactPassword(xml: string): string {
  return xml.replace(
    /(<(?:[\w.-]+:)?password\b[^>]*>)([\s\S]*?)(<\/(?:[\w.-]+:)?password\s*>)/gi,
    "$1[REDACTED]$3",
  );
}

/** Element text, whether the parser gave a string or an object with attributes. */
function text(node: unknown): string | undefined {
  if (node === undefined || node === null) return undefined;
  if (typeof node === "string") return node;
  if (isNode(node)) {
    const inner = node["#text"];
    return inner === undefined ? "" : String(inner);
  }
  throw schemaError("an element that may occur once was repeated");
}

function child(node: XmlNode, name: string): XmlNode | undefined {
  const value = Object.hasOwn(node, name) ? node[name] : undefined;
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw schemaError(`element <${name}> may occur only once`);
  if (typeof value === "string") return value === "" ? {} : { "#text": value };
  return isNode(value) ? value : {};
}

function childText(node: XmlNode, name: string): string | undefined {
  return Object.hasOwn(node, name) ? text(node[name]) : undefined;
}

function attr(node: XmlNode, name: string): string | undefined {
  const value = node[`@_${name}`];
  return typeof value === "string" ? value : undefined;
}

function parseAmount(raw: string | undefined, element: string): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,12}$/.test(raw)) throw schemaError(`<${element}> must be a non-negative integer in minor units, got '${raw}'`);
  return Number(raw);
}

function checkLength(value: string, what: string, max: number): void {
  if (value.length > max) throw schemaError(`${what} is longer than ${max} characters`);
}

/** `MMYY`, true when the card expired before the current month. */
function expDateInPast(expDate: string, now: Date): boolean {
  const month = Number(expDate.slice(0, 2));
  const year = 2000 + Number(expDate.slice(2, 4));
  return year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

export interface ProcessorResult {
  xml: string;
  envelope: { response: "0" | "1"; message: string };
  transaction?: ProcessorTransaction;
}

export interface HandleOptions {
  source?: TxnSource;
  /**
   * Asked when a queryTransaction found its original: true answers 152 "not yet available"
   * instead (the `queryUnavailable` fault).
   */
  queryUnavailable?: () => boolean;
}

/** A queryTransaction as the processor keeps it: it looks transactions up and changes nothing. */
interface QueryRecord extends ProcessorTransaction {
  type: "queryTransaction";
}

export interface TransactionFilter {
  type?: string | undefined;
  merchantId?: string | undefined;
  id?: string | undefined;
}

export class Processor {
  private readonly now: () => Date;
  private readonly merchants = new Map<string, ProcessorCredentials>();
  private readonly vaults = new Map<string, { byToken: Map<string, string>; byCard: Map<string, string> }>();
  private readonly transactions: (TxnRecord | QueryRecord)[] = [];
  private readonly byTxnId = new Map<string, TxnRecord>();
  private readonly originals = new Map<string, TxnRecord>();
  /** Approved authorizations and sales by orderId, for raising chargebacks by order. */
  private readonly paymentsByOrderId = new Map<string, TxnRecord[]>();

  constructor(options: { now?: () => Date } = {}) {
    this.now = options.now ?? (() => new Date());
  }

  /**
   * The merchants these credentials open (the Chargeback API authenticates by user and password
   * only). Compared in constant time, like cnpAPI's `<authentication>`.
   */
  merchantsFor(user: string, password: string): string[] {
    const same = (a: string, b: string) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
    return [...this.merchants.values()].filter((m) => same(m.user, user) && same(m.password, password)).map((m) => m.merchantId);
  }

  /**
   * Approved authorizations and sales (never duplicate replays) by cnpTxnId or by orderId,
   * optionally of one merchant: what a chargeback can be raised on.
   */
  originalPayments(filter: { cnpTxnId?: string | undefined; orderId?: string | undefined; merchantId?: string | undefined }): OriginalPayment[] {
    let records: TxnRecord[];
    if (filter.cnpTxnId !== undefined) {
      const record = this.byTxnId.get(filter.cnpTxnId);
      records = record ? [record] : [];
    } else if (filter.orderId !== undefined) {
      records = this.paymentsByOrderId.get(filter.orderId) ?? [];
    } else {
      records = [];
    }
    return records
      .filter((r) => (r.type === "authorization" || r.type === "sale") && r.response === "000" && !r.duplicate)
      .filter((r) => filter.merchantId === undefined || r.merchantId === filter.merchantId)
      .map((r) => ({
        merchantId: r.merchantId,
        type: r.type === "sale" ? "sale" : "authorization",
        cnpTxnId: r.cnpTxnId,
        id: r.id,
        orderId: r.orderId,
        customerId: r.customerId,
        amount: r.amount ?? 0,
        token: r.token,
        cardNumber: r.token === null ? null : (this.vaultOf(r.merchantId).byToken.get(r.token) ?? null),
        expDate: r.expDate,
        createdAt: r.createdAt,
      }));
  }

  /** Accounts may share a merchant only when they agree on its credentials. */
  registerMerchant(creds: ProcessorCredentials): void {
    if (!WORLDPAY_MERCHANT_ID.test(creds.merchantId)) throw new TypeError(MERCHANT_ID_RULE);
    const existing = this.merchants.get(creds.merchantId);
    if (existing && (existing.user !== creds.user || existing.password !== creds.password)) {
      throw new Error(`Merchant ${creds.merchantId} already exists with other credentials`);
    }
    if (!existing) this.merchants.set(creds.merchantId, { ...creds });
  }

  /**
   * Runs one cnpAPI online request. Never throws for bad input: cnpAPI answers those with
   * `response="1"` on the envelope.
   */
  handle(xml: string, meta: HandleOptions = {}): ProcessorResult {
    let dialect: Dialect = NAMESPACES.cnp;
    let version = "12.30";
    try {
      const envelope = this.parseEnvelope(xml);
      dialect = envelope.dialect;
      version = envelope.version;
      const merchantId = this.authenticate(envelope.root);
      const [type, node] = this.transactionOf(envelope.root);
      const requestXml = redactPassword(xml);
      const source = meta.source ?? "http";
      if (type === "queryTransaction") {
        const { record, element } = this.query(node, merchantId, dialect, requestXml, source, meta.queryUnavailable);
        record.responseXml = this.buildOrderedEnvelope(dialect, version, element);
        return { xml: record.responseXml, envelope: { response: "0", message: "Valid Format" }, transaction: record };
      }
      const record = this.run(type, node, merchantId, dialect, requestXml, source);
      const out = this.buildEnvelope(dialect, version, "0", "Valid Format", {
        [RESPONSE_ELEMENT[type]]: record.responseElement,
      });
      record.responseXml = out;
      return { xml: out, envelope: { response: "0", message: "Valid Format" }, transaction: record };
    } catch (error) {
      if (!(error instanceof EnvelopeError)) throw error;
      return {
        xml: this.buildEnvelope(dialect, version, "1", error.message, {}),
        envelope: { response: "1", message: error.message },
      };
    }
  }

  private parseEnvelope(xml: string): { root: XmlNode; dialect: Dialect; version: string } {
    const problem = xmlProblem(xml);
    if (problem) throw schemaError(problem);
    const doc: XmlNode = parser.parse(xml);
    const dialect: Dialect = Object.hasOwn(doc, NAMESPACES.litle.request) ? NAMESPACES.litle : NAMESPACES.cnp;
    const root = doc[dialect.request];
    if (root === undefined || Object.keys(doc).length !== 1) {
      throw schemaError("the root element must be <cnpOnlineRequest> (or <litleOnlineRequest>)");
    }
    if (!isNode(root)) throw schemaError(`<${dialect.request}> is empty`);
    const requested = attr(root, "version");
    const version = requested && /^\d{1,2}\.\d{1,2}$/.test(requested) ? requested : "12.30";
    return { root, dialect, version };
  }

  /** @returns the merchantId */
  private authenticate(root: XmlNode): string {
    const merchantId = attr(root, "merchantId");
    if (!merchantId) throw schemaError("the merchantId attribute is required");
    const auth = child(root, "authentication");
    const user = auth && childText(auth, "user");
    const password = auth && childText(auth, "password");
    if (!user || password === undefined) throw schemaError("<authentication> with <user> and <password> is required");
    const merchant = this.merchants.get(merchantId);
    const same = (a: string, b: string) => a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
    if (!merchant || !same(merchant.user, user) || !same(merchant.password, password)) {
      throw new EnvelopeError("Authentication failed: unknown merchantId, or wrong user or password");
    }
    return merchantId;
  }

  private transactionOf(root: XmlNode): [TxnType, XmlNode] {
    const names = Object.keys(root).filter((k) => !k.startsWith("@_") && k !== "authentication" && k !== "#text");
    const name = names[0];
    if (name === undefined || names.length !== 1 || Array.isArray(root[name])) {
      const found =
        names.length === 0
          ? "none"
          : names
              .map((n) => {
                const value = root[n];
                return Array.isArray(value) ? `${value.length} × <${n}>` : `<${n}>`;
              })
              .join(", ");
      throw schemaError(`exactly one transaction element is expected, found ${found}`);
    }
    if (!isTxnType(name)) {
      throw schemaError(`<${name}> is not supported by the sandbox (supported: ${TXN_TYPES.join(", ")})`);
    }
    return [name, child(root, name) ?? {}];
  }

  private run(
    type: PaymentTxnType,
    node: XmlNode,
    merchantId: string,
    dialect: Dialect,
    requestXml: string,
    source: TxnSource,
  ): TxnRecord {
    const id = attr(node, "id") ?? null;
    const reportGroup = attr(node, "reportGroup") ?? null;
    const customerId = attr(node, "customerId") ?? null;
    if (id !== null) checkLength(id, "the id attribute", 25);
    if (customerId !== null) checkLength(customerId, "the customerId attribute", 50);
    if (reportGroup === null) throw schemaError(`the reportGroup attribute of <${type}> is required`);
    const request = this.readRequest(type, node);

    const base = {
      type,
      merchantId,
      id,
      reportGroup,
      customerId,
      orderId: request.orderId ?? null,
      source,
      requestXml,
      responseXml: "",
      createdAt: this.now().toISOString(),
    };

    const dedupeKey = `${merchantId}\u0000${type}\u0000${id}`;
    const original = id !== null && DEDUPLICATED.has(type) ? this.originals.get(dedupeKey) : undefined;
    if (original) {
      const duplicate: TxnRecord = {
        ...base,
        seq: this.transactions.length + 1,
        amount: original.amount,
        cnpTxnId: original.cnpTxnId,
        originalCnpTxnId: original.originalCnpTxnId,
        token: original.token,
        response: original.response,
        message: original.message,
        duplicate: true,
        ledger: null,
        responseElement: { ...inDialect(original.responseElement, original.dialect, dialect), "@_duplicate": "true" },
        dialect,
        expDate: original.expDate,
      };
      this.transactions.push(duplicate);
      return duplicate;
    }

    const outcome = this.execute(type, request, merchantId);
    const cnpTxnId = this.newTxnId();
    const record: TxnRecord = {
      ...base,
      seq: this.transactions.length + 1,
      amount: outcome.amount ?? null,
      cnpTxnId,
      originalCnpTxnId: request.cnpTxnId ?? null,
      token: outcome.token ?? null,
      response: outcome.code[0],
      message: outcome.code[1],
      duplicate: false,
      ledger: outcome.ledger ?? null,
      responseElement: {},
      dialect,
      expDate: request.expDate ?? null,
    };
    record.responseElement = this.responseElement(record, dialect, outcome);
    if (outcome.commit) outcome.commit(record);
    this.transactions.push(record);
    this.byTxnId.set(cnpTxnId, record);
    if (id !== null && DEDUPLICATED.has(type)) this.originals.set(dedupeKey, record);
    if ((type === "authorization" || type === "sale") && record.response === "000" && record.orderId !== null) {
      const list = this.paymentsByOrderId.get(record.orderId) ?? [];
      list.push(record);
      this.paymentsByOrderId.set(record.orderId, list);
    }
    return record;
  }

  /**
   * `queryTransaction`: finds this merchant's original transactions by the `id` they were sent
   * with (and their action type), or by their cnpTxnId, and answers their original responses
   * (150), "not found" (151), or "found but not yet available" (152, the `queryUnavailable`
   * fault). Retries that came back as duplicates are not originals and are never listed.
   */
  private query(
    node: XmlNode,
    merchantId: string,
    dialect: Dialect,
    requestXml: string,
    source: TxnSource,
    unavailable: (() => boolean) | undefined,
  ): { record: QueryRecord; element: OrderedNode } {
    const id = attr(node, "id") ?? null;
    const reportGroup = attr(node, "reportGroup") ?? null;
    const customerId = attr(node, "customerId") ?? null;
    if (id !== null) checkLength(id, "the id attribute", 25);
    if (customerId !== null) checkLength(customerId, "the customerId attribute", 50);
    if (reportGroup === null) throw schemaError("the reportGroup attribute of <queryTransaction> is required");
    const wanted = this.readQuery(node);

    const matches = this.transactions.filter(
      (t): t is TxnRecord =>
        t.type !== "queryTransaction" &&
        !t.duplicate &&
        t.merchantId === merchantId &&
        (wanted.origId === undefined || t.id === wanted.origId) &&
        (wanted.origCnpTxnId === undefined || t.cnpTxnId === wanted.origCnpTxnId) &&
        (wanted.types === null || wanted.types.includes(t.type)),
    );
    const first = matches[0];
    const createdAt = this.now().toISOString();
    const code = !first ? CODES.originalNotFound : unavailable?.() ? CODES.originalUnavailable : CODES.originalFound;

    const attributes: Record<string, string> = {};
    if (id !== null) attributes["@_id"] = id;
    attributes["@_reportGroup"] = reportGroup;
    if (customerId !== null) attributes["@_customerId"] = customerId;
    let element: OrderedNode;
    if (first && code === CODES.originalUnavailable) {
      element = {
        queryTransactionUnavailableResponse: [
          ordered(dialect.txnId, first.cnpTxnId),
          ordered("response", code[0]),
          ordered("message", code[1]),
        ],
        ":@": attributes,
      };
    } else {
      const children = [
        ordered("response", code[0]),
        ordered("responseTime", createdAt.slice(0, 19)),
        ordered("message", code[1]),
        ordered("matchCount", String(matches.length)),
      ];
      if (matches.length > 0) {
        children.push({
          results_max10: matches
            .slice(0, MAX_QUERY_RESULTS)
            .map((t) => ordered(RESPONSE_ELEMENT[t.type], inDialect(t.responseElement, t.dialect, dialect))),
        });
      }
      element = { queryTransactionResponse: children, ":@": attributes };
    }

    const record: QueryRecord = {
      seq: this.transactions.length + 1,
      type: "queryTransaction",
      merchantId,
      id,
      reportGroup,
      customerId,
      orderId: null,
      amount: null,
      cnpTxnId: null,
      originalCnpTxnId: first?.cnpTxnId ?? null,
      token: null,
      response: code[0],
      message: code[1],
      duplicate: false,
      source,
      requestXml,
      responseXml: "",
      createdAt,
    };
    this.transactions.push(record);
    return { record, element };
  }

  private readQuery(node: XmlNode): { origId?: string; origCnpTxnId?: string; types: readonly PaymentTxnType[] | null } {
    const wanted: { origId?: string; origCnpTxnId?: string; types: readonly PaymentTxnType[] | null } = { types: null };
    const rawId = childText(node, "origId");
    if (rawId !== undefined) {
      // The schema's type collapses white space, then allows 1 to 36 characters.
      const origId = rawId.replace(/\s+/g, " ").trim();
      if (origId.length < 1 || origId.length > 36) throw schemaError("<origId> must be 1 to 36 characters");
      wanted.origId = origId;
    }
    const actionType = childText(node, "origActionType");
    if (actionType !== undefined && actionType !== "") {
      const types = Object.hasOwn(ACTION_TYPES, actionType) ? ACTION_TYPES[actionType] : undefined;
      if (!types) throw schemaError(`<origActionType> must be one of ${Object.keys(ACTION_TYPES).join(", ")}, got '${actionType}'`);
      wanted.types = types;
    }
    const origCnpTxnId = childText(node, "origCnpTxnId") ?? childText(node, "origLitleTxnId");
    if (origCnpTxnId !== undefined) {
      if (!/^\d{1,19}$/.test(origCnpTxnId)) throw schemaError(`<origCnpTxnId> must be numeric, got '${origCnpTxnId}'`);
      wanted.origCnpTxnId = origCnpTxnId;
    }
    const showStatusOnly = childText(node, "showStatusOnly");
    if (showStatusOnly !== undefined && showStatusOnly !== "Y" && showStatusOnly !== "N") {
      throw schemaError(`<showStatusOnly> must be Y or N, got '${showStatusOnly}'`);
    }
    if (wanted.origId === undefined && wanted.origCnpTxnId === undefined) {
      throw schemaError("<queryTransaction> needs <origId> (with <origActionType>) or <origCnpTxnId>");
    }
    return wanted;
  }

  /** Pulls and checks the fields each transaction type needs; shape problems are schema errors. */
  private readRequest(type: PaymentTxnType, node: XmlNode): ParsedRequest {
    const orderId = childText(node, "orderId");
    if (orderId !== undefined) checkLength(orderId, "<orderId>", 25);
    const amount = parseAmount(childText(node, "amount"), "amount");
    const cnpTxnId = childText(node, "cnpTxnId") ?? childText(node, "litleTxnId");
    const request: ParsedRequest = { orderId, amount };

    if (type === "registerTokenRequest") {
      const accountNumber = childText(node, "accountNumber");
      if (accountNumber === undefined) {
        throw schemaError("<registerTokenRequest> needs <accountNumber> (the sandbox does not support paypageRegistrationId)");
      }
      request.accountNumber = accountNumber;
    } else if (type === "authorization" || type === "sale") {
      if (!orderId) throw schemaError(`<${type}> needs <orderId>`);
      if (amount === undefined) throw schemaError(`<${type}> needs <amount>`);
      if (!childText(node, "orderSource")) throw schemaError(`<${type}> needs <orderSource>`);
      const token = child(node, "token");
      if (!token) throw schemaError(`<${type}> needs <token> (the sandbox only accepts token payments)`);
      const value = childText(token, "cnpToken") ?? childText(token, "litleToken");
      if (!value) throw schemaError("<token> needs <cnpToken>");
      request.token = value;
      const expDate = childText(token, "expDate");
      if (expDate !== undefined && expDate !== "") {
        if (!/^(0[1-9]|1[0-2])\d\d$/.test(expDate)) throw schemaError(`<expDate> must be MMYY, got '${expDate}'`);
        request.expDate = expDate;
      }
    } else {
      if (!cnpTxnId) throw schemaError(`<${type}> needs <cnpTxnId>`);
      if (!/^\d{1,19}$/.test(cnpTxnId)) throw schemaError(`<cnpTxnId> must be numeric, got '${cnpTxnId}'`);
      request.cnpTxnId = cnpTxnId;
    }
    return request;
  }

  /**
   * Decides the outcome. Nothing is mutated here except through `commit`, which runs only once
   * the transaction has an id, so a thrown schema error never leaves half an effect behind.
   */
  private execute(type: PaymentTxnType, request: ParsedRequest, merchantId: string): Outcome {
    switch (type) {
      case "registerTokenRequest":
        return this.registerToken(merchantId, request.accountNumber ?? "");
      case "authorization":
      case "sale":
        return this.authorize(type, merchantId, request);
      case "capture":
        return this.drawDown(merchantId, request, CODES.invalidAmount, "captured");
      case "credit":
        return this.credit(merchantId, request);
      case "void":
        return this.void(merchantId, request);
      case "authReversal":
        return this.drawDown(merchantId, request, CODES.reversalAmountMismatch, "reversed");
    }
  }

  private registerToken(merchantId: string, accountNumber: string): Outcome {
    const number = accountNumber.replace(/[\s-]/g, "");
    const bin = /^\d{6}/.test(number) ? number.slice(0, 6) : undefined;
    if (!/^\d{13,19}$/.test(number) || !luhnValid(number) || number === UNTOKENIZABLE_CARD) {
      return { code: CODES.invalidCardNumber, extra: { bin } };
    }
    const vault = this.vaultOf(merchantId);
    // Worldpay's certification data has this card already on file ("registers
    // with 802"), so even its first registration at a merchant answers 802.
    const known = vault.byCard.get(number) ?? (number === CERT_CARD ? CERT_TOKEN : undefined);
    const token = known ?? this.mintToken(merchantId, number);
    return {
      code: known ? CODES.previouslyRegistered : CODES.registered,
      token,
      extra: { token, bin, type: cardType(number) },
      commit: () => {
        vault.byCard.set(number, token);
        vault.byToken.set(token, number);
      },
    };
  }

  /**
   * Worldpay-looking tokens: 16 digits, the card's last four kept, deterministic per merchant and
   * card, and failing the Luhn check so a token can never pass for a card number.
   */
  private mintToken(merchantId: string, number: string): string {
    if (number === CERT_CARD) return CERT_TOKEN;
    const vault = this.vaultOf(merchantId);
    for (let attempt = 0; ; attempt++) {
      const digest = crypto.createHash("sha256").update(`${merchantId}\u0000${number}\u0000${attempt}`).digest();
      const middle = String(digest.readUInt32BE(0) % 100000000).padStart(8, "0");
      let token = `1111${middle}${number.slice(-4)}`;
      if (luhnValid(token)) {
        // Moving one digit by one always breaks mod 10, whichever position it is in.
        const d = (Number(token[11]) + 1) % 10;
        token = `${token.slice(0, 11)}${d}${token.slice(12)}`;
      }
      if (token !== MISSING_TOKEN && token !== CERT_TOKEN && !vault.byToken.has(token)) return token;
    }
  }

  private authorize(type: "authorization" | "sale", merchantId: string, request: ParsedRequest): Outcome {
    const amount = request.amount ?? 0;
    const token = request.token ?? "";
    const card = token === MISSING_TOKEN ? undefined : this.vaultOf(merchantId).byToken.get(token);
    if (!card) return { code: CODES.tokenNotFound, amount, token };
    const decline = DECLINING_CARDS.get(card);
    if (decline) return { code: decline, amount, token };
    if (request.expDate && expDateInPast(request.expDate, this.now())) return { code: CODES.expiredCard, amount, token };
    return {
      code: CODES.approved,
      amount,
      token,
      extra: { authCode: randomDigits(6) },
      ledger: type === "authorization" ? ledger({ authorized: amount }) : ledger({ captured: amount }),
    };
  }

  private credit(merchantId: string, request: ParsedRequest): Outcome {
    const target = this.findApproved(merchantId, request.cnpTxnId, ["capture", "sale"]);
    if (!target?.ledger) return { code: CODES.noTransaction, amount: request.amount };
    const l = target.ledger;
    const refundable = l.voided ? 0 : l.captured - l.refunded;
    const amount = request.amount ?? refundable;
    if (refundable <= 0 || amount > refundable) return { code: CODES.creditExceedsCapture, amount };
    if (amount <= 0) return { code: CODES.invalidAmount, amount };
    return {
      code: CODES.approved,
      amount,
      token: target.token,
      ledger: ledger({ parent: target }),
      commit: () => {
        l.refunded += amount;
      },
    };
  }

  private void(merchantId: string, request: ParsedRequest): Outcome {
    const target = this.findApproved(merchantId, request.cnpTxnId, ["capture", "sale", "credit"]);
    if (!target?.ledger) return { code: CODES.noTransaction };
    const l = target.ledger;
    const amount = target.amount ?? undefined;
    if (l.voided) return { code: CODES.notVoided, amount };
    // Refunded money has already left: the refunds must be voided first. Not 362, which clients
    // rightly read as "already voided".
    if (target.type !== "credit" && l.refunded > 0) return { code: CODES.invalidTransaction, amount };
    return {
      code: CODES.approved,
      amount,
      token: target.token,
      ledger: ledger({}),
      commit: () => {
        l.voided = true;
        const parent = l.parent?.ledger;
        if (!parent) return;
        // Undo the effect the voided transaction had on the one it referred to.
        if (target.type === "capture") parent.captured -= l.captured;
        if (target.type === "credit") parent.refunded -= target.amount ?? 0;
      },
    };
  }

  /**
   * Capture and reversal both take money out of what an authorization still holds; they
   * differ only in the code for an amount over the remainder and the ledger column.
   */
  private drawDown(merchantId: string, request: ParsedRequest, overAmountCode: Code, column: "captured" | "reversed"): Outcome {
    const auth = this.findApproved(merchantId, request.cnpTxnId, ["authorization"]);
    if (!auth?.ledger) return { code: CODES.noTransaction, amount: request.amount };
    const l = auth.ledger;
    if (l.fullyReversed) return { code: CODES.authNoLongerAvailable, amount: request.amount };
    const remaining = l.authorized - l.captured - l.reversed;
    if (remaining <= 0) return { code: CODES.depleted, amount: request.amount };
    const amount = request.amount ?? remaining;
    if (amount <= 0 || amount > remaining) return { code: overAmountCode, amount };
    return {
      code: CODES.approved,
      amount,
      token: auth.token,
      ledger: ledger({ [column]: amount, parent: auth }),
      commit: () => {
        l[column] += amount;
        if (column === "reversed" && l.authorized - l.captured - l.reversed <= 0) l.fullyReversed = true;
      },
    };
  }

  /**
   * A transaction of this merchant, of one of the given types, that was approved. Anything else
   * is "not found", as cnpAPI does not reveal other merchants' transactions.
   */
  private findApproved(merchantId: string, cnpTxnId: string | undefined, types: readonly PaymentTxnType[]): TxnRecord | undefined {
    const record = cnpTxnId ? this.byTxnId.get(cnpTxnId) : undefined;
    if (!record || record.merchantId !== merchantId || !types.includes(record.type) || record.response !== "000") {
      return undefined;
    }
    return record;
  }

  private responseElement(record: TxnRecord, dialect: Dialect, outcome: Outcome): XmlNode {
    const el: XmlNode = {};
    if (record.id !== null) el["@_id"] = record.id;
    if (record.reportGroup !== null) el["@_reportGroup"] = record.reportGroup;
    if (record.customerId !== null) el["@_customerId"] = record.customerId;
    el[dialect.txnId] = record.cnpTxnId;
    // cnpAPI's XSD (cnpTransaction_v12.34.xsd) gives `orderId` to authorizationResponse and
    // saleResponse only, where it is required; registerTokenResponse and the follow-ups have none,
    // even when their request carried one.
    if ((record.type === "authorization" || record.type === "sale") && record.orderId !== null) el.orderId = record.orderId;
    const extra = outcome.extra ?? {};
    if (record.type === "registerTokenRequest" && extra.token) el[dialect.token] = extra.token;
    el.response = record.response;
    el.responseTime = record.createdAt.slice(0, 19);
    el.message = record.message;
    if (extra.authCode) el.authCode = extra.authCode;
    if (record.type === "registerTokenRequest") {
      if (extra.bin) el.bin = extra.bin;
      if (extra.type) el.type = extra.type;
    }
    // `postDate` is optional in sale, capture and credit responses (sent on approval) and required
    // in voidResponse (cnpOnline_v12.34.xsd), so a refused void carries one too.
    if ((["sale", "capture", "credit"].includes(record.type) && record.response === "000") || record.type === "void") {
      el.postDate = record.createdAt.slice(0, 10);
    }
    return el;
  }

  private buildEnvelope(dialect: Dialect, version: string, response: "0" | "1", message: string, body: XmlNode): string {
    return builder.build({
      "?xml": XML_DECLARATION,
      [dialect.response]: {
        "@_version": version,
        "@_xmlns": dialect.xmlns,
        "@_response": response,
        "@_message": message,
        ...body,
      },
    });
  }

  /** The envelope of a queryTransaction answer, whose `<results_max10>` must keep its order. */
  private buildOrderedEnvelope(dialect: Dialect, version: string, element: OrderedNode): string {
    return orderedXmlBuilder.build([
      { "?xml": [], ":@": XML_DECLARATION },
      {
        [dialect.response]: [element],
        ":@": { "@_version": version, "@_xmlns": dialect.xmlns, "@_response": "0", "@_message": "Valid Format" },
      },
    ]);
  }

  private vaultOf(merchantId: string): { byToken: Map<string, string>; byCard: Map<string, string> } {
    let vault = this.vaults.get(merchantId);
    if (!vault) {
      vault = { byToken: new Map(), byCard: new Map() };
      this.vaults.set(merchantId, vault);
    }
    return vault;
  }

  private newTxnId(): string {
    for (;;) {
      const id = randomDigits(18);
      if (!this.byTxnId.has(id)) return id;
    }
  }

  /** Public view for the control API: no ledger internals, no live object references. */
  listTransactions(filter: TransactionFilter = {}): ProcessorTransaction[] {
    return this.transactions
      .filter(
        (t) =>
          (!filter.type || t.type === filter.type) &&
          (!filter.merchantId || t.merchantId === filter.merchantId) &&
          (!filter.id || t.id === filter.id),
      )
      .map(publicView);
  }
}

function publicView(t: TxnRecord | QueryRecord): ProcessorTransaction {
  return {
    seq: t.seq,
    type: t.type,
    id: t.id,
    reportGroup: t.reportGroup,
    customerId: t.customerId,
    orderId: t.orderId,
    amount: t.amount,
    cnpTxnId: t.cnpTxnId,
    originalCnpTxnId: t.originalCnpTxnId,
    token: t.token,
    response: t.response,
    message: t.message,
    duplicate: t.duplicate,
    merchantId: t.merchantId,
    source: t.source,
    createdAt: t.createdAt,
    requestXml: t.requestXml,
    responseXml: t.responseXml,
  };
}

function ledger(init: Partial<Ledger>): Ledger {
  return { authorized: 0, captured: 0, reversed: 0, fullyReversed: false, refunded: 0, voided: false, parent: null, ...init };
}

/**
 * Builds the registerTokenRequest the real service sends for a form, with the merchant's
 * credentials, exactly as a cnpAPI client would.
 */
export function buildRegisterTokenRequest(input: {
  credentials: ProcessorCredentials;
  id: string;
  customerId?: string | undefined;
  reportGroup: string;
  orderId: string;
  accountNumber: string;
  cardValidationNum?: string;
}): string {
  const txn: XmlNode = { "@_id": input.id, "@_reportGroup": input.reportGroup };
  if (input.customerId) txn["@_customerId"] = input.customerId;
  txn.orderId = input.orderId;
  txn.accountNumber = input.accountNumber;
  if (input.cardValidationNum) txn.cardValidationNum = input.cardValidationNum;
  return builder.build({
    "?xml": XML_DECLARATION,
    cnpOnlineRequest: {
      "@_version": "12.30",
      "@_xmlns": NAMESPACES.cnp.xmlns,
      "@_merchantId": input.credentials.merchantId,
      authentication: { user: input.credentials.user, password: input.credentials.password },
      registerTokenRequest: txn,
    },
  });
}
