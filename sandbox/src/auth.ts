import type { IncomingMessage } from "node:http";
import { jsonError, textError } from "./http";
import type { Account, ApiKey, Permission, Store } from "./store";

export const MISSING_KEY = "An API key is required for authentication";
export const INVALID_KEY = "Invalid API key provided";
export const INVALID_PERMISSIONS = "Key has invalid permissions";

export type KeyCheck = { ok: true; key: ApiKey; account: Account } | { ok: false; status: 401 | 403; message: string };

/**
 * Looks a key up the way the service does for every `X-API-KEY` endpoint and returns a
 * description of the failure, so header and body-key callers can render it their own way.
 */
export function checkKey(store: Store, value: string | undefined, permission: Permission): KeyCheck {
  if (value === undefined || value === "") return { ok: false, status: 401, message: MISSING_KEY };
  if (store.faults.keyLookup === "fail") return { ok: false, status: 403, message: INVALID_KEY };
  const key = store.keys.get(value);
  const account = key && store.accounts.get(key.accountId);
  if (!key || !account) return { ok: false, status: 403, message: INVALID_KEY };
  if (!key.permissions.includes(permission)) return { ok: false, status: 403, message: INVALID_PERMISSIONS };
  return { ok: true, key, account };
}

/** Authenticates an `X-API-KEY` request; failures are the spec's plain-text bodies. */
export function requireApiKey(store: Store, req: IncomingMessage, permission: Permission): { key: ApiKey; account: Account } {
  const header = req.headers["x-api-key"];
  const result = checkKey(store, Array.isArray(header) ? header[0] : header, permission);
  if (!result.ok) throw textError(result.status, result.message);
  return result;
}

/** Same checks for the form API, whose key travels in the JSON body; it answers JSON errors. */
export function requireBodyKey(store: Store, value: string, permission: Permission): { key: ApiKey; account: Account } {
  const result = checkKey(store, value, permission);
  if (!result.ok) throw jsonError(result.status, result.message);
  return result;
}

/**
 * Registered domains are host names, optionally `*.`-prefixed for subdomains and optionally with
 * a `:port`; without a port any port matches (so `localhost` covers every dev server).
 * @returns the normalized domain, or null when it is not one
 */
export function normalizeDomain(domain: string): string | null {
  const trimmed = domain.trim().toLowerCase();
  const match = /^(\*\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/.exec(trimmed);
  if (!match) return null;
  if (match[3] !== undefined && Number(match[3]) > 65535) return null;
  return trimmed;
}

export function originAllowed(account: Account, origin: string): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== origin.replace(/\/$/, "")) return false;
  const host = url.hostname.toLowerCase();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return account.domains.some((domain) => {
    const [, wildcard, name, domainPort] = /^(\*\.)?(.+?)(?::(\d+))?$/.exec(domain) ?? [];
    if (domainPort !== undefined && domainPort !== port) return false;
    return wildcard ? host.endsWith(`.${name}`) : host === name;
  });
}
