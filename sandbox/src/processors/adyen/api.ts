import * as crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import { isPlainObject } from "../../util";
import { invalidMerchantAccount, requiredField, unauthorized, unexpectedInput, validation } from "./errors";
import type { AdyenMerchant, AdyenStore, Amount } from "./state";

/**
 * What the Checkout and Disputes APIs share: authentication by API key or Basic, and reading a
 * JSON request the way Adyen's reader does (a malformed body or a wrong type is 400/702, a
 * missing or invalid value 422).
 */

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Compares digests, so neither the length nor the content of a guess shows in the timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => crypto.createHash("sha256").update(value).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/**
 * The API credential behind `X-API-Key`, or behind `Authorization: Basic` (ws user and password).
 * Anything else is Adyen's 401/000.
 */
export function authenticate(store: AdyenStore, req: IncomingMessage): AdyenMerchant {
  const apiKey = header(req, "x-api-key");
  const merchants = [...store.merchants.values()];
  if (apiKey !== undefined && apiKey !== "") {
    const found = merchants.find((m) => sameSecret(apiKey, m.apiKey));
    if (found) return found;
    throw unauthorized();
  }
  const authorization = header(req, "authorization") ?? "";
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (match?.[1]) {
    const decoded = Buffer.from(match[1], "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon > 0) {
      const user = decoded.slice(0, colon);
      const password = decoded.slice(colon + 1);
      const found = merchants.find((m) => m.username === user && sameSecret(password, m.password));
      if (found) return found;
    }
  }
  throw unauthorized();
}

export function idempotencyKeyOf(req: IncomingMessage): string | undefined {
  return header(req, "idempotency-key");
}

/** The body as a JSON object, or Adyen's 400/702. */
export function jsonBody(raw: Buffer): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString("utf8"));
  } catch {
    throw unexpectedInput("the request body is not valid JSON");
  }
  if (!isPlainObject(value)) throw unexpectedInput("the request body must be a JSON object");
  return value;
}

/** Fields the request type does not have (its OpenAPI schema has `additionalProperties: false`). */
export function onlyFields(body: Record<string, unknown>, allowed: readonly string[], path = ""): void {
  const unknown = Object.keys(body).find((k) => !allowed.includes(k));
  if (unknown !== undefined) throw unexpectedInput(`unrecognized field "${path}${unknown.slice(0, 100)}"`);
}

export function optionalString(body: Record<string, unknown>, field: string, path = ""): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw unexpectedInput(`"${path}${field}" must be a string`);
  return value;
}

export function requiredString(body: Record<string, unknown>, field: string, path = ""): string {
  const value = optionalString(body, field, path);
  if (value === undefined || value === "") throw requiredField(`${path}${field}`);
  return value;
}

function isOneOf<T extends string>(value: string, allowed: readonly T[]): value is T {
  return (allowed as readonly string[]).includes(value);
}

/** A string from a fixed list (an enum of the spec): anything else is unreadable, 400/702. */
export function optionalEnum<T extends string>(body: Record<string, unknown>, field: string, allowed: readonly T[]): T | undefined {
  const value = optionalString(body, field);
  if (value === undefined) return undefined;
  if (!isOneOf(value, allowed)) throw unexpectedInput(`"${field}" must be one of ${allowed.join(", ")}`);
  return value;
}

/** `Amount {currency, value}` in minor units; Adyen's 100 when absent, 137 and 138 for bad values. */
export function requiredAmount(body: Record<string, unknown>, field = "amount"): Amount {
  const raw = body[field];
  if (raw === undefined || raw === null) throw validation("100", `Required object '${field}' is not provided.`);
  if (!isPlainObject(raw)) throw unexpectedInput(`"${field}" must be an object {currency, value}`);
  onlyFields(raw, ["currency", "value"], `${field}.`);
  const { value, currency } = raw;
  if (value === undefined || currency === undefined) throw requiredField(`${field}.${value === undefined ? "value" : "currency"}`);
  if (typeof value !== "number" || !Number.isSafeInteger(value)) throw unexpectedInput(`"${field}.value" must be an integer (minor units)`);
  if (typeof currency !== "string") throw unexpectedInput(`"${field}.currency" must be a string`);
  if (!/^[A-Z]{3}$/.test(currency)) throw validation("138", "Unsupported currency specified");
  if (value <= 0) throw validation("137", "Invalid amount specified");
  return { value, currency };
}

/** The request's merchant account must be the credential's: Adyen's 403/901 otherwise. */
export function requireMerchantAccount(merchant: AdyenMerchant, body: Record<string, unknown>, field: string): void {
  const named = body[field];
  if (typeof named !== "string" || named !== merchant.merchantAccount) throw invalidMerchantAccount();
}

/** A string of at most `max` characters: Adyen's 422 naming the field when longer. */
export function maxLength(value: string | undefined, field: string, max: number): string | undefined {
  if (value !== undefined && value.length > max) throw validation("000", `Field '${field}' is too long: the maximum is ${max} characters.`);
  return value;
}
