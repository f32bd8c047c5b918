import { createDecipheriv, createHmac, timingSafeEqual } from "node:crypto"
import { z } from "@medusajs/framework/zod"
import { cardBrandName } from "../../lib/card-brands"
import { deriveKey, Keyring, KeyringConfigurationError, KeyringOption, OpenResult, sealedKeyId } from "../../lib/keyring"

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
 *
 * Keys, and rotating them: tokens are sealed under a keyring (src/lib/keyring.ts,
 * the `savedCards.secret` option: one secret, or `[{ id, secret }, ...]` newest
 * first): new seals use the newest key, older ones still open, and the re-seal
 * command (or any write of the account holder) moves them to the newest. The
 * fingerprints (and the card ids derived from them) are keyed by one stable
 * secret, `savedCards.fingerprintSecret` (by default the single secret): they
 * link a card's payments over years (the evidence of a saved-card payment is
 * the scan of an earlier one), so they must outlive a rotation of the seal.
 * A card that does not open because its key is not configured is kept, hidden,
 * never dropped: it opens again once the key is back.
 */

/** At most this many cards per customer; saving one more drops the one saved longest ago. */
export const MAX_SAVED_CARDS = 10

/** The keys of saved cards: the keyring that seals tokens, and the key of fingerprints. */
export type SavedCardKeys = { seal: Keyring; mac: Buffer }

/** What the `savedCards` option holds about keys. */
export type SavedCardSecrets = {
  /** One secret, or a keyring newest first. */
  secret: KeyringOption
  /** The fingerprints' key; required with a keyring, the single secret by default. */
  fingerprintSecret?: string
}

/** Derivation labels (HKDF-SHA256 info): the same as before keyrings, so earlier seals and fingerprints still hold. */
const SEAL_PURPOSE = "servicescan saved cards: seal v1"
const FINGERPRINT_PURPOSE = "servicescan saved cards: fingerprint v1"

/**
 * The keys of the `savedCards` option.
 * @throws KeyringConfigurationError on a ring the option schema would refuse.
 */
export function savedCardKeys(options: SavedCardSecrets): SavedCardKeys {
  const fingerprintSecret = options.fingerprintSecret ?? (typeof options.secret === "string" ? options.secret : undefined)
  if (!fingerprintSecret) {
    throw new KeyringConfigurationError("savedCards.fingerprintSecret is required when savedCards.secret is a list of keys")
  }
  return { seal: Keyring.from(options.secret, SEAL_PURPOSE), mac: deriveKey(fingerprintSecret, FINGERPRINT_PURPOSE) }
}

/** Every secret string of the option, for the provider's scrub list: none may reach a log line. */
export function savedCardSecretValues(options: SavedCardSecrets): string[] {
  const ring = typeof options.secret === "string" ? [options.secret] : options.secret.map((entry) => entry.secret)
  return [...ring, ...(options.fingerprintSecret ? [options.fingerprintSecret] : [])]
}

/** The keys of a single secret: a one-key ring that also keys fingerprints (the option before keyrings). */
export function deriveSavedCardKeys(secret: string): SavedCardKeys {
  return savedCardKeys({ secret })
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

/**
 * Seals a processor token under the newest key (a keyring value, random
 * nonce); the binding is authenticated, not encrypted.
 */
export function sealToken(keys: SavedCardKeys, token: string, binding: SealBinding): string {
  return keys.seal.seal(Buffer.from(token, "utf8"), sealContext(binding))
}

/**
 * Opens a sealed token, and says why when it does not: `unknown-key` (sealed
 * under a key the option no longer holds: keep the card, it opens again once
 * the key is back) or `does-not-open` / `malformed` (altered, or another
 * customer's or card's: it never will). Tokens sealed before keyrings
 * (`v1.`, no key id) are opened with each key of the ring.
 */
export function openSealedToken(keys: SavedCardKeys, sealed: string, binding: SealBinding): OpenResult {
  if (sealed.startsWith(`${LEGACY_VERSION}.`)) {
    return openLegacyToken(keys, sealed, binding)
  }
  return keys.seal.open(sealed, sealContext(binding))
}

/**
 * Opens a sealed token. Undefined when it was sealed under a key not
 * configured, for another customer or card, or altered: every such case means
 * "this card cannot be used from here", and none of them may say more.
 */
export function openToken(keys: SavedCardKeys, sealed: string, binding: SealBinding): string | undefined {
  const opened = openSealedToken(keys, sealed, binding)
  return opened.ok ? opened.plain.toString("utf8") : undefined
}

/** Whether a sealed token is under the newest key already (nothing for a re-seal to do). */
export function isSealedUnderNewestKey(keys: SavedCardKeys, sealed: string): boolean {
  return keys.seal.isCurrent(sealed)
}

function sealContext(binding: SealBinding): string {
  return `saved-card|${binding.customerId}|${binding.cardId}`
}

/** Tokens sealed before keyrings: `v1.<base64url(nonce 12 | ciphertext | tag 16)>`, AAD `v1|customer|card`. */
const LEGACY_VERSION = "v1"

function openLegacyToken(keys: SavedCardKeys, sealed: string, binding: SealBinding): OpenResult {
  const [, payload, extra] = sealed.split(".")
  const raw = payload && extra === undefined ? Buffer.from(payload, "base64url") : Buffer.alloc(0)
  if (raw.length < 12 + 16 + 1) {
    return { ok: false, reason: "malformed" }
  }
  for (const { id, key } of keys.seal.keys) {
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12))
      decipher.setAAD(Buffer.from(`${LEGACY_VERSION}|${binding.customerId}|${binding.cardId}`, "utf8"))
      decipher.setAuthTag(raw.subarray(raw.length - 16))
      return { ok: true, plain: Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]), keyId: id }
    } catch {
      // another key of the ring
    }
  }
  // A legacy seal names no key: one that opens under none may be under a secret no longer configured.
  return { ok: false, reason: "unknown-key" }
}

/** What {@link resealSavedCards} did to an account holder's cards. */
export type ResealedCards = {
  /** The cards to store: every card that opens, under the newest key and fingerprint key; and every card whose key is missing, as it was. */
  cards: SavedCard[]
  /** Cards moved to the newest key (or to the fingerprint key). */
  resealed: number
  /** Cards kept unopened: their key is not configured now (key ids, or "v1" for seals made before keyrings). */
  unopened: string[]
  /** Cards dropped: their key is here and they do not open for this customer and card (copied, or altered). */
  dropped: number
}

/**
 * Brings a customer's cards to the current keys: each card that opens is
 * sealed again under the newest key when it is not already, and its
 * fingerprint recomputed when the fingerprint key changed (the card keeps its
 * id). A card whose key is not configured is kept as it is: rotating, or
 * mistyping, a secret never loses a card. Only a card that its own key
 * refuses is dropped.
 */
export function resealSavedCards(keys: SavedCardKeys, data: ServiceScanAccountHolderData): ResealedCards {
  const result: ResealedCards = { cards: [], resealed: 0, unopened: [], dropped: 0 }
  for (const card of data.cards) {
    const binding = { customerId: data.customer_id, cardId: card.id }
    const opened = openSealedToken(keys, card.sealed_token, binding)
    if (!opened.ok) {
      if (opened.reason === "unknown-key") {
        result.cards.push(card)
        result.unopened.push(sealedKeyId(card.sealed_token) ?? LEGACY_VERSION)
      } else {
        result.dropped++
      }
      continue
    }
    const token = opened.plain.toString("utf8")
    const fingerprint = tokenFingerprint(keys, token)
    if (isSealedUnderNewestKey(keys, card.sealed_token) && sameFingerprint(fingerprint, card.fingerprint)) {
      result.cards.push(card)
      continue
    }
    result.cards.push({ ...card, sealed_token: sealToken(keys, token, binding), fingerprint })
    result.resealed++
  }
  return result
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

/** What a shopper sees of a saved card: no token, sealed or not, and no fingerprint. */
export type PublicSavedCard = {
  /** A brand name a shopper recognises ("Visa"), or null when the processor did not say. */
  brand: string | null
  last4: string | null
  saved_at: string
}

export function publicSavedCard(card: SavedCard): PublicSavedCard {
  return {
    brand: card.brand ? (cardBrandName(card.brand) ?? card.brand) : null,
    last4: card.last4,
    saved_at: card.saved_at,
  }
}
