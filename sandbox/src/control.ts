import * as crypto from "node:crypto";
import { normalizeDomain } from "./auth";
import { ChargebackInputError, CYCLES, isDate, type ChargebackCase } from "./processors/worldpay/chargebacks";
import { MERCHANT_ID_RULE, WORLDPAY_MERCHANT_ID, type ProcessorCredentials } from "./processors/worldpay/cnp";
import { jsonError, parseJson, sendBody, sendJson, sendNoContent } from "./http";
import { forget, MAX_LARGE_IMAGE_BYTES, MIN_LARGE_IMAGE_BYTES } from "./jpeg";
import { merchantJson, readMerchantInput } from "./processors/adyen/control";
import type { Context } from "./server";
import { ALL_PERMISSIONS, KEY_KINDS, SERVICE_ROUTES, type Faults, type KeyKind, type Permission, type Scan } from "./store";
import { isPlainObject } from "./util";

/**
 * The control API (`/__sandbox/...`): no auth, JSON in and out, never subject to faults. It is
 * how tests and demos arrange accounts, label scans and inject failures.
 */

export const DEFAULT_DOMAINS: readonly string[] = ["localhost", "127.0.0.1"];
const MAX_LATENCY_MS = 60_000;
const MAX_DELAY_MS = 24 * 60 * 60 * 1000;

/** An empty body counts as `{}` so that bodiless POSTs work from curl. */
function jsonObject(ctx: Context): Record<string, unknown> {
  if (ctx.body.toString("utf8").trim() === "") return {};
  const parsed = parseJson(ctx.body);
  if (!parsed.ok) throw jsonError(400, "Malformed JSON body");
  if (!isPlainObject(parsed.value)) throw jsonError(400, "The request body must be a JSON object");
  return parsed.value;
}

function rejectUnknownFields(body: Record<string, unknown>, allowed: readonly string[]): void {
  const unknown = Object.keys(body).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) throw jsonError(400, `Unknown field: ${unknown[0]} (allowed: ${allowed.join(", ")})`);
}

/** `processor.merchantId`: what both Worldpay APIs can carry (see WORLDPAY_MERCHANT_ID). */
function merchantIdOf(value: unknown): string {
  const id = nonEmptyString(value, "processor.merchantId");
  if (!WORLDPAY_MERCHANT_ID.test(id)) throw jsonError(400, `processor.merchantId: ${MERCHANT_ID_RULE}`);
  return id;
}

function nonEmptyString(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw jsonError(400, `${field} must be a non-empty string`);
  return value;
}

function numberIn(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw jsonError(400, `${field} must be a number from ${min} to ${max}`);
  }
  return value;
}

function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === "string" && (allowed as readonly string[]).includes(value);
}

export function health(ctx: Context): void {
  sendJson(ctx.res, 200, { ok: true });
}

export function createAccount(ctx: Context): void {
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["domains", "processor", "adyen"]);
  let domains = DEFAULT_DOMAINS;
  if (body.domains !== undefined) {
    if (!Array.isArray(body.domains)) throw jsonError(400, "domains must be an array of host names");
    domains = body.domains.map((d: unknown, i) => {
      const normalized = typeof d === "string" ? normalizeDomain(d) : null;
      if (!normalized) throw jsonError(400, `domains[${i}] must be a host name like shop.example, *.shop.example or localhost:3000`);
      return normalized;
    });
  }
  let processor: ProcessorCredentials | undefined;
  if (body.processor !== undefined) {
    const p = body.processor;
    if (!isPlainObject(p)) throw jsonError(400, "processor must be an object with merchantId, user and password");
    processor = {
      merchantId: merchantIdOf(p.merchantId),
      user: nonEmptyString(p.user, "processor.user"),
      password: nonEmptyString(p.password, "processor.password"),
    };
  }
  const adyen = readMerchantInput(body.adyen);
  const adyenConflict = adyen === undefined ? null : ctx.store.adyen.conflictOf(adyen);
  if (adyenConflict) throw jsonError(409, adyenConflict);
  let created;
  try {
    created = ctx.store.createAccount({ domains, processor, adyen });
  } catch {
    throw jsonError(409, "processor.merchantId already belongs to an account with other credentials");
  }
  ctx.log("info", `control: created account ${created.account.id} (domains: ${domains.join(", ") || "none"})`);
  sendJson(ctx.res, 201, {
    accountId: created.account.id,
    keys: created.keys,
    processor: created.account.processor,
    domains: created.account.domains,
    adyen: merchantJson(ctx, created.adyen),
  });
}

export function createKey(ctx: Context): void {
  const account = ctx.store.accounts.get(ctx.params[0] ?? "");
  if (!account) throw jsonError(404, "Account not found");
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["kind", "permissions"]);
  const kind = body.kind;
  if (!isOneOf<KeyKind>(kind, KEY_KINDS)) throw jsonError(400, `kind must be one of ${KEY_KINDS.join(", ")}`);
  let permissions: Permission[] | undefined;
  if (body.permissions !== undefined) {
    const list: unknown = body.permissions;
    if (!Array.isArray(list) || !list.every((p): p is Permission => isOneOf(p, ALL_PERMISSIONS))) {
      throw jsonError(400, `permissions must be an array of: ${ALL_PERMISSIONS.join(", ")}`);
    }
    permissions = list;
  }
  const key = ctx.store.createKey(account.id, kind, { permissions });
  sendJson(ctx.res, 201, { key: key.value, kind: key.kind, permissions: key.permissions });
}

export function createScan(ctx: Context): void {
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["accountId", "cardNumber"]);
  const accountId = nonEmptyString(body.accountId, "accountId");
  if (!ctx.store.accounts.has(accountId)) throw jsonError(404, "Account not found");
  let cardNumber: string | null = null;
  if (body.cardNumber !== undefined) {
    if (typeof body.cardNumber !== "string" || !/^\d{12,19}$/.test(body.cardNumber)) {
      throw jsonError(400, "cardNumber must be a string of 12 to 19 digits");
    }
    cardNumber = body.cardNumber;
  }
  const scan = ctx.store.createScan(accountId, { cardNumber, source: "control" });
  sendJson(ctx.res, 201, { scanId: scan.id });
}

function findScan(ctx: Context): Scan {
  const scan = ctx.store.scans.get((ctx.params[0] ?? "").toLowerCase());
  if (!scan) throw jsonError(404, "Scan not found");
  return scan;
}

export function labelScan(ctx: Context): void {
  const scan = findScan(ctx);
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["groundTruth", "imageBytes"]);
  // "fraud" is the real service's word for the same verdict.
  const label = body.groundTruth === "fraud" ? "invalid" : body.groundTruth;
  if (label !== "valid" && label !== "invalid") throw jsonError(400, 'groundTruth must be "valid" or "invalid"');
  const imageBytes = body.imageBytes;
  if (imageBytes !== undefined && imageBytes !== null) {
    if (!Number.isInteger(imageBytes)) {
      throw jsonError(400, `imageBytes must be a whole number of bytes from ${MIN_LARGE_IMAGE_BYTES} to ${MAX_LARGE_IMAGE_BYTES}, or null`);
    }
    numberIn(imageBytes, "imageBytes", MIN_LARGE_IMAGE_BYTES, MAX_LARGE_IMAGE_BYTES);
  }
  ctx.services.disputes.label(scan, label);
  // Omitted: the image size stays as it was; null: back to the ordinary image.
  if (imageBytes === null) delete scan.imageBytes;
  else if (typeof imageBytes === "number") scan.imageBytes = imageBytes;
  sendJson(ctx.res, 200, { scanId: scan.id, groundTruth: label, ...(scan.imageBytes === undefined ? {} : { imageBytes: scan.imageBytes }) });
}

export function deleteImage(ctx: Context): void {
  const scan = findScan(ctx);
  scan.imageDeleted = true;
  forget(scan.id);
  sendNoContent(ctx.res);
}

export function completeProofRequest(ctx: Context): void {
  const proof = ctx.store.proofRequests.get(ctx.params[0] ?? "");
  if (!proof) throw jsonError(404, "Proof request not found");
  ctx.services.disputes.completeNow(proof);
  sendJson(ctx.res, 200, { id: proof.id, status: proof.status });
}

export function listProofRequests(ctx: Context): void {
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

export function expireForm(ctx: Context): void {
  const form = ctx.store.forms.get((ctx.params[0] ?? "").toLowerCase());
  if (!form) throw jsonError(404, "Form not found");
  form.expired = true;
  sendJson(ctx.res, 200, { formId: form.id, expired: true });
}

export function listTransactions(ctx: Context): void {
  const q = ctx.url.searchParams;
  const items = ctx.store.processor.listTransactions({
    type: q.get("type") ?? undefined,
    merchantId: q.get("merchantId") ?? undefined,
    id: q.get("id") ?? undefined,
  });
  sendJson(ctx.res, 200, { items, count: items.length });
}

export function getStats(ctx: Context): void {
  sendJson(ctx.res, 200, ctx.store.stats());
}

export function resetStats(ctx: Context): void {
  ctx.store.resetStats();
  sendNoContent(ctx.res);
}

export function getFaults(ctx: Context): void {
  sendJson(ctx.res, 200, ctx.store.faults);
}

const FAULT_FIELDS = ["keyLookup", "ownershipCheck", "latencyMs", "errorRate", "resetRate", "dropResponse", "queryUnavailable"] as const;

/** Validates everything before applying anything, then merges; `null` clears one fault. */
export function setFaults(ctx: Context): void {
  const body = jsonObject(ctx);
  rejectUnknownFields(body, FAULT_FIELDS);
  const next: Faults = { ...ctx.store.faults };
  for (const [field, value] of Object.entries(body)) {
    if (!isOneOf(field, FAULT_FIELDS)) continue; // refused above
    if (value === null) {
      delete next[field];
      continue;
    }
    switch (field) {
      case "keyLookup":
      case "ownershipCheck":
        if (value !== "fail") throw jsonError(400, `${field} must be "fail" or null`);
        next[field] = value;
        break;
      case "dropResponse":
        next[field] = dropResponseFault(value);
        break;
      case "queryUnavailable":
        next[field] = countFault(value, field);
        break;
      case "latencyMs":
        next[field] = numberIn(value, field, 0, MAX_LATENCY_MS);
        break;
      default:
        next[field] = numberIn(value, field, 0, 1);
    }
  }
  ctx.store.faults = next;
  ctx.log("info", `control: faults now ${JSON.stringify(next)}`);
  sendJson(ctx.res, 200, next);
}

/** `{ route?: <service route name>, count: 1..1000 }`: process that many requests, lose their answers. */
function dropResponseFault(value: unknown): NonNullable<Faults["dropResponse"]> {
  if (!isPlainObject(value)) throw jsonError(400, "dropResponse must be an object { route?, count }");
  const { route, count, ...rest } = value;
  const unknown = Object.keys(rest);
  if (unknown.length) throw jsonError(400, `dropResponse has unknown field ${unknown[0]}`);
  if (route !== undefined && !isOneOf(route, SERVICE_ROUTES)) {
    throw jsonError(400, `dropResponse.route must be one of ${SERVICE_ROUTES.join(", ")}`);
  }
  return { ...(route === undefined ? {} : { route }), count: wholeCount(count, "dropResponse.count") };
}

/** `{ count: 1..1000 }`: the next that many occasions the fault applies to. */
function countFault(value: unknown, field: string): { count: number } {
  if (!isPlainObject(value)) throw jsonError(400, `${field} must be an object { count }`);
  const { count, ...rest } = value;
  const unknown = Object.keys(rest);
  if (unknown.length) throw jsonError(400, `${field} has unknown field ${unknown[0]}`);
  return { count: wholeCount(count, `${field}.count`) };
}

function wholeCount(count: unknown, field: string): number {
  // A count of requests: 1.5 would drop two and leave -0.5 behind.
  if (!Number.isInteger(count)) throw jsonError(400, `${field} must be a whole number from 1 to 1000`);
  return numberIn(count, field, 1, 1000);
}

export function clearFaults(ctx: Context): void {
  ctx.store.faults = {};
  sendNoContent(ctx.res);
}

export function getSettings(ctx: Context): void {
  sendJson(ctx.res, 200, ctx.store.settings);
}

export function updateSettings(ctx: Context): void {
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

// ---- chargebacks ----------------------------------------------------------------------

const RAISE_FIELDS = [
  "cnpTxnId",
  "orderId",
  "merchantId",
  "reasonCode",
  "reasonCodeDescription",
  "amount",
  "currency",
  "cycle",
  "replyBy",
  "dayIssuedByBank",
  "note",
] as const;
/** Cases one bulk request may raise; the 1 MiB body limit allows about 25,000 short entries. */
const MAX_BULK_CASES = 10_000;

function optionalString(body: Record<string, unknown>, field: string, prefix: string, pattern: RegExp, what: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !pattern.test(value)) throw jsonError(400, `${prefix}${field} must be ${what}`);
  return value;
}

function optionalDate(body: Record<string, unknown>, field: string, prefix: string): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !isDate(value)) throw jsonError(400, `${prefix}${field} must be a date, YYYY-MM-DD`);
  return value;
}

/**
 * Reads one case to raise and finds the payment it disputes: an approved authorization or sale,
 * by cnpTxnId, or by orderId (with merchantId when several merchants used the order id).
 */
function prepareRaise(ctx: Context, raw: unknown, prefix: string): () => ChargebackCase {
  if (!isPlainObject(raw)) throw jsonError(400, prefix ? `${prefix.slice(0, -1)} must be a JSON object` : "The request body must be a JSON object");
  const unknown = Object.keys(raw).filter((k) => !(RAISE_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) throw jsonError(400, `Unknown field: ${prefix}${unknown[0]} (allowed: ${RAISE_FIELDS.join(", ")})`);
  const cnpTxnId = optionalString(raw, "cnpTxnId", prefix, /^\d{1,19}$/, "the cnpTxnId of an approved authorization or sale (digits)");
  const orderId = optionalString(raw, "orderId", prefix, /^.{1,25}$/s, "an orderId of 1 to 25 characters");
  const merchantId = optionalString(raw, "merchantId", prefix, /^.{1,50}$/s, "a processor merchantId");
  if ((cnpTxnId === undefined) === (orderId === undefined)) {
    throw jsonError(400, `${prefix}cnpTxnId or ${prefix}orderId is required (one of them) to name the disputed payment`);
  }
  const payments = ctx.store.processor.originalPayments({ cnpTxnId, orderId, merchantId });
  const named = cnpTxnId !== undefined ? `cnpTxnId ${cnpTxnId}` : `orderId ${orderId}`;
  const payment = payments[0];
  if (!payment) throw jsonError(404, `No approved authorization or sale with ${named}${merchantId ? ` at merchant ${merchantId}` : ""}`);
  if (payments.length > 1) {
    throw jsonError(409, `${named} matches ${payments.length} approved authorizations or sales; name one by ${prefix}cnpTxnId${merchantId ? "" : ` or ${prefix}merchantId`}`);
  }
  const amount = raw.amount;
  if (amount !== undefined && (typeof amount !== "number" || !Number.isInteger(amount))) {
    throw jsonError(400, `${prefix}amount must be a whole number of minor units`);
  }
  const cycle = raw.cycle;
  if (cycle !== undefined && !isOneOf(cycle, CYCLES)) throw jsonError(400, `${prefix}cycle must be one of ${CYCLES.join(", ")}`);
  const note = optionalString(raw, "note", prefix, /^[\s\S]{1,4000}$/, "1 to 4000 characters");
  try {
    return ctx.services.chargebacks.prepare({
      payment,
      reasonCode: optionalString(raw, "reasonCode", prefix, /^[A-Za-z0-9.]{1,10}$/, "a reason code like 4837 or 10.4"),
      reasonCodeDescription: optionalString(raw, "reasonCodeDescription", prefix, /^.{1,200}$/s, "1 to 200 characters"),
      amount: amount === undefined ? undefined : Number(amount),
      currency: optionalString(raw, "currency", prefix, /^[A-Z]{3}$/, "an ISO 4217 code like USD"),
      cycle,
      replyBy: optionalDate(raw, "replyBy", prefix),
      dayIssuedByBank: optionalDate(raw, "dayIssuedByBank", prefix),
      note,
    });
  } catch (error) {
    if (error instanceof ChargebackInputError) throw jsonError(400, `${prefix}${error.message}`);
    throw error;
  }
}

/** What the control API shows of a case: every field, activities newest first, documents without their bytes. */
function caseJson(kase: ChargebackCase) {
  const { activities, documents, cardNumber: _card, expDate: _exp, ...fields } = kase;
  return {
    ...fields,
    activities: [...activities].reverse(),
    documents: [...documents.values()].map((d) => ({
      documentId: d.documentId,
      contentType: d.contentType,
      size: d.bytes.length,
      sha256: crypto.createHash("sha256").update(d.bytes).digest("hex"),
      uploadedAt: d.uploadedAt,
      replacedAt: d.replacedAt,
    })),
  };
}

function findCase(ctx: Context): ChargebackCase {
  const kase = ctx.services.chargebacks.get(ctx.params[0] ?? "");
  if (!kase) throw jsonError(404, "Chargeback case not found");
  return kase;
}

export function raiseChargeback(ctx: Context): void {
  const create = prepareRaise(ctx, jsonObject(ctx), "");
  const { caseId } = create();
  // Read back through get(): a reply-by day already past shows at once.
  const kase = ctx.services.chargebacks.get(caseId);
  if (!kase) throw new Error(`case ${caseId} vanished after it was raised`);
  ctx.log("info", `control: raised chargeback case ${kase.caseId} on ${kase.vantivCnpTxnId}`);
  sendJson(ctx.res, 201, caseJson(kase));
}

/** Many cases at once (benchmarks): all are checked before any is raised. */
export function raiseChargebacks(ctx: Context): void {
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["cases"]);
  const cases = body.cases;
  if (!Array.isArray(cases) || cases.length < 1 || cases.length > MAX_BULK_CASES) {
    throw jsonError(400, `cases must be an array of 1 to ${MAX_BULK_CASES} cases to raise`);
  }
  const creators = cases.map((raw: unknown, i) => prepareRaise(ctx, raw, `cases[${i}].`));
  const items = creators.map((create) => {
    const kase = create();
    return { caseId: kase.caseId, merchantId: kase.merchantId, vantivCnpTxnId: kase.vantivCnpTxnId, orderId: kase.orderId };
  });
  ctx.log("info", `control: raised ${items.length} chargeback cases`);
  sendJson(ctx.res, 201, { items, count: items.length });
}

export function listChargebackCases(ctx: Context): void {
  const q = ctx.url.searchParams;
  const merchantId = q.get("merchantId");
  const queue = q.get("queue");
  const items = ctx.services.chargebacks
    .all()
    .filter((kase) => (!merchantId || kase.merchantId === merchantId) && (!queue || kase.currentQueue === queue))
    .map(caseJson);
  sendJson(ctx.res, 200, { items, count: items.length });
}

export function getChargebackCase(ctx: Context): void {
  sendJson(ctx.res, 200, caseJson(findCase(ctx)));
}

export function decideChargeback(ctx: Context): void {
  const kase = findCase(ctx);
  const body = jsonObject(ctx);
  rejectUnknownFields(body, ["outcome", "note"]);
  const outcome = body.outcome;
  if (outcome !== "won" && outcome !== "lost") throw jsonError(400, 'outcome must be "won" or "lost"');
  const note = optionalString(body, "note", "", /^[\s\S]{1,4000}$/, "1 to 4000 characters");
  try {
    ctx.services.chargebacks.decide(kase, outcome, note);
  } catch (error) {
    if (error instanceof ChargebackInputError) throw jsonError(409, error.message);
    throw error;
  }
  sendJson(ctx.res, 200, caseJson(kase));
}

export function getChargebackDocument(ctx: Context): void {
  const kase = findCase(ctx);
  const document = kase.documents.get(ctx.params[1] ?? "");
  if (!document) throw jsonError(404, "Document not found");
  sendBody(ctx.res, 200, document.bytes, document.contentType, { "Cache-Control": "no-store" });
}
