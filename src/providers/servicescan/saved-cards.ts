import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto"
import { z } from "@medusajs/framework/zod"

/**
 * Saved cards: what a customer's account holder keeps, and the cryptography
 * that keeps the processor token secret wherever Medusa copies it.
 *
 * Where the cards live, and why: Worldpay keeps no list of a customer's
 * tokens, so the list is ours to keep. It lives in the `data` of the
 * customer's Medusa account holder (one per customer and provider), the record
 * Medusa keeps of "this customer at this provider" and hands to the provider
 * when a payment session starts and when payment methods are listed. So the
 * provider alone decides which cards a customer may use, and Medusa's own
 * `listPaymentMethods` works. The price: Medusa copies the account holder,
 * `data` included, into every payment session's `context`, which the store
 * API returns to the browser. So a token is never stored as is: it is sealed
 * (AES-256-GCM) under a key only the server has, bound to the customer and the
 * card, and only the provider opens it, for the one processor call that needs it.
 */

/** At most this many cards per customer; saving one more drops the one saved longest ago. */
export const MAX_SAVED_CARDS = 10

/** The keys derived from the `savedCards.secret` option: one to seal tokens, one to fingerprint them. */
export type SavedCardKeys = { seal: Buffer; mac: Buffer }

/** Derives both keys from the store owner's secret (HKDF-SHA256, one label each). */
export function deriveSavedCardKeys(secret: string): SavedCardKeys {
  const derive = (label: string) =>
    Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), `servicescan saved cards: ${label}`, 32))
  return { seal: derive("seal v1"), mac: derive("fingerprint v1") }
}

/**
 * A keyed fingerprint of a processor token: equal tokens, equal fingerprints;
 * the token cannot be recovered from it. Keyed because processor tokens are
 * short and partly known (Worldpay's keep the card's last four), so a plain
 * hash of one could be reversed by trying them all.
 */
export function tokenFingerprint(keys: SavedCardKeys, token: string): string {
  return createHmac("sha256", keys.mac).update(`token:${token}`, "utf8").digest("base64url").slice(0, 32)
}

const CARD_ID = /^sscard_[A-Za-z0-9_-]{22}$/

/** Whether a string has the shape of a saved card's id. */
export function isSavedCardId(value: unknown): value is string {
  return typeof value === "string" && CARD_ID.test(value)
}

/**
 * The id of a customer's card: the same card saved twice gets the same id, so
 * a repeated save (a retried subscriber, a second purchase with "save" ticked)
 * is one card, not two.
 */
export function savedCardIdFor(keys: SavedCardKeys, customerId: string, fingerprint: string): string {
  const mac = createHmac("sha256", keys.mac).update(`card:${customerId}:${fingerprint}`, "utf8").digest("base64url")
  return `sscard_${mac.slice(0, 22)}`
}

/** What a sealed token is bound to: it opens only for this customer and this card. */
export type SealBinding = { customerId: string; cardId: string }

const SEAL_VERSION = "v1"

/** Seals a processor token (AES-256-GCM, random nonce); the binding is authenticated, not encrypted. */
export function sealToken(keys: SavedCardKeys, token: string, binding: SealBinding): string {
  const nonce = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", keys.seal, nonce)
  cipher.setAAD(Buffer.from(aad(binding), "utf8"))
  const body = Buffer.concat([cipher.update(token, "utf8"), cipher.final()])
  return `${SEAL_VERSION}.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url")}`
}

/**
 * Opens a sealed token. Undefined when it was sealed under another key, for
 * another customer or card, or altered: every such case means "this card
 * cannot be used from here", and none of them may say more.
 */
export function openToken(keys: SavedCardKeys, sealed: string, binding: SealBinding): string | undefined {
  const [version, payload] = sealed.split(".")
  if (version !== SEAL_VERSION || !payload) {
    return undefined
  }
  const raw = Buffer.from(payload, "base64url")
  if (raw.length < 12 + 16 + 1) {
    return undefined
  }
  try {
    const decipher = createDecipheriv("aes-256-gcm", keys.seal, raw.subarray(0, 12))
    decipher.setAAD(Buffer.from(aad(binding), "utf8"))
    decipher.setAuthTag(raw.subarray(raw.length - 16))
    return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8")
  } catch {
    return undefined
  }
}

function aad(binding: SealBinding): string {
  return `${SEAL_VERSION}|${binding.customerId}|${binding.cardId}`
}

/** Constant-time equality of two fingerprints. */
export function sameFingerprint(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8")
  const right = Buffer.from(b, "utf8")
  return left.length === right.length && timingSafeEqual(left, right)
}

/** One saved card, as the account holder's `data.cards` keeps it. */
export const savedCardSchema = z.object({
  id: z.string().regex(CARD_ID),
  /** The processor token, sealed (see {@link sealToken}). Never leaves the server opened. */
  sealed_token: z.string().min(1).max(1024),
  /** {@link tokenFingerprint} of the token: finds the same card among payments. */
  fingerprint: z.string().min(1).max(64),
  /** The card's brand as the processor names it (cnpAPI `type`: VI, MC, AX, DI, ...), when it said. */
  brand: z.string().max(16).nullable(),
  last4: z.string().regex(/^\d{4}$/).nullable(),
  /**
   * The scan id of the form that produced the token (its form id): the
   * evidence this card carries into every later payment made with it.
   */
  scan_id: z.string().nullable(),
  /** The payment whose authorization saved it. */
  payment_id: z.string().nullable(),
  saved_at: z.string(),
})

export type SavedCard = z.infer<typeof savedCardSchema>

/**
 * The account holder's `data`: the customer it belongs to and their cards.
 * Loose, so keys written by something else survive our updates.
 */
export const accountHolderDataSchema = z.looseObject({
  customer_id: z.string().min(1),
  cards: z.array(savedCardSchema).default([]),
})

export type ServiceScanAccountHolderData = z.infer<typeof accountHolderDataSchema>

/** The account holder's data as this provider wrote it, or undefined when it is not ours. */
export function readAccountHolderData(data: unknown): ServiceScanAccountHolderData | undefined {
  const parsed = accountHolderDataSchema.safeParse(data ?? {})
  return parsed.success ? parsed.data : undefined
}

/** The card with this id among an account holder's, if any. */
export function findSavedCard(data: unknown, cardId: string): SavedCard | undefined {
  return readAccountHolderData(data)?.cards.find((card) => card.id === cardId)
}

/**
 * The data with `card` added. A card whose token is already saved (same
 * fingerprint) is replaced, keeping its place; beyond {@link MAX_SAVED_CARDS}
 * the card saved longest ago goes.
 */
export function withSavedCard(data: ServiceScanAccountHolderData, card: SavedCard): ServiceScanAccountHolderData {
  const others = data.cards.filter((existing) => existing.id !== card.id && !sameFingerprint(existing.fingerprint, card.fingerprint))
  const cards = [...others, card]
    .sort((a, b) => a.saved_at.localeCompare(b.saved_at))
    .slice(-MAX_SAVED_CARDS)
  return { ...data, cards }
}

/** The data without the card `cardId`. */
export function withoutSavedCard(data: ServiceScanAccountHolderData, cardId: string): ServiceScanAccountHolderData {
  return { ...data, cards: data.cards.filter((card) => card.id !== cardId) }
}

const BRAND_NAMES: Readonly<Record<string, string>> = {
  VI: "Visa",
  MC: "Mastercard",
  AX: "American Express",
  DI: "Discover",
  JC: "JCB",
  DC: "Diners Club",
}

/** What a shopper sees of a saved card: no token, sealed or not, and no fingerprint. */
export type PublicSavedCard = {
  /** A brand name a shopper recognises ("Visa"), or null when the processor did not say. */
  brand: string | null
  last4: string | null
  saved_at: string
}

export function publicSavedCard(card: SavedCard): PublicSavedCard {
  return {
    brand: card.brand ? (BRAND_NAMES[card.brand.toUpperCase()] ?? card.brand) : null,
    last4: card.last4,
    saved_at: card.saved_at,
  }
}
