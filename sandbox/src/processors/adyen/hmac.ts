import * as crypto from "node:crypto";

/**
 * The HMAC of Adyen's standard notifications (docs: verify-hmac-signatures; the official Node
 * library's `HmacValidator`). Only these eight fields are signed: eventDate, reason and the rest of
 * additionalData are not, which is why a receiver cannot tell a replay from a retry.
 */
export interface SignedFields {
  pspReference: string;
  originalReference?: string | undefined;
  merchantAccountCode: string;
  merchantReference: string;
  amount: { value: number; currency: string };
  eventCode: string;
  success: string;
}

/** The eight values joined by `:` in Adyen's order, an absent one as "", with no escaping. */
export function signingString(item: SignedFields): string {
  return [
    item.pspReference,
    item.originalReference ?? "",
    item.merchantAccountCode,
    item.merchantReference,
    String(item.amount.value),
    item.amount.currency,
    item.eventCode,
    item.success,
  ].join(":");
}

/** HMAC-SHA256 under the hex-decoded key, base64: the value of `additionalData.hmacSignature`. */
export function hmacSignature(item: SignedFields | string, hexKey: string): string {
  const data = typeof item === "string" ? item : signingString(item);
  return crypto.createHmac("sha256", Buffer.from(hexKey, "hex")).update(data, "utf8").digest("base64");
}

/**
 * The Customer Area shows a 64-digit hex key; shorter even-length keys (at least 16 bytes) are
 * accepted so tests can use Adyen's published vectors' keys and their own.
 */
export function isHexKey(key: string): boolean {
  return /^(?:[0-9a-fA-F]{2}){16,64}$/.test(key);
}
