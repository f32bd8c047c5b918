import * as crypto from "node:crypto";

/**
 * Version nibble 4 and RFC 4122 variant (8, 9, a, b): what the real service accepts as a scan id.
 * The sandbox's one UUIDv4 check; every route that takes an id goes through {@link isUuidV4}.
 */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

export function isUuidV4(value: unknown): value is string {
  return typeof value === "string" && UUID_V4.test(value);
}

/** Mod-10 check over a string of digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

export type CardType = "VI" | "MC" | "AX" | "DI";

/** Card brand as cnpAPI's `type` element names it, or undefined for brands the sandbox does not know. */
export function cardType(number: string): CardType | undefined {
  if (/^4/.test(number)) return "VI";
  if (/^(5[1-5]|222[1-9]|22[3-9]\d|2[3-6]\d\d|27[01]\d|2720)/.test(number)) return "MC";
  if (/^3[47]/.test(number)) return "AX";
  if (/^(6011|65|64[4-9]|622)/.test(number)) return "DI";
  return undefined;
}

/** Random bytes drawn in blocks: one system call per block, not per id digit. */
let randomPool = Buffer.alloc(0);
let randomOffset = 0;

function randomByte(): number {
  if (randomOffset >= randomPool.length) {
    randomPool = crypto.randomBytes(4096);
    randomOffset = 0;
  }
  return randomPool[randomOffset++] ?? 0;
}

/**
 * A string of random decimal digits; the first one is never 0 so ids keep their length as numbers.
 * Digits come from random bytes below 250 (a multiple of 10, so every digit is equally likely).
 */
export function randomDigits(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte >= 250) continue;
    const digit = byte % 10;
    if (out.length === 0 && digit === 0) continue;
    out += String(digit);
  }
  return out;
}

/** Secrets in logs keep at most a 4-character prefix, enough to tell keys apart while debugging. */
export function redact(secret: unknown): string {
  if (typeof secret !== "string" || secret.length === 0) return "(none)";
  return `${secret.slice(0, Math.min(4, Math.floor(secret.length / 2)))}…`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
