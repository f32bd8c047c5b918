import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"

/**
 * Archived card-scan images are sealed (AES-256-GCM) before they reach a file
 * provider, each with its own random key that stays in our database.
 *
 * Why: Medusa's File Module providers differ in what "private" means. The
 * local provider of 2.21.2 writes private files into `static/`, which Medusa
 * serves to anyone without authentication; an S3 bucket may be misconfigured.
 * Whatever the provider exposes, a sealed file is noise without its key, and
 * the key only leaves the database inside the admin image proxy. So a card
 * scan can only be seen through an admin session, on every provider.
 *
 * The scan id is authenticated data: a sealed file moved onto another evidence
 * row does not open there.
 *
 * Layout: "SSE1" | iv (12 bytes) | tag (16 bytes) | ciphertext.
 */
const MAGIC = Buffer.from("SSE1", "ascii")
const IV_BYTES = 12
const TAG_BYTES = 16
const KEY_BYTES = 32
const HEADER_BYTES = MAGIC.length + IV_BYTES + TAG_BYTES

export type SealedEvidence = {
  /** What goes to the file provider. */
  sealed: Buffer
  /** What stays in our database (base64url of 32 random bytes). */
  key: string
}

/** Seals an image for the archive under a fresh key. */
export function sealEvidence(plain: Buffer, scanId: string): SealedEvidence {
  const key = randomBytes(KEY_BYTES)
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(aad(scanId))
  const body = Buffer.concat([cipher.update(plain), cipher.final()])
  return { sealed: Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]), key: key.toString("base64url") }
}

/** Thrown when a sealed file is not ours, was altered, or belongs to another scan. */
export class SealedEvidenceError extends Error {
  override name = "SealedEvidenceError"
}

/**
 * Opens a sealed archive. Verifies it whole before returning anything, so a
 * tampered file never sends a single byte.
 */
export function openEvidence(sealed: Buffer, key: string, scanId: string): Buffer {
  const rawKey = Buffer.from(key, "base64url")
  if (rawKey.length !== KEY_BYTES) {
    throw new SealedEvidenceError("the archive key is malformed")
  }
  if (sealed.length < HEADER_BYTES || !sealed.subarray(0, MAGIC.length).equals(MAGIC)) {
    throw new SealedEvidenceError("the archived file is not a sealed evidence image")
  }
  const iv = sealed.subarray(MAGIC.length, MAGIC.length + IV_BYTES)
  const tag = sealed.subarray(MAGIC.length + IV_BYTES, HEADER_BYTES)
  const decipher = createDecipheriv("aes-256-gcm", rawKey, iv)
  decipher.setAAD(aad(scanId))
  decipher.setAuthTag(tag)
  try {
    return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()])
  } catch {
    throw new SealedEvidenceError("the archived file does not open with its key (altered, or another scan's)")
  }
}

/**
 * A file name that says nothing: not the scan id, not a time. Providers add
 * their own prefix; the name alone can never be guessed from what an admin
 * or a shopper knows.
 */
export function sealedEvidenceFilename(): string {
  return `servicescan-evidence-${randomBytes(24).toString("hex")}.bin`
}

function aad(scanId: string): Buffer {
  return Buffer.from(`servicescan-evidence:${scanId.toLowerCase()}`, "utf8")
}
