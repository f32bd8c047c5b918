import * as crypto from "node:crypto";
import { originAllowed, requireApiKey, requireBodyKey } from "./auth";
import { buildRegisterTokenRequest } from "./processors/worldpay/cnp";
import { jsonError, parseJson, sendJson } from "./http";
import type { Context } from "./server";
import type { FormConfig } from "./store";
import { isPlainObject, isUuidV4, luhnValid } from "./util";

export const LIMITS = { customerId: 50, id: 25 } as const;
export const DEFAULT_REPORT_GROUP = "Default Report Group";
const PROCESSORS = new Set(["worldpay", "adyen"]);

export interface CardInput {
  number: string;
  cvv: string;
  expiry: string;
}

/** The hosted form's validation, in eProtect's order: the first failing rule wins. */
export function validateCard(card: CardInput, now: Date): { code: string; number: string } {
  const number = card.number.replace(/[\s-]/g, "");
  if (!/^\d*$/.test(number)) return { code: "874", number };
  if (number.length < 13) return { code: "872", number };
  if (number.length > 19) return { code: "873", number };
  if (!luhnValid(number)) return { code: "871", number };
  if (!/^\d*$/.test(card.cvv)) return { code: "881", number };
  if (card.cvv.length < 3) return { code: "882", number };
  if (card.cvv.length > 4) return { code: "883", number };
  if (!expiryValid(card.expiry, now)) return { code: "886", number };
  return { code: "870", number };
}

/** `MM/YY` (also `MM/YYYY`, spaces tolerated); a card is good through the end of its month. */
export function expiryValid(expiry: string, now: Date): boolean {
  const match = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(expiry);
  if (!match) return false;
  const [, monthText = "", yearText = ""] = match;
  const month = Number(monthText);
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  if (month < 1 || month > 12) return false;
  return year * 12 + month >= now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

function requireString(value: unknown, field: string): string {
  if (typeof value !== "string") throw jsonError(400, `${field} must be a string`);
  return value;
}

function readConfig(raw: unknown): FormConfig {
  if (raw === undefined || raw === null) return {};
  if (!isPlainObject(raw)) throw jsonError(400, "config must be an object");
  const config: FormConfig = {};
  for (const field of ["customerId", "id", "reportGroup"] as const) {
    const value = raw[field];
    if (value === undefined || value === null) continue;
    const str = requireString(value, `config.${field}`);
    const max = field === "reportGroup" ? undefined : LIMITS[field];
    if (max !== undefined && str.length > max) {
      throw jsonError(400, `config.${field} must be at most ${max} characters`);
    }
    // An empty value means "not given": cnpAPI has no use for empty attributes.
    if (str !== "") config[field] = str;
  }
  return config;
}

/**
 * The origin whose host must be a registered domain. Browsers set `Origin`; when it is the
 * sandbox itself, the request comes from our own frame and the parent page's origin (which the
 * frame page was checked against when it was served) travels in the body.
 */
function effectiveOrigin(ctx: Context, body: Record<string, unknown>): string {
  const header = ctx.req.headers.origin;
  if (!header || header === "null") {
    throw jsonError(403, "An Origin header from a registered domain is required: the form API is called from browsers");
  }
  let own = false;
  try {
    own = new URL(header).host === ctx.req.headers.host;
  } catch {
    throw jsonError(403, `Origin ${header} is not a registered domain of this account`);
  }
  if (!own) return header;
  if (typeof body.origin !== "string" || body.origin === "") {
    throw jsonError(400, "origin must be a string: the page origin the sandbox frame was opened for");
  }
  return body.origin;
}

/** `POST /api/v1/forms` */
export function createForm(ctx: Context): void {
  const { store } = ctx;
  const parsed = parseJson(ctx.body);
  if (!parsed.ok) throw jsonError(400, "Malformed JSON body");
  const body = parsed.value;
  if (!isPlainObject(body)) throw jsonError(400, "The request body must be a JSON object");
  if (typeof body.key !== "string" || body.key === "") throw jsonError(400, "key must be a non-empty string (a shareable API key)");

  const { account } = requireBodyKey(store, body.key, "form:submit");
  const origin = effectiveOrigin(ctx, body);
  if (!originAllowed(account, origin)) {
    throw jsonError(403, `Origin ${origin.slice(0, 200)} is not a registered domain of this account`);
  }

  if (!isPlainObject(body.card)) throw jsonError(400, "card must be an object with number, cvv and expiry");
  const card: CardInput = {
    number: requireString(body.card.number, "card.number"),
    cvv: requireString(body.card.cvv, "card.cvv"),
    expiry: requireString(body.card.expiry, "card.expiry"),
  };
  const config = readConfig(body.config);
  if (body.scanned !== undefined && typeof body.scanned !== "boolean") throw jsonError(400, "scanned must be a boolean");
  let formId: string = crypto.randomUUID();
  if (body.formId !== undefined) {
    if (!isUuidV4(body.formId)) throw jsonError(400, "formId must be a UUIDv4");
    formId = body.formId.toLowerCase();
    if (store.forms.has(formId) || store.scans.has(formId)) throw jsonError(409, "formId has already been used");
  }

  const { code, number } = validateCard(card, new Date());
  const scanned = body.scanned === true;
  store.forms.set(formId, {
    id: formId,
    accountId: account.id,
    card: { number, cvv: card.cvv, expiry: card.expiry },
    responseCode: code,
    config,
    scanned,
    origin,
    createdAt: Date.now(),
    expired: false,
    token: null,
  });
  // Project rule: the scan id of a payment is its form id.
  if (scanned) store.createScan(account.id, { id: formId, cardNumber: number, source: "form" });
  sendJson(ctx.res, 200, { formId, responseCode: code });
}

/** `GET /api/v1/<processor>/form/<form_id>` */
export function exchangeForm(ctx: Context): void {
  const { store } = ctx;
  const { account } = requireApiKey(store, ctx.req, "token:exchange");
  const [processorName = "", formId = ""] = ctx.params;
  if (!PROCESSORS.has(processorName)) throw jsonError(404, `Unknown processor: ${processorName.slice(0, 100)}`);

  const form = isUuidV4(formId) ? store.forms.get(formId.toLowerCase()) : undefined;
  if (!form || form.accountId !== account.id) throw jsonError(404, "Form not found");
  if (form.expired || Date.now() - form.createdAt > store.settings.formTtlMs) throw jsonError(410, "Form expired");
  if (form.responseCode !== "870") {
    throw jsonError(422, "Form failed validation", { responseCode: form.responseCode });
  }
  // Adyen stores the card as a stored payment method; the same form always gives the same id.
  if (processorName === "adyen") return sendJson(ctx.res, 200, { token: ctx.services.adyen.tokenizeForm(account.id, form) });
  if (form.token) return sendJson(ctx.res, 200, { token: form.token });

  const xml = buildRegisterTokenRequest({
    credentials: account.processor,
    id: form.config.id ?? crypto.randomBytes(12).toString("hex"),
    customerId: form.config.customerId,
    reportGroup: form.config.reportGroup ?? DEFAULT_REPORT_GROUP,
    orderId: form.id.replace(/-/g, "").slice(0, 25),
    accountNumber: form.card.number,
    cardValidationNum: form.card.cvv,
  });
  const result = store.processor.handle(xml, { source: "token-exchange" });
  const txn = result.transaction;
  if (!txn) {
    ctx.log("error", `processor refused the token registration envelope: ${result.envelope.message}`);
    throw jsonError(502, "Processor rejected the request", { processorMessage: result.envelope.message });
  }
  if ((txn.response === "801" || txn.response === "802") && txn.token) {
    form.token = txn.token;
    return sendJson(ctx.res, 200, { token: txn.token });
  }
  throw jsonError(402, "Tokenization failed", { processorResponse: txn.response, processorMessage: txn.message });
}
