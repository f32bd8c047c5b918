// @ts-check
"use strict";

const crypto = require("node:crypto");
const { XMLParser, XMLBuilder, XMLValidator } = require("fast-xml-parser");
const { luhnValid, cardType, randomDigits } = require("./util");

/**
 * A simulated Worldpay eCommerce (cnpAPI) processor: token vault, authorizations and the
 * follow-up transactions that move money, with cnpAPI's duplicate detection. It only knows XML in
 * and XML out, so the token exchange and `POST /cnp/online` exercise exactly the same code.
 */

/** @typedef {{ merchantId: string, user: string, password: string }} ProcessorCredentials */
/** @typedef {"registerTokenRequest" | "authorization" | "sale" | "capture" | "credit" | "void" | "authReversal"} TxnType */

/**
 * @typedef {object} TxnRecord
 * @property {number} seq
 * @property {TxnType} type
 * @property {string} merchantId
 * @property {string | null} id              the request's `id` attribute
 * @property {string | null} reportGroup
 * @property {string | null} customerId
 * @property {string | null} orderId
 * @property {number | null} amount          minor units, as requested (or as applied when defaulted)
 * @property {string} cnpTxnId                for duplicates, the original transaction's id
 * @property {string | null} originalCnpTxnId the transaction a follow-up refers to
 * @property {string | null} token
 * @property {string} response
 * @property {string} message
 * @property {boolean} duplicate
 * @property {"http" | "token-exchange"} source
 * @property {string} requestXml              password redacted
 * @property {string} responseXml
 * @property {string} createdAt
 * @property {Ledger | null} ledger          money state of approved originals
 * @property {Record<string, unknown>} responseElement
 */

/**
 * @typedef {object} Ledger
 * @property {number} authorized   authorization: amount authorized
 * @property {number} captured     authorization: sum of live captures; capture/sale: amount captured
 * @property {number} reversed     authorization: amount released by authReversal
 * @property {boolean} fullyReversed
 * @property {number} refunded     capture/sale: sum of live credits
 * @property {boolean} voided
 * @property {TxnRecord | null} parent
 */

const CODES = /** @type {const} */ ({
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
  registered: ["801", "Account number was successfully registered"],
  previouslyRegistered: ["802", "Account number was previously registered"],
  invalidCardNumber: ["820", "Credit card number was invalid"],
  tokenNotFound: ["822", "Token was not found"],
});

/**
 * Cards whose authorizations and sales decline, decided from the card behind the token.
 * @type {Map<string, readonly [string, string]>}
 */
const DECLINING_CARDS = new Map(
  /** @type {[string, readonly [string, string]][]} */ ([
    ["4000000000009995", CODES.insufficientFunds],
    ["4000000000000002", CODES.doNotHonor],
    ["4000000000000069", CODES.expiredCard],
  ]),
);

/** Luhn-valid, so it passes the hosted form, but the processor refuses to tokenize it. */
const UNTOKENIZABLE_CARD = "4457119999999996";
/** Certification data: the cert card's token is the same at every merchant. */
const CERT_CARD = "4457119922390123";
const CERT_TOKEN = "1111000276870123";
/** Certification data: a token the vault never knows. */
const MISSING_TOKEN = "1111000100092332";

const NAMESPACES = {
  cnp: { request: "cnpOnlineRequest", response: "cnpOnlineResponse", xmlns: "http://www.vantivcnp.com/schema", txnId: "cnpTxnId", token: "cnpToken" },
  litle: { request: "litleOnlineRequest", response: "litleOnlineResponse", xmlns: "http://www.litle.com/schema", txnId: "litleTxnId", token: "litleToken" },
};
/** @typedef {typeof NAMESPACES.cnp} Dialect */

const TXN_TYPES = /** @type {TxnType[]} */ (["registerTokenRequest", "authorization", "sale", "capture", "credit", "void", "authReversal"]);
const RESPONSE_ELEMENT = {
  registerTokenRequest: "registerTokenResponse",
  authorization: "authorizationResponse",
  sale: "saleResponse",
  capture: "captureResponse",
  credit: "creditResponse",
  void: "voidResponse",
  authReversal: "authReversalResponse",
};
/** Token registration is idempotent by itself (802), so only money movements are deduplicated. */
const DEDUPLICATED = new Set(["authorization", "sale", "capture", "credit", "void", "authReversal"]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  removeNSPrefix: true,
  processEntities: true,
  htmlEntities: false,
});
const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: "@_",
  format: true,
  suppressEmptyNode: true,
  // Otherwise duplicate="true" is written as a bare `duplicate` attribute, which is not XML.
  suppressBooleanAttributes: false,
});

/** Raised for requests cnpAPI would refuse as a whole (`response="1"` on the envelope). */
class EnvelopeError extends Error {}

/** @param {string} detail */
const schemaError = (detail) => new EnvelopeError(`Error validating xml data against the schema: ${detail}`);

/**
 * @param {string} xml
 */
function redactPassword(xml) {
  return xml.replace(
    /(<(?:[\w.-]+:)?password\b[^>]*>)([\s\S]*?)(<\/(?:[\w.-]+:)?password\s*>)/gi,
    "$1[REDACTED]$3",
  );
}

/**
 * Element text, whether the parser gave a string or an object with attributes.
 * @param {unknown} node
 * @returns {string | undefined}
 */
function text(node) {
  if (node === undefined || node === null) return undefined;
  if (typeof node === "string") return node;
  if (typeof node === "object" && !Array.isArray(node)) {
    const inner = /** @type {Record<string, unknown>} */ (node)["#text"];
    return inner === undefined ? "" : String(inner);
  }
  throw schemaError("an element that may occur once was repeated");
}

/**
 * @param {Record<string, unknown>} node
 * @param {string} name
 * @returns {Record<string, unknown> | undefined}
 */
function child(node, name) {
  const value = Object.hasOwn(node, name) ? node[name] : undefined;
  if (value === undefined) return undefined;
  if (Array.isArray(value)) throw schemaError(`element <${name}> may occur only once`);
  if (typeof value === "string") return value === "" ? {} : { "#text": value };
  return /** @type {Record<string, unknown>} */ (value);
}

/**
 * @param {Record<string, unknown>} node
 * @param {string} name
 */
function childText(node, name) {
  return Object.hasOwn(node, name) ? text(node[name]) : undefined;
}

/**
 * @param {Record<string, unknown>} node
 * @param {string} name
 */
function attr(node, name) {
  const value = node[`@_${name}`];
  return typeof value === "string" ? value : undefined;
}

/**
 * @param {string | undefined} raw
 * @param {string} element
 * @returns {number | undefined}
 */
function parseAmount(raw, element) {
  if (raw === undefined) return undefined;
  if (!/^\d{1,12}$/.test(raw)) throw schemaError(`<${element}> must be a non-negative integer in minor units, got '${raw}'`);
  return Number(raw);
}

/** @param {string} value @param {string} what @param {number} max */
function checkLength(value, what, max) {
  if (value.length > max) throw schemaError(`${what} is longer than ${max} characters`);
}

/**
 * `MMYY`, true when the card expired before the current month.
 * @param {string} expDate
 * @param {Date} now
 */
function expDateInPast(expDate, now) {
  const month = Number(expDate.slice(0, 2));
  const year = 2000 + Number(expDate.slice(2, 4));
  return year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

class Processor {
  /**
   * @param {{ now?: () => Date }} [options]
   */
  constructor(options = {}) {
    this.now = options.now ?? (() => new Date());
    /** @type {Map<string, ProcessorCredentials>} */
    this.merchants = new Map();
    /** @type {Map<string, { byToken: Map<string, string>, byCard: Map<string, string> }>} */
    this.vaults = new Map();
    /** @type {TxnRecord[]} */
    this.transactions = [];
    /** @type {Map<string, TxnRecord>} */
    this.byTxnId = new Map();
    /** @type {Map<string, TxnRecord>} */
    this.originals = new Map();
  }

  /**
   * Accounts may share a merchant only when they agree on its credentials.
   * @param {ProcessorCredentials} creds
   */
  registerMerchant(creds) {
    const existing = this.merchants.get(creds.merchantId);
    if (existing && (existing.user !== creds.user || existing.password !== creds.password)) {
      throw new Error(`Merchant ${creds.merchantId} already exists with other credentials`);
    }
    if (!existing) this.merchants.set(creds.merchantId, { ...creds });
  }

  /**
   * Runs one cnpAPI online request. Never throws for bad input: cnpAPI answers those with
   * `response="1"` on the envelope.
   * @param {string} xml
   * @param {{ source?: "http" | "token-exchange" }} [meta]
   * @returns {{ xml: string, envelope: { response: "0" | "1", message: string }, transaction?: TxnRecord }}
   */
  handle(xml, meta = {}) {
    /** @type {Dialect} */
    let dialect = NAMESPACES.cnp;
    let version = "12.30";
    try {
      const { root, dialect: d, version: v } = this.parseEnvelope(xml);
      dialect = d;
      version = v;
      const merchantId = this.authenticate(root);
      const [type, node] = this.transactionOf(root);
      const record = this.run(type, node, merchantId, dialect, redactPassword(xml), meta.source ?? "http");
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

  /**
   * @param {string} xml
   * @returns {{ root: Record<string, unknown>, dialect: Dialect, version: string }}
   */
  parseEnvelope(xml) {
    // Entity declarations are the classic XML bomb; cnpAPI requests never carry a DOCTYPE.
    if (/<!DOCTYPE/i.test(xml)) throw schemaError("DOCTYPE declarations are not allowed");
    if (xml.trim() === "") throw schemaError("the request body is empty");
    const valid = XMLValidator.validate(xml);
    if (valid !== true) {
      throw schemaError(`the XML is not well-formed: ${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
    }
    const doc = parser.parse(xml);
    const dialect = Object.hasOwn(doc, NAMESPACES.litle.request) ? NAMESPACES.litle : NAMESPACES.cnp;
    const root = doc[dialect.request];
    if (root === undefined || Object.keys(doc).length !== 1) {
      throw schemaError("the root element must be <cnpOnlineRequest> (or <litleOnlineRequest>)");
    }
    if (typeof root !== "object" || Array.isArray(root)) throw schemaError(`<${dialect.request}> is empty`);
    const requested = attr(root, "version");
    const version = requested && /^\d{1,2}\.\d{1,2}$/.test(requested) ? requested : "12.30";
    return { root, dialect, version };
  }

  /**
   * @param {Record<string, unknown>} root
   * @returns {string} merchantId
   */
  authenticate(root) {
    const merchantId = attr(root, "merchantId");
    if (!merchantId) throw schemaError("the merchantId attribute is required");
    const auth = child(root, "authentication");
    const user = auth && childText(auth, "user");
    const password = auth && childText(auth, "password");
    if (!user || password === undefined) throw schemaError("<authentication> with <user> and <password> is required");
    const merchant = this.merchants.get(merchantId);
    const same = (/** @type {string} */ a, /** @type {string} */ b) =>
      a.length === b.length && crypto.timingSafeEqual(Buffer.from(a), Buffer.from(b));
    if (!merchant || !same(merchant.user, user) || !same(merchant.password, password)) {
      throw new EnvelopeError("Authentication failed: unknown merchantId, or wrong user or password");
    }
    return merchantId;
  }

  /**
   * @param {Record<string, unknown>} root
   * @returns {[TxnType, Record<string, unknown>]}
   */
  transactionOf(root) {
    const names = Object.keys(root).filter((k) => !k.startsWith("@_") && k !== "authentication" && k !== "#text");
    const name = names[0];
    if (names.length !== 1 || Array.isArray(root[name])) {
      const found = names.length === 0 ? "none" : names.map((n) => (Array.isArray(root[n]) ? `${root[n].length} × <${n}>` : `<${n}>`)).join(", ");
      throw schemaError(`exactly one transaction element is expected, found ${found}`);
    }
    if (!TXN_TYPES.includes(/** @type {TxnType} */ (name))) {
      throw schemaError(`<${name}> is not supported by the sandbox (supported: ${TXN_TYPES.join(", ")})`);
    }
    const node = child(root, name) ?? {};
    return [/** @type {TxnType} */ (name), node];
  }

  /**
   * @param {TxnType} type
   * @param {Record<string, unknown>} node
   * @param {string} merchantId
   * @param {Dialect} dialect
   * @param {string} requestXml
   * @param {"http" | "token-exchange"} source
   * @returns {TxnRecord}
   */
  run(type, node, merchantId, dialect, requestXml, source) {
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
      /** @type {TxnRecord} */
      const duplicate = {
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
        responseElement: { ...original.responseElement, "@_duplicate": "true" },
      };
      this.transactions.push(duplicate);
      return duplicate;
    }

    const outcome = this.execute(type, request, merchantId);
    const cnpTxnId = this.newTxnId();
    /** @type {TxnRecord} */
    const record = {
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
    };
    record.responseElement = this.responseElement(record, dialect, outcome);
    if (outcome.commit) outcome.commit(record);
    this.transactions.push(record);
    this.byTxnId.set(cnpTxnId, record);
    if (id !== null && DEDUPLICATED.has(type)) this.originals.set(dedupeKey, record);
    return record;
  }

  /**
   * Pulls and checks the fields each transaction type needs; shape problems are schema errors.
   * @param {TxnType} type
   * @param {Record<string, unknown>} node
   */
  readRequest(type, node) {
    const orderId = childText(node, "orderId");
    if (orderId !== undefined) checkLength(orderId, "<orderId>", 25);
    const amount = parseAmount(childText(node, "amount"), "amount");
    const cnpTxnId = childText(node, "cnpTxnId") ?? childText(node, "litleTxnId");
    /** @type {{ orderId?: string, amount?: number, cnpTxnId?: string, accountNumber?: string, token?: string, expDate?: string }} */
    const request = { orderId, amount };

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
   * @param {TxnType} type
   * @param {ReturnType<Processor["readRequest"]>} request
   * @param {string} merchantId
   * @returns {Outcome}
   */
  execute(type, request, merchantId) {
    switch (type) {
      case "registerTokenRequest":
        return this.registerToken(merchantId, /** @type {string} */ (request.accountNumber));
      case "authorization":
      case "sale":
        return this.authorize(type, merchantId, request);
      case "capture":
        return this.capture(merchantId, request);
      case "credit":
        return this.credit(merchantId, request);
      case "void":
        return this.void(merchantId, request);
      case "authReversal":
        return this.authReversal(merchantId, request);
    }
  }

  /**
   * @param {string} merchantId
   * @param {string} accountNumber
   * @returns {Outcome}
   */
  registerToken(merchantId, accountNumber) {
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
   * @param {string} merchantId
   * @param {string} number
   */
  mintToken(merchantId, number) {
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

  /**
   * @param {"authorization" | "sale"} type
   * @param {string} merchantId
   * @param {ReturnType<Processor["readRequest"]>} request
   * @returns {Outcome}
   */
  authorize(type, merchantId, request) {
    const amount = /** @type {number} */ (request.amount);
    const token = /** @type {string} */ (request.token);
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

  /**
   * @param {string} merchantId
   * @param {ReturnType<Processor["readRequest"]>} request
   * @returns {Outcome}
   */
  capture(merchantId, request) {
    return this.drawDown(merchantId, request, CODES.invalidAmount, "captured");
  }


  /**
   * @param {string} merchantId
   * @param {ReturnType<Processor["readRequest"]>} request
   * @returns {Outcome}
   */
  credit(merchantId, request) {
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

  /**
   * @param {string} merchantId
   * @param {ReturnType<Processor["readRequest"]>} request
   * @returns {Outcome}
   */
  void(merchantId, request) {
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
   * @param {string} merchantId
   * @param {ReturnType<Processor["readRequest"]>} request
   * @returns {Outcome}
   */
  authReversal(merchantId, request) {
    return this.drawDown(merchantId, request, CODES.reversalAmountMismatch, "reversed");
  }

  /**
   * Capture and reversal both take money out of what an authorization still holds; they
   * differ only in the code for an amount over the remainder and the ledger column.
   * @param {string} merchantId
   * @param {ReturnType<Processor["readRequest"]>} request
   * @param {Outcome["code"]} overAmountCode
   * @param {"captured" | "reversed"} column
   * @returns {Outcome}
   */
  drawDown(merchantId, request, overAmountCode, column) {
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
   * @param {string} merchantId
   * @param {string | undefined} cnpTxnId
   * @param {TxnType[]} types
   */
  findApproved(merchantId, cnpTxnId, types) {
    const record = cnpTxnId ? this.byTxnId.get(cnpTxnId) : undefined;
    if (!record || record.merchantId !== merchantId || !types.includes(record.type) || record.response !== "000") {
      return undefined;
    }
    return record;
  }

  /**
   * @param {TxnRecord} record
   * @param {Dialect} dialect
   * @param {Outcome} outcome
   * @returns {Record<string, unknown>}
   */
  responseElement(record, dialect, outcome) {
    /** @type {Record<string, unknown>} */
    const el = {};
    if (record.id !== null) el["@_id"] = record.id;
    if (record.reportGroup !== null) el["@_reportGroup"] = record.reportGroup;
    if (record.customerId !== null) el["@_customerId"] = record.customerId;
    el[dialect.txnId] = record.cnpTxnId;
    if (record.orderId !== null) el.orderId = record.orderId;
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
    if (["sale", "capture", "credit", "void"].includes(record.type) && record.response === "000") {
      el.postDate = record.createdAt.slice(0, 10);
    }
    return el;
  }

  /**
   * @param {Dialect} dialect
   * @param {string} version
   * @param {"0" | "1"} response
   * @param {string} message
   * @param {Record<string, unknown>} body
   */
  buildEnvelope(dialect, version, response, message, body) {
    return builder.build({
      "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
      [dialect.response]: {
        "@_version": version,
        "@_xmlns": dialect.xmlns,
        "@_response": response,
        "@_message": message,
        ...body,
      },
    });
  }

  /** @param {string} merchantId */
  vaultOf(merchantId) {
    let vault = this.vaults.get(merchantId);
    if (!vault) {
      vault = { byToken: new Map(), byCard: new Map() };
      this.vaults.set(merchantId, vault);
    }
    return vault;
  }

  newTxnId() {
    for (;;) {
      const id = randomDigits(18);
      if (!this.byTxnId.has(id)) return id;
    }
  }

  /**
   * Public view for the control API: no ledger internals, no live object references.
   * @param {{ type?: string, merchantId?: string, id?: string }} [filter]
   */
  listTransactions(filter = {}) {
    return this.transactions
      .filter((t) => (!filter.type || t.type === filter.type) && (!filter.merchantId || t.merchantId === filter.merchantId) && (!filter.id || t.id === filter.id))
      .map((t) => ({
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
      }));
  }
}

/**
 * @typedef {object} Outcome
 * @property {readonly [string, string]} code
 * @property {number} [amount]
 * @property {string | null} [token]
 * @property {{ token?: string, bin?: string, type?: string, authCode?: string }} [extra]
 * @property {Ledger} [ledger]
 * @property {(record: TxnRecord) => void} [commit]
 */

/**
 * @param {Partial<Ledger>} init
 * @returns {Ledger}
 */
function ledger(init) {
  return { authorized: 0, captured: 0, reversed: 0, fullyReversed: false, refunded: 0, voided: false, parent: null, ...init };
}

/**
 * Builds the registerTokenRequest the real service sends for a form, with the merchant's
 * credentials, exactly as a cnpAPI client would.
 * @param {{ credentials: ProcessorCredentials, id: string, customerId?: string, reportGroup: string, orderId: string, accountNumber: string, cardValidationNum?: string }} input
 */
function buildRegisterTokenRequest(input) {
  /** @type {Record<string, unknown>} */
  const txn = { "@_id": input.id, "@_reportGroup": input.reportGroup };
  if (input.customerId) txn["@_customerId"] = input.customerId;
  txn.orderId = input.orderId;
  txn.accountNumber = input.accountNumber;
  if (input.cardValidationNum) txn.cardValidationNum = input.cardValidationNum;
  return builder.build({
    "?xml": { "@_version": "1.0", "@_encoding": "UTF-8" },
    cnpOnlineRequest: {
      "@_version": "12.30",
      "@_xmlns": NAMESPACES.cnp.xmlns,
      "@_merchantId": input.credentials.merchantId,
      authentication: { user: input.credentials.user, password: input.credentials.password },
      registerTokenRequest: txn,
    },
  });
}

module.exports = {
  Processor,
  CODES,
  DECLINING_CARDS,
  UNTOKENIZABLE_CARD,
  CERT_CARD,
  CERT_TOKEN,
  MISSING_TOKEN,
  buildRegisterTokenRequest,
  redactPassword,
};
