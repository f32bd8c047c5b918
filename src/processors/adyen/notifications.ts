import { createHmac, timingSafeEqual } from "node:crypto"
import { z } from "@medusajs/framework/zod"

/**
 * Adyen's standard notification webhook (`Webhooks-v1.json`): the body's
 * shape, the HMAC over each item, and the webhook's HTTP Basic credentials.
 * What an item means to the plugin is `notification-events.ts`.
 *
 * The HMAC is implemented here rather than taken from `@adyen/api-library`
 * (33 MB for twenty lines) and tested against Adyen's two published vectors.
 */

/** How an item's amount travels: minor units, with its ISO 4217 code. */
const amountSchema = z.object({
  value: z.number().int(),
  currency: z.string().length(3),
})

/**
 * One `NotificationRequestItem`. The spec's required fields are required;
 * `success`, `live` and every `additionalData` value are strings on the wire.
 * `eventCode` is not checked against the spec's enum: Adyen sends codes the
 * enum lacks, and they are acknowledged, not refused.
 */
const itemSchema = z.object({
  pspReference: z.string().min(1).max(64),
  originalReference: z.string().max(64).optional(),
  merchantAccountCode: z.string().min(1).max(256),
  merchantReference: z.string().max(256),
  amount: amountSchema,
  eventCode: z.string().min(1).max(64),
  eventDate: z.string().min(1).max(64),
  success: z.enum(["true", "false"]),
  reason: z.string().max(4096).optional(),
  paymentMethod: z.string().max(64).optional(),
  additionalData: z.record(z.string(), z.unknown()).optional(),
})

const bodySchema = z.object({
  live: z.enum(["true", "false"]),
  notificationItems: z.array(z.object({ NotificationRequestItem: itemSchema })).min(1).max(100),
})

/** A notification item as read: `additionalData` keeps only its string values. */
export type NotificationItem = Omit<z.output<typeof itemSchema>, "additionalData"> & {
  additionalData: Record<string, string>
}

/** A notification body as read. */
export type Notification = { live: boolean; items: NotificationItem[] }

/** The body is not JSON, or not a standard notification. */
export class MalformedNotificationError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "MalformedNotificationError"
  }
}

/**
 * Reads a notification body. Throws {@link MalformedNotificationError} for
 * anything that is not a standard notification; the message names the field
 * and never echoes a value.
 */
export function parseNotification(body: Uint8Array | string): Notification {
  let json: unknown
  try {
    json = JSON.parse(typeof body === "string" ? body : Buffer.from(body).toString("utf8"))
  } catch {
    throw new MalformedNotificationError("the body is not JSON")
  }
  const parsed = bodySchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new MalformedNotificationError(`not a standard notification: ${issue.path.join(".") || "body"}: ${issue.message}`)
  }
  return {
    live: parsed.data.live === "true",
    items: parsed.data.notificationItems.map(({ NotificationRequestItem: item }) => ({
      ...item,
      additionalData: Object.fromEntries(
        Object.entries(item.additionalData ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === "string")
      ),
    })),
  }
}

/**
 * Reads back one item as stored (its `additionalData` string values only);
 * throws {@link MalformedNotificationError} for anything else.
 */
export function parseNotificationItem(value: unknown): NotificationItem {
  const parsed = itemSchema.safeParse(value)
  if (!parsed.success) {
    throw new MalformedNotificationError(`not a notification item: ${parsed.error.issues[0].path.join(".") || "item"}`)
  }
  return {
    ...parsed.data,
    additionalData: Object.fromEntries(
      Object.entries(parsed.data.additionalData ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === "string")
    ),
  }
}

/** The fields an item's HMAC covers, and nothing else: eventDate, reason and the rest of additionalData are not signed. */
export type SignedFields = Pick<
  NotificationItem,
  "pspReference" | "originalReference" | "merchantAccountCode" | "merchantReference" | "amount" | "eventCode" | "success"
>

/**
 * The signing string: the eight signed values joined by `:`, in Adyen's
 * order, an absent one (usually `originalReference`) as the empty string, and
 * no escaping (the escaping of Adyen's library applies to its key-value HPP
 * variant only).
 */
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
  ].join(":")
}

/** HMAC-SHA256 of the signing string under the hex-decoded key, base64: an item's `additionalData.hmacSignature`. */
export function hmacSignature(item: SignedFields | string, hexKey: string): string {
  const data = typeof item === "string" ? item : signingString(item)
  return createHmac("sha256", Buffer.from(hexKey, "hex")).update(data, "utf8").digest("base64")
}

/** A hex HMAC key as the Customer Area shows it (64 digits; Adyen's published vectors' keys are as long). */
export const HMAC_KEY = /^(?:[0-9a-fA-F]{2}){16,64}$/

/**
 * Whether an item carries a valid signature under one of the keys (the
 * current key first; an earlier one while notifications queued under it
 * drain). A missing or unreadable signature is a forgery, never a pass.
 * Compared in constant time, as decoded bytes.
 */
export function hasValidSignature(item: SignedFields & { additionalData: Record<string, string> }, hexKeys: readonly string[]): boolean {
  const received = item.additionalData.hmacSignature
  if (typeof received !== "string" || received === "" || !/^[A-Za-z0-9+/]+={0,2}$/.test(received)) {
    return false
  }
  const given = Buffer.from(received, "base64")
  const data = signingString(item)
  let valid = false
  for (const key of hexKeys) {
    const expected = Buffer.from(hmacSignature(data, key), "base64")
    // Every key is tried, so the time taken does not say which one matched.
    valid = (expected.length === given.length && timingSafeEqual(expected, given)) || valid
  }
  return valid
}

/**
 * Whether an `Authorization` header carries the webhook's Basic credentials.
 * Both parts are compared in full, in constant time, whatever the first's
 * result: the time taken says nothing about which part was wrong.
 */
export function hasBasicCredentials(header: string | string[] | undefined, user: string, password: string): boolean {
  const value = Array.isArray(header) ? header[0] : header
  const match = typeof value === "string" ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(value) : null
  if (!match) {
    return false
  }
  const decoded = Buffer.from(match[1], "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon < 0) {
    return false
  }
  const userOk = sameText(decoded.slice(0, colon), user)
  const passwordOk = sameText(decoded.slice(colon + 1), password)
  return userOk && passwordOk
}

/** Constant-time equality of two strings (by their SHA-256, so lengths leak nothing either). */
function sameText(given: string, expected: string): boolean {
  const digest = (text: string) => createHmac("sha256", "servicescan-compare").update(text, "utf8").digest()
  return timingSafeEqual(digest(given), digest(expected))
}
