import { createHash } from "node:crypto"

/**
 * Processor request ids from Medusa's idempotency keys.
 *
 * cnpAPI's duplicate detection keys on the transaction's `id` attribute (at
 * most 25 characters) and type: a repeated request with the same id gets the
 * original answer instead of a second charge. The hosted form's config `id`
 * and cnpAPI's `orderId` have the same 25-character limit. So every id must be
 * a pure function of the Medusa operation it belongs to, and fit in 25.
 *
 * Medusa's ids are `<prefix>_<ULID>` (`payses_01JB…`, 26 ULID characters). The
 * ULID alone is unique, and its first character is the top of a 48-bit
 * millisecond timestamp that stays "0" until the year 3084, so dropping it
 * keeps the id unique, readable and searchable: the merchant finds
 * `payses_01JB8X…` in Worldpay's reports as `1JB8X…`. Anything else (custom
 * keys, longer ids) is hashed: 25 base32 characters of SHA-256, 125 bits.
 */

const MAX_ID_LENGTH = 25
const MEDUSA_ULID_ID = /^[a-z]+_0([0-9A-HJKMNP-TV-Z]{25})$/
const SAFE_SHORT = /^[A-Za-z0-9_-]{1,25}$/
const BASE32 = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

/** A deterministic id of at most 25 characters for an idempotency key. */
export function processorIdFor(idempotencyKey: string): string {
  const ulid = MEDUSA_ULID_ID.exec(idempotencyKey)
  if (ulid) {
    return ulid[1]
  }
  if (SAFE_SHORT.test(idempotencyKey)) {
    return idempotencyKey
  }
  return hashId(idempotencyKey)
}

/** A deterministic 25-character id for any string. */
export function hashId(value: string): string {
  const digest = createHash("sha256").update(value, "utf8").digest()
  // Crockford base32 of the first 125 bits.
  let bits = 0
  let buffer = 0
  let out = ""
  for (const byte of digest) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5 && out.length < MAX_ID_LENGTH) {
      bits -= 5
      out += BASE32[(buffer >> bits) & 31]
    }
    buffer &= (1 << bits) - 1
    if (out.length === MAX_ID_LENGTH) {
      break
    }
  }
  return out
}

/** The hosted form's `customerId` (at most 50 characters), or undefined when it does not fit. */
export function formCustomerId(customerId: string | undefined): string | undefined {
  return customerId && customerId.length <= 50 ? customerId : undefined
}

/**
 * The payment session whose id `processorIdFor` turned into this request id,
 * when it was a Medusa id (`payses_0` + the 25 characters kept). A chargeback
 * case names the order reference its transaction carried; this finds the
 * session, and through it the order, for payments recorded before the
 * plugin kept references of its own.
 */
export function paymentSessionIdFor(requestId: string): string | undefined {
  return /^[0-9A-HJKMNP-TV-Z]{25}$/.test(requestId) ? `payses_0${requestId}` : undefined
}
