import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto"
import { z } from "@medusajs/framework/zod"

/**
 * A keyring: the secrets a store owner configures for one purpose (the
 * evidence key-encrypting key, the saved-cards secret), each with an id.
 * The first key is the newest: everything is sealed with it. The others only
 * open what was sealed before a rotation, until the re-seal command
 * (src/scripts/servicescan-reseal.ts) has moved it to the newest key and they
 * can be removed.
 *
 * A sealed value names the key that sealed it, by id and by a check value
 * of the key itself (so a secret replaced under the same id, or a key whose
 * id was changed, is told apart from an altered value), and is bound to its
 * context (what it belongs to: a scan, a case, a customer's card). All of it
 * is authenticated: a value moved elsewhere, or relabelled, does not open.
 *
 * Layout: `k1.<key id>.<check>.<base64url(iv 12 | ciphertext | tag 16)>`,
 * AES-256-GCM under HKDF-SHA256(secret, info = the ring's purpose), AAD
 * `k1|<key id>|<check>|<context>`; `<check>` is the first 6 bytes of
 * HMAC-SHA256(key, "servicescan keyring: check"), base64url.
 */

/** One configured key. `secret`: at least {@link MIN_SECRET_CHARS} characters, e.g. `openssl rand -base64 48`. */
export type KeyringEntry = { id: string; secret: string }

/** What a store owner writes: one secret (a one-key ring, id {@link DEFAULT_KEY_ID}), or keys with ids, newest first. */
export type KeyringOption = string | readonly KeyringEntry[]

/** The id of the key a single string secret stands for. */
export const DEFAULT_KEY_ID = "default"
/** Shortest secret accepted: 32 characters of `openssl rand -base64 48` carry far more than 256 bits. */
export const MIN_SECRET_CHARS = 32
/** Most keys a ring holds (a rotation needs two; more only slows a failed open). */
export const MAX_KEYS = 16

const FORMAT = "k1"
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/
const IV_BYTES = 12
const TAG_BYTES = 16

/** One derived key of a ring, with its check value. */
export type RingKey = { id: string; key: Buffer; check: string }

/** Why a sealed value did not open (none of them may tell a caller more). */
export type OpenFailure =
  /** Not a keyring value at all (or cut short). */
  | "malformed"
  /** Sealed under a key this ring does not hold (removed, or its secret replaced): it may open again once the key is back. */
  | "unknown-key"
  /** Sealed under a key this ring holds, and it does not open: altered, or moved to another context. */
  | "does-not-open"

export type OpenResult = { ok: true; plain: Buffer; keyId: string } | { ok: false; reason: OpenFailure }

/** Keys for one purpose, newest first. Holds derived keys only, never the configured secrets. */
export class Keyring {
  private constructor(
    private readonly keys_: readonly RingKey[],
    /** What the keys are for: part of their derivation, so one secret used twice yields unrelated keys. */
    readonly purpose: string
  ) {}

  /**
   * Builds a ring from an option already validated by {@link keyringOptionSchema}.
   * @throws KeyringConfigurationError on an invalid option (no message echoes a secret).
   */
  static from(option: KeyringOption, purpose: string): Keyring {
    const problems = keyringProblems(option)
    if (problems.length) {
      throw new KeyringConfigurationError(problems.map((p) => `${p.path.join(".") || "key"}: ${p.message}`).join("; "))
    }
    const entries = normalizeKeyring(option)
    return new Keyring(
      entries.map((entry) => {
        const key = deriveKey(entry.secret, purpose)
        return { id: entry.id, key, check: keyCheck(key) }
      }),
      purpose
    )
  }

  /** The id of the key that seals. */
  get currentKeyId(): string {
    return this.keys_[0].id
  }

  /** Every key id, newest first (safe to show: ids are not secret). */
  get keyIds(): string[] {
    return this.keys_.map((entry) => entry.id)
  }

  /** Every key, newest first: for formats older than key ids, which are opened by trying each. */
  get keys(): readonly RingKey[] {
    return this.keys_
  }

  /** Seals `plain` with the newest key, bound to `context`. */
  seal(plain: Buffer, context: string): string {
    const { id, key, check } = this.keys_[0]
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv("aes-256-gcm", key, iv)
    cipher.setAAD(aad(id, check, context))
    const body = Buffer.concat([cipher.update(plain), cipher.final()])
    return `${FORMAT}.${id}.${check}.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")}`
  }

  /**
   * Opens a sealed value with the key that sealed it, found by its check
   * value (so a key whose id was changed in the configuration still opens
   * its data).
   */
  open(sealed: string, context: string): OpenResult {
    const parsed = parseSealed(sealed)
    if (!parsed) {
      return { ok: false, reason: "malformed" }
    }
    const entry = this.keys_.find((candidate) => candidate.check === parsed.check)
    if (!entry) {
      return { ok: false, reason: "unknown-key" }
    }
    const plain = decrypt(entry.key, parsed, context)
    return plain ? { ok: true, plain, keyId: entry.id } : { ok: false, reason: "does-not-open" }
  }

  /** Whether `sealed` is a keyring value sealed under the newest key (nothing for the re-seal command to do). */
  isCurrent(sealed: string): boolean {
    return parseSealed(sealed)?.check === this.keys_[0].check
  }
}

/** The key id a sealed value names, or undefined when it is not a keyring value. */
export function sealedKeyId(sealed: string): string | undefined {
  return parseSealed(sealed)?.keyId
}

/** Whether a string has the shape of a keyring value (`k1.<id>.<check>.<payload>`). */
export function isKeyringValue(value: string): boolean {
  return parseSealed(value) !== undefined
}

/** A keyring option that cannot be used; the message names the entry, never a secret. */
export class KeyringConfigurationError extends Error {
  override name = "KeyringConfigurationError"
}

/** HKDF-SHA256 of the secret, one key per purpose. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), purpose, 32))
}

/** The option as a list of keys, newest first. */
export function normalizeKeyring(option: KeyringOption): readonly KeyringEntry[] {
  return typeof option === "string" ? [{ id: DEFAULT_KEY_ID, secret: option }] : option
}

/**
 * The zod schema of a keyring option: a secret of at least 32 characters, or
 * a list (newest first) of `{ id, secret }` with distinct ids and secrets.
 * Checked by hand, like the gateway options, so an error names the entry
 * (`evidenceKey.1.id: duplicates the id of key 0`) instead of a union's
 * "Invalid input". Messages never echo a secret.
 */
export function keyringOptionSchema(description: string) {
  return z.unknown().transform((value, ctx): KeyringOption => {
    const problems = keyringProblems(value, description)
    for (const problem of problems) {
      ctx.issues.push({ code: "custom", message: problem.message, path: problem.path, input: undefined })
    }
    return problems.length ? z.NEVER : (value as KeyringOption)
  })
}

type Problem = { path: (string | number)[]; message: string }

function keyringProblems(value: unknown, description = "a secret"): Problem[] {
  const shape = `must be a string of at least ${MIN_SECRET_CHARS} characters (${description}) or a list of { id, secret }, newest first`
  if (typeof value === "string") {
    return value.length < MIN_SECRET_CHARS ? [{ path: [], message: `must be at least ${MIN_SECRET_CHARS} characters (${description})` }] : []
  }
  if (!Array.isArray(value)) {
    return [{ path: [], message: shape }]
  }
  if (value.length === 0) {
    return [{ path: [], message: `must hold at least one key (${description})` }]
  }
  if (value.length > MAX_KEYS) {
    return [{ path: [], message: `holds ${value.length} keys; at most ${MAX_KEYS} (remove keys the re-seal command has emptied)` }]
  }
  const problems: Problem[] = []
  const ids = new Map<string, number>()
  const secrets = new Map<string, number>()
  value.forEach((entry: unknown, index) => {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
      problems.push({ path: [index], message: "must be { id, secret }" })
      return
    }
    const unknownKeys = Object.keys(entry).filter((key) => key !== "id" && key !== "secret")
    if (unknownKeys.length) {
      problems.push({ path: [index], message: `has unsupported keys: ${unknownKeys.join(", ")} (supported: id, secret)` })
    }
    const { id, secret } = entry as { id?: unknown; secret?: unknown }
    if (typeof id !== "string" || !KEY_ID.test(id)) {
      problems.push({ path: [index, "id"], message: "must be 1-32 letters, digits, - or _ (e.g. \"2026-06\")" })
    } else if (ids.has(id)) {
      problems.push({ path: [index, "id"], message: `duplicates the id of key ${ids.get(id)}` })
    } else {
      ids.set(id, index)
    }
    if (typeof secret !== "string" || secret.length < MIN_SECRET_CHARS) {
      problems.push({ path: [index, "secret"], message: `must be a string of at least ${MIN_SECRET_CHARS} characters (${description})` })
    } else if (secrets.has(secret)) {
      problems.push({ path: [index, "secret"], message: `is the same secret as key ${secrets.get(secret)}` })
    } else {
      secrets.set(secret, index)
    }
  })
  return problems
}

type ParsedValue = { keyId: string; check: string; iv: Buffer; body: Buffer; tag: Buffer }

const CHECK = /^[A-Za-z0-9_-]{8}$/
const PAYLOAD = /^[A-Za-z0-9_-]+$/

function parseSealed(sealed: string): ParsedValue | undefined {
  const parts = sealed.split(".")
  if (parts.length !== 4 || parts[0] !== FORMAT || !KEY_ID.test(parts[1]) || !CHECK.test(parts[2]) || !PAYLOAD.test(parts[3])) {
    return undefined
  }
  const raw = Buffer.from(parts[3], "base64url")
  if (raw.length < IV_BYTES + TAG_BYTES + 1) {
    return undefined
  }
  return {
    keyId: parts[1],
    check: parts[2],
    iv: raw.subarray(0, IV_BYTES),
    body: raw.subarray(IV_BYTES, raw.length - TAG_BYTES),
    tag: raw.subarray(raw.length - TAG_BYTES),
  }
}

function decrypt(key: Buffer, value: ParsedValue, context: string): Buffer | undefined {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, value.iv)
    decipher.setAAD(aad(value.keyId, value.check, context))
    decipher.setAuthTag(value.tag)
    return Buffer.concat([decipher.update(value.body), decipher.final()])
  } catch {
    return undefined
  }
}

/** Tells keys apart without revealing them: 48 bits of an HMAC under the derived key. */
function keyCheck(key: Buffer): string {
  return createHmac("sha256", key).update("servicescan keyring: check").digest().subarray(0, 6).toString("base64url")
}

function aad(keyId: string, check: string, context: string): Buffer {
  return Buffer.from(`${FORMAT}|${keyId}|${check}|${context}`, "utf8")
}
