// @ts-check
"use strict";

const { jsonError, parseJson, sendJson, sendNoContent } = require("./http");
const { normalizeDomain } = require("./auth");
const { ALL_PERMISSIONS } = require("./store");
const { isPlainObject } = require("./util");
const { forget } = require("./jpeg");

/**
 * The control API (`/__sandbox/...`): no auth, JSON in and out, never subject to faults. It is
 * how tests and demos arrange accounts, label scans and inject failures.
 */

/** @typedef {import("./server").Context} Context */
/** @typedef {import("./store").KeyKind} KeyKind */
/** @typedef {import("./store").Permission} Permission */

const KEY_KINDS = ["shareable", "paymentToken", "secret"];
const DEFAULT_DOMAINS = ["localhost", "127.0.0.1"];
const MAX_LATENCY_MS = 60_000;
const MAX_DELAY_MS = 24 * 60 * 60 * 1000;
/** Routes faults apply to; names as in GET /__sandbox/stats. */
const SERVICE_ROUTE_NAMES = [
  "forms.create",
  "token.exchange",
  "cnp.online",
  "disputes.proofRequest.create",
  "disputes.proof.get",
  "disputes.image.get",
];

/**
 * An empty body counts as `{}` so that bodiless POSTs work from curl.
 * @param {Context} ctx
 * @returns {Record<string, unknown>}
 */
function jsonObject(ctx) {
  if (ctx.body.toString("utf8").trim() === "") return {};
  const parsed = parseJson(ctx.body);
  if (!parsed.ok) throw jsonError(400, "Malformed JSON body");
  if (!isPlainObject(parsed.value)) throw jsonError(400, "The request body must be a JSON object");
  return parsed.value;
}

/**
 * @param {Record<string, unknown>} body
 * @param {string[]} allowed
 */
function rejectUnknownFields(body, allowed) {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw jsonError(400, `Unknown field: ${unknown[0]} (allowed: ${allowed.join(", ")})`);
}

/**
 * @param {unknown} value
 * @param {string} field
 */
function nonEmptyString(value, field) {
  if (typeof value !== "string" || value.trim() === "") throw jsonError(400, `${field} must be a non-empty string`);
  return value;
}

/**
 * @param {unknown} value
 * @param {string} field
 * @param {number} min
 * @param {number} max
 */
function numberIn(value, field, min, max) {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw jsonError(400, `${field} must be a number from ${min} to ${max}`);
  }
  return value;
}

/** @param {Context} ctx */
function health(ctx) {
  sendJson(ctx.res, 200, { ok: true });
}

/** @param {Context} ctx */
function createAccount(ctx) {
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["domains", "processor"]);
  let domains = DEFAULT_DOMAINS;
  if (body.domains !== undefined) {
    if (!Array.isArray(body.domains)) throw jsonError(400, "domains must be an array of host names");
    domains = body.domains.map((d, i) => {
      const normalized = typeof d === "string" ? normalizeDomain(d) : null;
      if (!normalized) throw jsonError(400, `domains[${i}] must be a host name like shop.example, *.shop.example or localhost:3000`);
      return normalized;
    });
  }
  /** @type {import("./store").ProcessorCredentials | undefined} */
  let processor;
  if (body.processor !== undefined) {
    const p = body.processor;
    if (!isPlainObject(p)) throw jsonError(400, "processor must be an object with merchantId, user and password");
    processor = {
      merchantId: nonEmptyString(p.merchantId, "processor.merchantId"),
      user: nonEmptyString(p.user, "processor.user"),
      password: nonEmptyString(p.password, "processor.password"),
    };
  }
  let created;
  try {
    created = ctx.store.createAccount({ domains, processor });
  } catch {
    throw jsonError(409, "processor.merchantId already belongs to an account with other credentials");
  }
  ctx.log("info", `control: created account ${created.account.id} (domains: ${domains.join(", ") || "none"})`);
  sendJson(ctx.res, 201, {
    accountId: created.account.id,
    keys: created.keys,
    processor: created.account.processor,
    domains: created.account.domains,
  });
}

/** @param {Context} ctx */
function createKey(ctx) {
  const account = ctx.store.accounts.get(ctx.params[0]);
  if (!account) throw jsonError(404, "Account not found");
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["kind", "permissions"]);
  if (typeof body.kind !== "string" || !KEY_KINDS.includes(body.kind)) {
    throw jsonError(400, `kind must be one of ${KEY_KINDS.join(", ")}`);
  }
  /** @type {Permission[] | undefined} */
  let permissions;
  if (body.permissions !== undefined) {
    if (!Array.isArray(body.permissions) || !body.permissions.every((p) => ALL_PERMISSIONS.includes(p))) {
      throw jsonError(400, `permissions must be an array of: ${ALL_PERMISSIONS.join(", ")}`);
    }
    permissions = body.permissions;
  }
  const key = ctx.store.createKey(account.id, /** @type {KeyKind} */ (body.kind), { permissions });
  sendJson(ctx.res, 201, { key: key.value, kind: key.kind, permissions: key.permissions });
}

/** @param {Context} ctx */
function createScan(ctx) {
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["accountId", "cardNumber"]);
  const accountId = nonEmptyString(body.accountId, "accountId");
  if (!ctx.store.accounts.has(accountId)) throw jsonError(404, "Account not found");
  let cardNumber = null;
  if (body.cardNumber !== undefined) {
    if (typeof body.cardNumber !== "string" || !/^\d{12,19}$/.test(body.cardNumber)) {
      throw jsonError(400, "cardNumber must be a string of 12 to 19 digits");
    }
    cardNumber = body.cardNumber;
  }
  const scan = ctx.store.createScan(accountId, { cardNumber, source: "control" });
  sendJson(ctx.res, 201, { scanId: scan.id });
}

/** @param {Context} ctx */
function findScan(ctx) {
  const scan = ctx.store.scans.get(ctx.params[0].toLowerCase());
  if (!scan) throw jsonError(404, "Scan not found");
  return scan;
}

/** @param {Context} ctx */
function labelScan(ctx) {
  const scan = findScan(ctx);
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["groundTruth"]);
  // "fraud" is the real service's word for the same verdict.
  const label = body.groundTruth === "fraud" ? "invalid" : body.groundTruth;
  if (label !== "valid" && label !== "invalid") throw jsonError(400, 'groundTruth must be "valid" or "invalid"');
  ctx.services.disputes.label(scan, label);
  sendJson(ctx.res, 200, { scanId: scan.id, groundTruth: label });
}

/** @param {Context} ctx */
function deleteImage(ctx) {
  const scan = findScan(ctx);
  scan.imageDeleted = true;
  forget(scan.id);
  sendNoContent(ctx.res);
}

/** @param {Context} ctx */
function completeProofRequest(ctx) {
  const proof = ctx.store.proofRequests.get(ctx.params[0]);
  if (!proof) throw jsonError(404, "Proof request not found");
  ctx.services.disputes.completeNow(proof);
  sendJson(ctx.res, 200, { id: proof.id, status: proof.status });
}

/** @param {Context} ctx */
function listProofRequests(ctx) {
  const accountId = ctx.url.searchParams.get("accountId");
  const items = [...ctx.store.proofRequests.values()]
    .filter((p) => !accountId || p.accountId === accountId)
    .map((p) => ({
      id: p.id,
      accountId: p.accountId,
      scanIds: p.scanIds,
      status: p.status,
      createdAt: p.createdAt,
      completedAt: p.completedAt,
    }));
  sendJson(ctx.res, 200, { items, count: items.length });
}

/** @param {Context} ctx */
function expireForm(ctx) {
  const form = ctx.store.forms.get(ctx.params[0].toLowerCase());
  if (!form) throw jsonError(404, "Form not found");
  form.expired = true;
  sendJson(ctx.res, 200, { formId: form.id, expired: true });
}

/** @param {Context} ctx */
function listTransactions(ctx) {
  const q = ctx.url.searchParams;
  const items = ctx.store.processor.listTransactions({
    type: q.get("type") ?? undefined,
    merchantId: q.get("merchantId") ?? undefined,
    id: q.get("id") ?? undefined,
  });
  sendJson(ctx.res, 200, { items, count: items.length });
}

/** @param {Context} ctx */
function getStats(ctx) {
  sendJson(ctx.res, 200, ctx.store.stats());
}

/** @param {Context} ctx */
function resetStats(ctx) {
  ctx.store.resetStats();
  sendNoContent(ctx.res);
}

/** @param {Context} ctx */
function getFaults(ctx) {
  sendJson(ctx.res, 200, ctx.store.faults);
}

/**
 * Validates everything before applying anything, then merges; `null` clears one fault.
 * @param {Context} ctx
 */
function setFaults(ctx) {
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["keyLookup", "ownershipCheck", "latencyMs", "errorRate", "resetRate", "dropResponse"]);
  /** @type {Record<string, unknown>} */
  const next = { ...ctx.store.faults };
  for (const [field, value] of Object.entries(body)) {
    if (value === null) {
      delete next[field];
      continue;
    }
    if (field === "keyLookup" || field === "ownershipCheck") {
      if (value !== "fail") throw jsonError(400, `${field} must be "fail" or null`);
      next[field] = value;
    } else if (field === "dropResponse") {
      next[field] = dropResponseFault(value);
    } else if (field === "latencyMs") {
      next[field] = numberIn(value, field, 0, MAX_LATENCY_MS);
    } else {
      next[field] = numberIn(value, field, 0, 1);
    }
  }
  ctx.store.faults = next;
  ctx.log("info", `control: faults now ${JSON.stringify(next)}`);
  sendJson(ctx.res, 200, next);
}

/**
 * `{ route?: <service route name>, count: 1..1000 }`: process that many requests, lose their answers.
 * @param {unknown} value
 */
function dropResponseFault(value) {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw jsonError(400, "dropResponse must be an object { route?, count }");
  }
  const { route, count, ...rest } = /** @type {Record<string, unknown>} */ (value);
  const unknown = Object.keys(rest);
  if (unknown.length) throw jsonError(400, `dropResponse has unknown field ${unknown[0]}`);
  if (route !== undefined && !SERVICE_ROUTE_NAMES.includes(/** @type {string} */ (route))) {
    throw jsonError(400, `dropResponse.route must be one of ${SERVICE_ROUTE_NAMES.join(", ")}`);
  }
  // A count of requests: 1.5 would drop two and leave -0.5 behind.
  if (!Number.isInteger(count)) throw jsonError(400, "dropResponse.count must be a whole number from 1 to 1000");
  return { ...(route === undefined ? {} : { route }), count: numberIn(count, "dropResponse.count", 1, 1000) };
}

/** @param {Context} ctx */
function clearFaults(ctx) {
  ctx.store.faults = {};
  sendNoContent(ctx.res);
}

/** @param {Context} ctx */
function getSettings(ctx) {
  sendJson(ctx.res, 200, ctx.store.settings);
}

/** @param {Context} ctx */
function updateSettings(ctx) {
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["fraudLabel", "proofDelayMs", "formTtlMs"]);
  const next = { ...ctx.store.settings };
  if (body.fraudLabel !== undefined) {
    if (body.fraudLabel !== "invalid" && body.fraudLabel !== "fraud") {
      throw jsonError(400, 'fraudLabel must be "invalid" or "fraud"');
    }
    next.fraudLabel = body.fraudLabel;
  }
  if (body.proofDelayMs !== undefined) {
    next.proofDelayMs = body.proofDelayMs === null ? null : numberIn(body.proofDelayMs, "proofDelayMs", 0, MAX_DELAY_MS);
  }
  if (body.formTtlMs !== undefined) next.formTtlMs = numberIn(body.formTtlMs, "formTtlMs", 1, MAX_DELAY_MS);
  ctx.store.settings = next;
  sendJson(ctx.res, 200, next);
}

module.exports = {
  DEFAULT_DOMAINS,
  health,
  createAccount,
  createKey,
  createScan,
  labelScan,
  deleteImage,
  completeProofRequest,
  listProofRequests,
  expireForm,
  listTransactions,
  getStats,
  resetStats,
  getFaults,
  setFaults,
  clearFaults,
  getSettings,
  updateSettings,
};
