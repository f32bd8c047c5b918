import * as crypto from "node:crypto";
import { jsonError, parseJson, sendBody, sendJson } from "../../http";
import type { Context, Handler } from "../../server";
import { isPlainObject } from "../../util";
import { DECISIONS, DisputeInputError, type Decision } from "./disputes";
import { isHexKey } from "./hmac";
import type { AdyenDispute, AdyenMerchant, AdyenMerchantInput, AdyenModification, AdyenNotification, AdyenPayment, DisputeStatus } from "./state";

/**
 * The Adyen part of the control API (`/__sandbox/adyen/...`): merchants and their webhook, the
 * clock, what was paid and modified (for counting), the notification outbox, and disputes raised,
 * decided and inspected. Like the rest of the control API: JSON, no auth, never faulted, 400
 * naming the field, unknown fields refused.
 */

function jsonObject(ctx: Context): Record<string, unknown> {
  if (ctx.body.toString("utf8").trim() === "") return {};
  const parsed = parseJson(ctx.body);
  if (!parsed.ok) throw jsonError(400, "Malformed JSON body");
  if (!isPlainObject(parsed.value)) throw jsonError(400, "The request body must be a JSON object");
  return parsed.value;
}

function onlyFields(body: Record<string, unknown>, allowed: readonly string[], prefix = ""): void {
  const unknown = Object.keys(body).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw jsonError(400, `Unknown field: ${prefix}${unknown} (allowed: ${allowed.join(", ")})`);
}

function text(body: Record<string, unknown>, field: string, prefix = "", max = 256): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "" || value.length > max) throw jsonError(400, `${prefix}${field} must be a non-empty string of at most ${max} characters`);
  return value;
}

function flag(body: Record<string, unknown>, field: string, prefix = ""): boolean | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw jsonError(400, `${prefix}${field} must be true or false`);
  return value;
}

function numberIn(body: Record<string, unknown>, field: string, min: number, max: number): number | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) throw jsonError(400, `${field} must be a number from ${min} to ${max}`);
  return value;
}

function webhookUrl(value: unknown, field: string): string | null {
  if (value === null) return null;
  if (typeof value === "string") {
    try {
      const url = new URL(value);
      if (url.protocol === "http:" || url.protocol === "https:") return value;
    } catch {
      // reported below
    }
  }
  throw jsonError(400, `${field} must be an http(s) URL, or null for no webhook`);
}

function webhookAuth(value: unknown, field: string): AdyenMerchantInput["webhookAuth"] {
  if (value === null) return null;
  if (!isPlainObject(value)) throw jsonError(400, `${field} must be an object { username, password }, or null for no Basic auth`);
  onlyFields(value, ["username", "password"], `${field}.`);
  const username = text(value, "username", `${field}.`);
  const password = text(value, "password", `${field}.`);
  if (username === undefined || password === undefined || username.includes(":")) {
    throw jsonError(400, `${field} needs a username (without ":") and a password`);
  }
  return { username, password };
}

function hmacKey(value: unknown, field: string): string {
  if (typeof value !== "string" || !isHexKey(value)) throw jsonError(400, `${field} must be a hex key (Adyen's are 64 hex digits)`);
  return value;
}

function captureDelay(value: unknown, field: string): "immediate" | "manual" {
  if (value !== "immediate" && value !== "manual") throw jsonError(400, `${field} must be "immediate" or "manual"`);
  return value;
}

const MERCHANT_FIELDS = ["companyAccount", "merchantAccount", "apiKey", "username", "password", "hmacKey", "webhookUrl", "webhookAuth", "captureDelay", "multiplePartialCaptures"];

/** The `adyen` object of `POST /__sandbox/accounts`: whatever it leaves out is generated. */
export function readMerchantInput(raw: unknown): AdyenMerchantInput | undefined {
  if (raw === undefined) return undefined;
  if (!isPlainObject(raw)) throw jsonError(400, "adyen must be an object");
  onlyFields(raw, MERCHANT_FIELDS, "adyen.");
  return {
    companyAccount: text(raw, "companyAccount", "adyen.", 80),
    merchantAccount: text(raw, "merchantAccount", "adyen.", 80),
    apiKey: text(raw, "apiKey", "adyen.", 256),
    username: text(raw, "username", "adyen.", 256),
    password: text(raw, "password", "adyen.", 256),
    hmacKey: raw.hmacKey === undefined ? undefined : hmacKey(raw.hmacKey, "adyen.hmacKey"),
    webhookUrl: raw.webhookUrl === undefined ? undefined : webhookUrl(raw.webhookUrl, "adyen.webhookUrl"),
    webhookAuth: raw.webhookAuth === undefined ? undefined : webhookAuth(raw.webhookAuth, "adyen.webhookAuth"),
    captureDelay: raw.captureDelay === undefined ? undefined : captureDelay(raw.captureDelay, "adyen.captureDelay"),
    multiplePartialCaptures: flag(raw, "multiplePartialCaptures", "adyen."),
  };
}

/** A merchant as the control API shows it: credentials included, like the Worldpay processor's. */
export function merchantJson(ctx: Context, merchant: AdyenMerchant) {
  return {
    accountId: merchant.accountId,
    companyAccount: merchant.companyAccount,
    merchantAccount: merchant.merchantAccount,
    apiKey: merchant.apiKey,
    username: merchant.username,
    password: merchant.password,
    hmacKey: merchant.hmacKey,
    webhookUrl: merchant.webhookUrl,
    webhookAuth: merchant.webhookAuth,
    captureDelay: merchant.captureDelay,
    multiplePartialCaptures: merchant.multiplePartialCaptures,
    checkoutUrl: `${ctx.baseUrl}/v71`,
    disputesUrl: `${ctx.baseUrl}/ca/services/DisputeService/v30`,
  };
}

function findMerchant(ctx: Context): AdyenMerchant {
  const merchant = ctx.services.adyen.store.merchants.get(ctx.params[0] ?? "");
  if (!merchant) throw jsonError(404, "Merchant account not found");
  return merchant;
}

export function listMerchants(ctx: Context): void {
  const items = [...ctx.services.adyen.store.merchants.values()].map((m) => merchantJson(ctx, m));
  sendJson(ctx.res, 200, { items, count: items.length });
}

export function getMerchant(ctx: Context): void {
  sendJson(ctx.res, 200, merchantJson(ctx, findMerchant(ctx)));
}

/** Changes a merchant's webhook (URL, Basic, HMAC key) and settings; all checked before any applies. */
export function updateMerchant(ctx: Context): void {
  const merchant = findMerchant(ctx);
  const body = jsonObject(ctx);
  onlyFields(body, ["hmacKey", "webhookUrl", "webhookAuth", "captureDelay", "multiplePartialCaptures"]);
  const next = { ...merchant };
  if (body.hmacKey !== undefined) next.hmacKey = hmacKey(body.hmacKey, "hmacKey").toUpperCase();
  if (body.webhookUrl !== undefined) next.webhookUrl = webhookUrl(body.webhookUrl, "webhookUrl");
  if (body.webhookAuth !== undefined) next.webhookAuth = webhookAuth(body.webhookAuth, "webhookAuth") ?? null;
  if (body.captureDelay !== undefined) next.captureDelay = captureDelay(body.captureDelay, "captureDelay");
  const partial = flag(body, "multiplePartialCaptures");
  if (partial !== undefined) next.multiplePartialCaptures = partial;
  const urlChanged = next.webhookUrl !== merchant.webhookUrl;
  Object.assign(merchant, next);
  // Queued retries go to the endpoint as it is now; a fixed URL should not wait out the schedule.
  if (urlChanged) ctx.services.adyen.webhooks.wake(merchant.merchantAccount);
  ctx.log("info", `control: adyen merchant ${merchant.merchantAccount} updated`);
  sendJson(ctx.res, 200, merchantJson(ctx, merchant));
}

export function getSettings(ctx: Context): void {
  sendJson(ctx.res, 200, ctx.services.adyen.store.settings);
}

export function updateSettings(ctx: Context): void {
  const body = jsonObject(ctx);
  onlyFields(body, ["timeScale", "webhookTimeoutMs", "processingDelayMs"]);
  const store = ctx.services.adyen.store;
  const timeScale = numberIn(body, "timeScale", 1e-6, 1);
  const webhookTimeoutMs = numberIn(body, "webhookTimeoutMs", 1, 60_000);
  const processingDelayMs = numberIn(body, "processingDelayMs", 0, 60_000);
  store.settings = {
    timeScale: timeScale ?? store.settings.timeScale,
    webhookTimeoutMs: webhookTimeoutMs ?? store.settings.webhookTimeoutMs,
    processingDelayMs: processingDelayMs ?? store.settings.processingDelayMs,
  };
  sendJson(ctx.res, 200, store.settings);
}

function paymentJson(payment: AdyenPayment) {
  const { cardNumber: _card, ...fields } = payment;
  return { ...fields, type: "payment" as const };
}

function modificationJson(modification: AdyenModification) {
  return { ...modification };
}

/** Payments and modifications, oldest first: what tests count ("one authorise, one capture"). */
export function listTransactions(ctx: Context): void {
  const q = ctx.url.searchParams;
  const store = ctx.services.adyen.store;
  const matches = (item: { type: string; merchantAccount: string; pspReference: string; reference: string | null }, paymentPsp: string | null) =>
    (!q.get("type") || item.type === q.get("type")) &&
    (!q.get("merchantAccount") || item.merchantAccount === q.get("merchantAccount")) &&
    (!q.get("pspReference") || item.pspReference === q.get("pspReference")) &&
    (!q.get("paymentPspReference") || paymentPsp === q.get("paymentPspReference")) &&
    (!q.get("reference") || item.reference === q.get("reference"));
  const items = [
    ...[...store.payments.values()].filter((p) => matches({ ...p, type: "payment" }, p.pspReference)).map(paymentJson),
    ...[...store.modifications.values()].filter((m) => matches(m, m.paymentPspReference)).map(modificationJson),
  ].sort((a, b) => a.seq - b.seq);
  sendJson(ctx.res, 200, { items, count: items.length });
}

export function getPayment(ctx: Context): void {
  const store = ctx.services.adyen.store;
  const payment = store.payments.get(ctx.params[0] ?? "");
  if (!payment) throw jsonError(404, "Payment not found");
  const modifications = [...store.modifications.values()].filter((m) => m.paymentPspReference === payment.pspReference).map(modificationJson);
  const disputes = [...store.disputes.values()].filter((d) => d.paymentPspReference === payment.pspReference).map((d) => d.pspReference);
  sendJson(ctx.res, 200, { ...paymentJson(payment), modifications, disputes });
}

export function listStoredPaymentMethods(ctx: Context): void {
  const q = ctx.url.searchParams;
  const items = [...ctx.services.adyen.store.storedCards.values()]
    .filter((c) => (!q.get("merchantAccount") || c.merchantAccount === q.get("merchantAccount")) && (!q.get("shopperReference") || c.shopperReference === q.get("shopperReference")))
    .map(({ cardNumber, ...card }) => ({ ...card, lastFour: cardNumber.slice(-4) }));
  sendJson(ctx.res, 200, { items, count: items.length });
}

function notificationJson(n: AdyenNotification) {
  const { body, createdAtMs: _created, nextAttemptAt, ...fields } = n;
  const parsed: unknown = JSON.parse(body);
  return { ...fields, deliveries: n.attempts.length, nextAttemptAt: nextAttemptAt === null ? null : new Date(nextAttemptAt).toISOString(), body: parsed };
}

/** The outbox, oldest first, with every delivery attempt. */
export function listNotifications(ctx: Context): void {
  const q = ctx.url.searchParams;
  const items = [...ctx.services.adyen.store.notifications.values()]
    .filter(
      (n) =>
        (!q.get("merchantAccount") || n.merchantAccount === q.get("merchantAccount")) &&
        (!q.get("eventCode") || n.eventCode === q.get("eventCode")) &&
        (!q.get("pspReference") || n.pspReference === q.get("pspReference")) &&
        (!q.get("originalReference") || n.originalReference === q.get("originalReference")) &&
        (!q.get("status") || n.status === q.get("status")),
    )
    .sort((a, b) => a.seq - b.seq)
    .map(notificationJson);
  sendJson(ctx.res, 200, { items, count: items.length });
}

/** One more delivery of a notification, now: the duplicate a receiver must shrug off. */
export async function deliverNotification(ctx: Context): Promise<void> {
  const notification = ctx.services.adyen.store.notifications.get(ctx.params[0] ?? "");
  if (!notification) throw jsonError(404, "Notification not found");
  const attempt = await ctx.services.adyen.webhooks.deliverNow(notification);
  sendJson(ctx.res, 200, { attempt, notification: notificationJson(notification) });
}

// ---- disputes ----------------------------------------------------------------------------

function disputeJson(ctx: Context, dispute: AdyenDispute) {
  const { documents, ...fields } = dispute;
  return {
    ...fields,
    expired: ctx.services.adyen.disputes.expired(dispute),
    documents: [...documents.values()].map((d) => ({
      name: `${d.defenseDocumentTypeCode}.${EXTENSIONS[d.contentType] ?? "bin"}`,
      defenseDocumentTypeCode: d.defenseDocumentTypeCode,
      contentType: d.contentType,
      size: d.bytes.length,
      sha256: crypto.createHash("sha256").update(d.bytes).digest("hex"),
      suppliedAt: d.suppliedAt,
      url: `/__sandbox/adyen/disputes/${dispute.pspReference}/documents/${encodeURIComponent(d.defenseDocumentTypeCode)}`,
    })),
  };
}

const EXTENSIONS: Readonly<Record<string, string>> = { "application/pdf": "pdf", "image/jpeg": "jpg", "image/tiff": "tif" };

function findDispute(ctx: Context): AdyenDispute {
  const dispute = ctx.services.adyen.store.disputes.get(ctx.params[0] ?? "");
  if (!dispute) throw jsonError(404, "Dispute not found");
  return dispute;
}

function merchantOfDispute(ctx: Context, dispute: AdyenDispute): AdyenMerchant {
  const merchant = ctx.services.adyen.store.merchants.get(dispute.merchantAccount);
  if (!merchant) throw new Error(`dispute ${dispute.pspReference} names an unknown merchant ${dispute.merchantAccount}`);
  return merchant;
}

const RAISE_FIELDS = ["paymentPspReference", "reasonCode", "schemeCode", "reason", "amount", "defensePeriodEndsAt", "defendable", "notificationOfChargeback", "padReasonCode"];

/** Raises a dispute on a payment: NOTIFICATION_OF_CHARGEBACK, then CHARGEBACK, go to the merchant's webhook. */
export function raiseDispute(ctx: Context): void {
  const body = jsonObject(ctx);
  onlyFields(body, RAISE_FIELDS);
  const paymentPspReference = text(body, "paymentPspReference");
  if (paymentPspReference === undefined) throw jsonError(400, "paymentPspReference is required: the pspReference of an authorised payment");
  const store = ctx.services.adyen.store;
  const payment = store.payments.get(paymentPspReference);
  if (!payment) throw jsonError(404, `No payment with pspReference ${paymentPspReference}`);
  const merchant = store.merchants.get(payment.merchantAccount);
  if (!merchant) throw new Error(`payment ${payment.pspReference} names an unknown merchant`);
  const defensePeriodEndsAt = text(body, "defensePeriodEndsAt", "", 40);
  if (defensePeriodEndsAt !== undefined && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(defensePeriodEndsAt)) {
    throw jsonError(400, "defensePeriodEndsAt must be an ISO 8601 date-time with an offset, e.g. 2030-07-31T03:03:07+02:00 (a past one makes the dispute expired)");
  }
  const amount = body.amount;
  if (amount !== undefined && (typeof amount !== "number" || !Number.isInteger(amount))) throw jsonError(400, "amount must be a whole number of minor units");
  try {
    const dispute = ctx.services.adyen.disputes.raise(merchant, {
      payment,
      reasonCode: text(body, "reasonCode", "", 10),
      schemeCode: text(body, "schemeCode", "", 20),
      reason: text(body, "reason", "", 200),
      amount,
      defensePeriodEndsAt,
      defendable: flag(body, "defendable"),
      notificationOfChargeback: flag(body, "notificationOfChargeback"),
      padReasonCode: flag(body, "padReasonCode"),
    });
    sendJson(ctx.res, 201, disputeJson(ctx, dispute));
  } catch (error) {
    if (error instanceof DisputeInputError) throw jsonError(409, error.message);
    throw error;
  }
}

export function listDisputes(ctx: Context): void {
  const q = ctx.url.searchParams;
  const items = [...ctx.services.adyen.store.disputes.values()]
    .filter((d) => (!q.get("merchantAccount") || d.merchantAccount === q.get("merchantAccount")) && (!q.get("paymentPspReference") || d.paymentPspReference === q.get("paymentPspReference")))
    .sort((a, b) => a.seq - b.seq)
    .map((d) => disputeJson(ctx, d));
  sendJson(ctx.res, 200, { items, count: items.length });
}

export function getDispute(ctx: Context): void {
  sendJson(ctx.res, 200, disputeJson(ctx, findDispute(ctx)));
}

const DECISION_NAMES: readonly string[] = Object.keys(DECISIONS);
const ALIASES: Readonly<Record<string, Decision>> = { won: "CHARGEBACK_REVERSED", lost: "PREARBITRATION_LOST" };

function isDecision(value: string): value is Decision {
  return DECISION_NAMES.includes(value);
}

/** The scheme decides: CHARGEBACK_REVERSED ("won"), PREARBITRATION_WON or PREARBITRATION_LOST ("lost"). */
export function decideDispute(ctx: Context): void {
  const dispute = findDispute(ctx);
  const body = jsonObject(ctx);
  onlyFields(body, ["outcome", "originalReference"]);
  const raw = typeof body.outcome === "string" ? (ALIASES[body.outcome] ?? body.outcome) : "";
  if (!isDecision(raw)) throw jsonError(400, `outcome must be one of ${DECISION_NAMES.join(", ")} (or "won", "lost")`);
  try {
    ctx.services.adyen.disputes.decide(merchantOfDispute(ctx, dispute), dispute, raw, { originalReference: flag(body, "originalReference") });
  } catch (error) {
    if (error instanceof DisputeInputError) throw jsonError(409, error.message);
    throw error;
  }
  sendJson(ctx.res, 200, disputeJson(ctx, dispute));
}

const STATUSES: readonly DisputeStatus[] = ["Unresponded", "Responded", "Expired", "Undefended", "Accepted", "Pending", "Lost", "Won"];

function isStatus(value: unknown): value is DisputeStatus {
  return typeof value === "string" && (STATUSES as readonly string[]).includes(value);
}

/** Any event for a dispute (SECOND_CHARGEBACK, REQUEST_FOR_INFORMATION, codes receivers ignore …). */
export function notifyDispute(ctx: Context): void {
  const dispute = findDispute(ctx);
  const body = jsonObject(ctx);
  onlyFields(body, ["eventCode", "success", "reason", "disputeStatus", "originalReference"]);
  const eventCode = text(body, "eventCode", "", 64);
  if (eventCode === undefined || !/^[A-Z_]+$/.test(eventCode)) throw jsonError(400, "eventCode must be an event code in capitals, e.g. SECOND_CHARGEBACK");
  const status = body.disputeStatus;
  if (status !== undefined && !isStatus(status)) throw jsonError(400, `disputeStatus must be one of ${STATUSES.join(", ")}`);
  const reason = text(body, "reason", "", 200);
  ctx.services.adyen.disputes.notify(merchantOfDispute(ctx, dispute), dispute, eventCode, {
    originalReference: flag(body, "originalReference") ?? true,
    success: flag(body, "success") ?? true,
    ...(reason === undefined ? {} : { reason }),
    ...(status === undefined ? {} : { status }),
  });
  sendJson(ctx.res, 200, disputeJson(ctx, dispute));
}

export function getDisputeDocument(ctx: Context): void {
  const dispute = findDispute(ctx);
  const document = dispute.documents.get(ctx.params[1] ?? "");
  if (!document) throw jsonError(404, "Document not found");
  sendBody(ctx.res, 200, document.bytes, document.contentType, {
    "Cache-Control": "no-store",
    "Content-Disposition": `attachment; filename=${document.defenseDocumentTypeCode}.${EXTENSIONS[document.contentType] ?? "bin"}`,
  });
}

/** Routes under `/__sandbox`, as server.ts's control table takes them. */
export const ADYEN_CONTROL_ROUTES: [string, string, Handler][] = [
  ["GET", "/adyen/merchants", listMerchants],
  ["GET", "/adyen/merchants/([^/]+)", getMerchant],
  ["POST", "/adyen/merchants/([^/]+)", updateMerchant],
  ["GET", "/adyen/settings", getSettings],
  ["POST", "/adyen/settings", updateSettings],
  ["GET", "/adyen/transactions", listTransactions],
  ["GET", "/adyen/payments/([^/]+)", getPayment],
  ["GET", "/adyen/stored-payment-methods", listStoredPaymentMethods],
  ["GET", "/adyen/notifications", listNotifications],
  ["POST", "/adyen/notifications/([^/]+)/deliver", deliverNotification],
  ["POST", "/adyen/disputes", raiseDispute],
  ["GET", "/adyen/disputes", listDisputes],
  ["GET", "/adyen/disputes/([^/]+)", getDispute],
  ["POST", "/adyen/disputes/([^/]+)/decide", decideDispute],
  ["POST", "/adyen/disputes/([^/]+)/notify", notifyDispute],
  ["GET", "/adyen/disputes/([^/]+)/documents/([^/]+)", getDisputeDocument],
];
