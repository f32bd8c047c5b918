import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import { isKeyringValue, Keyring, sealedKeyId } from "./keyring"

/**
 * Card evidence at rest: archived scan images and evidence packs are sealed
 * (AES-256-GCM) before they reach a file provider, each file under a key of
 * its own; that key is stored in our database only wrapped under the
 * key-encrypting key (KEK) of the module's `evidenceKey` option (a
 * {@link Keyring}).
 *
 * Why: Medusa's File Module providers differ in what "private" means. The
 * local provider of 2.21.2 writes private files into `static/`, which Medusa
 * serves to anyone without authentication; an S3 bucket may be misconfigured.
 * Whatever the provider exposes, a sealed file is noise without its key; the
 * database holds that key wrapped, noise without the KEK; and the KEK lives
 * in the configuration only. So neither the File Module's storage nor the
 * database alone (nor both together) opens a card scan or a pack: only the
 * server, inside the admin routes and the step that uploads a pack.
 *
 * What a file belongs to is authenticated data, in the file and in its
 * wrapped key: a file or a key moved onto another row does not open there.
 *
 * File layout: "SSE1" | iv (12 bytes) | tag (16 bytes) | ciphertext.
 * Stored key: a keyring value (`k1.<kek id>.<check>.<...>`, see keyring.ts).
 * Earlier versions stored it in clear (base64url of 32 bytes): that still
 * opens, and the migration script and the re-seal command wrap it.
 */
const MAGIC = Buffer.from("SSE1", "ascii")
const IV_BYTES = 12
const TAG_BYTES = 16
const KEY_BYTES = 32
const HEADER_BYTES = MAGIC.length + IV_BYTES + TAG_BYTES
const CLEAR_KEY = /^[A-Za-z0-9_-]{43}$/

/** What a sealed file belongs to. */
export type EvidenceBinding =
  /** An archived card-scan image, by scan id. */
  | { kind: "scan-image"; scanId: string }
  /** A processor case's evidence pack, by the dispute case row's id. */
  | { kind: "evidence-pack"; disputeCaseId: string }

export type SealedEvidence = {
  /** What goes to the file provider. */
  sealed: Buffer
  /** What stays in our database: the file's key, wrapped under the KEK. */
  key: string
}

/** Thrown when a sealed file is not ours, was altered, belongs elsewhere, or its key does not unwrap. */
export class SealedEvidenceError extends Error {
  override name = "SealedEvidenceError"
}

/** Thrown when something must be sealed and the module has no `evidenceKey`. */
export class EvidenceKeyMissingError extends SealedEvidenceError {
  override name = "EvidenceKeyMissingError"
  constructor() {
    super(
      "The servicescan module has no evidenceKey option: card evidence is not stored without a key-encrypting key (README: Evidence at rest)"
    )
  }
}

/**
 * Seals and opens card evidence under the module's KEK. Without a KEK it
 * still opens files whose key was stored in clear by an earlier version, and
 * refuses to seal anything new.
 */
export class EvidenceVault {
  constructor(private readonly kek_: Keyring | null) {}

  /** Whether a KEK is configured. */
  get configured(): boolean {
    return this.kek_ !== null
  }

  /** The id of the KEK that wraps new keys, or null without one (ids are not secret). */
  get currentKeyId(): string | null {
    return this.kek_?.currentKeyId ?? null
  }

  /** Seals a file under a fresh key, and wraps that key. @throws EvidenceKeyMissingError without a KEK. */
  seal(plain: Buffer, binding: EvidenceBinding): SealedEvidence {
    const kek = this.requireKek()
    const key = randomBytes(KEY_BYTES)
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv("aes-256-gcm", key, iv)
    cipher.setAAD(fileAad(binding))
    const body = Buffer.concat([cipher.update(plain), cipher.final()])
    return { sealed: Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]), key: kek.seal(key, keyContext(binding)) }
  }

  /**
   * Opens a sealed file with its stored key. Verifies it whole before
   * returning anything, so a tampered file never sends a single byte.
   * @throws SealedEvidenceError when the key does not unwrap or the file does not open.
   */
  open(sealed: Buffer, storedKey: string, binding: EvidenceBinding): Buffer {
    const key = this.unwrap(storedKey, binding)
    if (sealed.length < HEADER_BYTES || !sealed.subarray(0, MAGIC.length).equals(MAGIC)) {
      throw new SealedEvidenceError("the stored file is not sealed evidence")
    }
    const iv = sealed.subarray(MAGIC.length, MAGIC.length + IV_BYTES)
    const tag = sealed.subarray(MAGIC.length + IV_BYTES, HEADER_BYTES)
    const decipher = createDecipheriv("aes-256-gcm", key, iv)
    decipher.setAAD(fileAad(binding))
    decipher.setAuthTag(tag)
    try {
      return Buffer.concat([decipher.update(sealed.subarray(HEADER_BYTES)), decipher.final()])
    } catch {
      throw new SealedEvidenceError("the stored file does not open with its key (altered, or another file's)")
    }
  }

  /**
   * The stored key wrapped under the newest KEK, or null when it already is.
   * Only the key changes: the file stays as it is. A key stored in clear by
   * an earlier version is wrapped.
   * @throws EvidenceKeyMissingError without a KEK; SealedEvidenceError when the key does not unwrap.
   */
  rewrap(storedKey: string, binding: EvidenceBinding): string | null {
    const kek = this.requireKek()
    if (kek.isCurrent(storedKey)) {
      return null
    }
    return kek.seal(this.unwrap(storedKey, binding), keyContext(binding))
  }

  /** Whether a stored key is not (yet) wrapped under the newest KEK: in clear, or under an older one. */
  needsRewrap(storedKey: string): boolean {
    return !this.kek_?.isCurrent(storedKey)
  }

  private unwrap(storedKey: string, binding: EvidenceBinding): Buffer {
    if (CLEAR_KEY.test(storedKey)) {
      // Stored in clear by an earlier version: it still opens, until the migration wraps it.
      return Buffer.from(storedKey, "base64url")
    }
    if (!isKeyringValue(storedKey)) {
      throw new SealedEvidenceError("the stored key is malformed")
    }
    if (!this.kek_) {
      throw new EvidenceKeyMissingError()
    }
    const opened = this.kek_.open(storedKey, keyContext(binding))
    if (!opened.ok) {
      throw new SealedEvidenceError(
        opened.reason === "unknown-key"
          ? `the file's key is wrapped under evidence key "${sealedKeyId(storedKey)}", which evidenceKey no longer holds`
          : "the file's key does not unwrap (altered, or another file's)"
      )
    }
    if (opened.plain.length !== KEY_BYTES) {
      throw new SealedEvidenceError("the stored key is malformed")
    }
    return opened.plain
  }

  private requireKek(): Keyring {
    if (!this.kek_) {
      throw new EvidenceKeyMissingError()
    }
    return this.kek_
  }
}

/** The KEK ring's purpose: keys derived from an `evidenceKey` secret serve nothing else. */
export const EVIDENCE_KEK_PURPOSE = "servicescan evidence: key-encrypting key v1"

/**
 * A file name that says nothing: not the scan id, not the case, not a time.
 * Providers add their own prefix; the name alone can never be guessed from
 * what an admin or a shopper knows.
 */
export function sealedEvidenceFilename(): string {
  return `servicescan-evidence-${randomBytes(24).toString("hex")}.bin`
}

function fileAad(binding: EvidenceBinding): Buffer {
  return Buffer.from(bindingLabel(binding), "utf8")
}

function keyContext(binding: EvidenceBinding): string {
  return `evidence-key|${bindingLabel(binding)}`
}

function bindingLabel(binding: EvidenceBinding): string {
  // The scan image's label is the one files were sealed with before packs were sealed too.
  return binding.kind === "scan-image"
    ? `servicescan-evidence:${binding.scanId.toLowerCase()}`
    : `servicescan-evidence-pack:${binding.disputeCaseId}`
}
