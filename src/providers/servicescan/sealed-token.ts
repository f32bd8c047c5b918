import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto"

/**
 * Processor tokens sealed for the places Medusa copies to the browser (a
 * payment session's `data`, an account holder's `data` inside a session's
 * `context`): AES-256-GCM under a key only the server has, bound to what the
 * token may pay for. Only the provider opens one, for the one processor call
 * that needs it.
 */

/** A key to seal tokens with. */
export type SealKeys = { seal: Buffer }

/** A 32-byte key derived from a server secret (HKDF-SHA256); a distinct label per use. */
export function deriveKey(secret: string, label: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), label, 32))
}

/**
 * What a sealed token is bound to, authenticated but not encrypted: a saved
 * card's token opens only for its customer and card, a submitted form's only
 * for its form id.
 */
export type SealBinding = { customerId: string; cardId: string } | { formId: string }

const SEAL_VERSION = "v1"

/** Seals a processor token (AES-256-GCM, random nonce). */
export function sealToken(keys: SealKeys, token: string, binding: SealBinding): string {
  const nonce = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", keys.seal, nonce)
  cipher.setAAD(Buffer.from(aad(binding), "utf8"))
  const body = Buffer.concat([cipher.update(token, "utf8"), cipher.final()])
  return `${SEAL_VERSION}.${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64url")}`
}

/**
 * Opens a sealed token. Undefined when it was sealed under another key, for
 * another binding, or altered: every such case means "this token cannot be
 * used from here", and none of them may say more.
 */
export function openToken(keys: SealKeys, sealed: string, binding: SealBinding): string | undefined {
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

// A saved card's binding keeps the format its tokens were sealed with; a form's is marked apart from it.
function aad(binding: SealBinding): string {
  return "formId" in binding
    ? `${SEAL_VERSION}|form|${binding.formId}`
    : `${SEAL_VERSION}|${binding.customerId}|${binding.cardId}`
}
