import { resolveModuleOptions } from "../../modules/servicescan/options"
import { parseServiceScanOptions } from "../../providers/servicescan/options"
import { DEFAULT_KEY_ID, Keyring, KeyringConfigurationError, KeyringOption, sealedKeyId } from "../keyring"

const PURPOSE = "keyring spec v1"
const S1 = "first-secret-0123456789abcdef-0123456789"
const S2 = "second-secret-0123456789abcdef-012345678"
const S3 = "third-secret-0123456789abcdef-0123456789"
const PLAIN = Buffer.from("a 32-byte file key, or a token..", "utf8")
const ring = (option: KeyringOption) => Keyring.from(option, PURPOSE)

/** Flips one bit of a sealed value's payload (after the key id and check). */
function tamper(sealed: string, at: number): string {
  const [format, id, check, payload] = sealed.split(".")
  const raw = Buffer.from(payload, "base64url")
  raw[at] ^= 1
  return [format, id, check, raw.toString("base64url")].join(".")
}

describe("keyring", () => {
  describe("wrap and unwrap", () => {
    it("round-trips under the newest key, with a fresh iv each time, and says nothing of the plain value", () => {
      const keys = ring([{ id: "2026-06", secret: S2 }, { id: "2025-11", secret: S1 }])
      const sealed = keys.seal(PLAIN, "scan:1")
      expect(sealed).toMatch(/^k1\.2026-06\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/)
      expect(Buffer.from(sealed.split(".")[3], "base64url").includes(PLAIN.subarray(0, 8))).toBe(false)
      expect(keys.seal(PLAIN, "scan:1")).not.toBe(sealed)
      expect(keys.open(sealed, "scan:1")).toEqual({ ok: true, plain: PLAIN, keyId: "2026-06" })
      expect(keys.isCurrent(sealed)).toBe(true)
      expect(sealedKeyId(sealed)).toBe("2026-06")
    })

    it("a single string is a one-key ring whose id is the default", () => {
      const keys = ring(S1)
      expect(keys.keyIds).toEqual([DEFAULT_KEY_ID])
      const sealed = keys.seal(PLAIN, "ctx")
      expect(sealed.startsWith(`k1.${DEFAULT_KEY_ID}.`)).toBe(true)
      expect(keys.open(sealed, "ctx")).toMatchObject({ ok: true, keyId: DEFAULT_KEY_ID })
    })

    it("never holds the configured secrets, only keys derived for its purpose", () => {
      const keys = ring([{ id: "a", secret: S1 }])
      expect(JSON.stringify(keys)).not.toContain(S1)
      expect(keys.keys[0].key.toString("latin1")).not.toContain(S1.slice(0, 8))
      // The same secret for another purpose yields an unrelated key: what one seals, the other cannot open.
      const other = Keyring.from([{ id: "a", secret: S1 }], "another purpose")
      expect(other.keys[0].key.equals(keys.keys[0].key)).toBe(false)
      expect(other.open(keys.seal(PLAIN, "ctx"), "ctx")).toEqual({ ok: false, reason: "unknown-key" })
    })
  })

  describe("key ids and rotation", () => {
    const before = ring([{ id: "2025-11", secret: S1 }])
    const rotated = ring([{ id: "2026-06", secret: S2 }, { id: "2025-11", secret: S1 }])
    const after = ring([{ id: "2026-06", secret: S2 }])

    it("opens what an older key sealed, seals with the newest, and tells which values still need it", () => {
      const old = before.seal(PLAIN, "ctx")
      expect(rotated.open(old, "ctx")).toEqual({ ok: true, plain: PLAIN, keyId: "2025-11" })
      expect(rotated.isCurrent(old)).toBe(false)
      const resealed = rotated.seal(PLAIN, "ctx")
      expect(sealedKeyId(resealed)).toBe("2026-06")
      expect(after.open(resealed, "ctx")).toMatchObject({ ok: true, keyId: "2026-06" })
    })

    it("once a key is removed, its values report the missing key instead of opening", () => {
      expect(after.open(before.seal(PLAIN, "ctx"), "ctx")).toEqual({ ok: false, reason: "unknown-key" })
    })

    it("finds a key by its check value, so a renamed id still opens its values", () => {
      const renamed = ring([{ id: "2026-06", secret: S2 }, { id: "old", secret: S1 }])
      expect(renamed.open(before.seal(PLAIN, "ctx"), "ctx")).toMatchObject({ ok: true, keyId: "old" })
    })

    it("a secret replaced under the same id is a missing key, not a tampered value", () => {
      const replaced = ring([{ id: "2025-11", secret: S3 }])
      expect(replaced.open(before.seal(PLAIN, "ctx"), "ctx")).toEqual({ ok: false, reason: "unknown-key" })
      expect(replaced.isCurrent(before.seal(PLAIN, "ctx"))).toBe(false)
    })
  })

  describe("tamper and wrong key", () => {
    const keys = ring([{ id: "k2", secret: S2 }, { id: "k1", secret: S1 }])
    const sealed = keys.seal(PLAIN, "customer:1|card:1")

    it("refuses a flipped bit anywhere in the payload, and another context", () => {
      for (const at of [0, 11, 12, 20, Buffer.from(sealed.split(".")[3], "base64url").length - 1]) {
        expect(keys.open(tamper(sealed, at), "customer:1|card:1")).toEqual({ ok: false, reason: "does-not-open" })
      }
      expect(keys.open(sealed, "customer:2|card:1")).toEqual({ ok: false, reason: "does-not-open" })
    })

    it("refuses a value relabelled with another key's id and check (both are authenticated)", () => {
      const other = keys.keys[1]
      const [format, , , payload] = sealed.split(".")
      expect(keys.open([format, other.id, other.check, payload].join("."), "customer:1|card:1")).toEqual({ ok: false, reason: "does-not-open" })
      const [, id, check] = sealed.split(".")
      expect(keys.open([format, id.replace("k2", "k9"), check, payload].join("."), "customer:1|card:1")).toEqual({ ok: false, reason: "does-not-open" })
    })

    it("a ring without the sealing key opens nothing", () => {
      expect(ring([{ id: "k2", secret: S3 }]).open(sealed, "customer:1|card:1")).toEqual({ ok: false, reason: "unknown-key" })
    })

    it("calls anything else malformed", () => {
      for (const value of ["", "k1", "k1.k2", "k1.k2.abcdefgh", `k1.k2.${sealed.split(".")[2]}.AAAA`, "v1.AAAA", "k2.k2.abcdefgh.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", `${sealed}.x`, "k1.bad id.abcdefgh.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
        expect(keys.open(value, "customer:1|card:1")).toEqual({ ok: false, reason: "malformed" })
      }
      expect(sealedKeyId("v1.AAAA")).toBeUndefined()
    })
  })

  describe("configuration", () => {
    const problems = (option: unknown) => {
      try {
        Keyring.from(option as KeyringOption, PURPOSE)
        return ""
      } catch (error) {
        expect(error).toBeInstanceOf(KeyringConfigurationError)
        return (error as Error).message
      }
    }

    it("refuses short secrets, duplicate ids and secrets, bad ids, empty and oversized rings, never echoing a secret", () => {
      expect(problems("short")).toMatch(/at least 32 characters/)
      expect(problems([])).toMatch(/at least one key/)
      expect(problems([{ id: "a", secret: S1 }, { id: "a", secret: S2 }])).toMatch(/^1\.id: duplicates the id of key 0$/)
      expect(problems([{ id: "a", secret: S1 }, { id: "b", secret: S1 }])).toMatch(/^1\.secret: is the same secret as key 0$/)
      expect(problems([{ id: "a b", secret: S1 }])).toMatch(/^0\.id: must be 1-32 letters/)
      expect(problems([{ id: "a", secret: S1, extra: 1 }])).toMatch(/unsupported keys: extra/)
      expect(problems(Array.from({ length: 17 }, (_, i) => ({ id: `k${i}`, secret: `${S1}-${i}` })))).toMatch(/at most 16/)
      expect(problems(42)).toMatch(/must be a string/)
      for (const message of [problems([{ id: "a", secret: S1 }, { id: "b", secret: S1 }]), problems([{ id: "a", secret: "x".repeat(31) }])]) {
        expect(message).not.toContain(S1)
        expect(message).not.toContain("x".repeat(31))
      }
    })

    it("fails the module at boot naming evidenceKey and the entry at fault", () => {
      const base = { baseUrl: "http://127.0.0.1:4010" }
      expect(() => resolveModuleOptions({ ...base, evidenceKey: "too short" })).toThrow(/evidenceKey: must be at least 32 characters/)
      expect(() => resolveModuleOptions({ ...base, evidenceKey: [{ id: "k", secret: S1 }, { id: "k", secret: S2 }] })).toThrow(
        /evidenceKey\.1\.id: duplicates the id of key 0/
      )
      expect(() => resolveModuleOptions({ ...base, evidenceKey: [{ id: "k", secret: S1 }, { id: "k", secret: S2 }] })).not.toThrow(S1)
      expect(resolveModuleOptions({ ...base, evidenceKey: [{ id: "k2", secret: S2 }, { id: "k1", secret: S1 }] }).evidenceKey).toHaveLength(2)
      expect(resolveModuleOptions(base).evidenceKey).toBeUndefined()
    })

    it("fails the provider at boot naming savedCards.secret, and requires a fingerprint secret beside a ring", () => {
      const base = {
        checkoutUrl: "http://127.0.0.1:4010",
        clientScriptUrl: "http://127.0.0.1:4010/client.js",
        shareableKey: "pk",
        paymentTokenApiKey: "ptk",
        gateway: { type: "worldpay", url: "http://127.0.0.1:4010/cnp/online", merchantId: "m", user: "u", password: "p" },
      }
      const withCards = (savedCards: unknown) => () => parseServiceScanOptions({ ...base, savedCards })
      expect(withCards({ secret: "short" })).toThrow(/savedCards\.secret: must be at least 32 characters/)
      expect(withCards({ secret: [{ id: "k", secret: S1 }, { id: "k", secret: S2 }], fingerprintSecret: S1 })).toThrow(
        /savedCards\.secret\.1\.id: duplicates the id of key 0/
      )
      expect(withCards({ secret: [{ id: "k2", secret: S2 }, { id: "k1", secret: S1 }] })).toThrow(/savedCards\.fingerprintSecret: is required/)
      expect(withCards({ secret: S1, fingerprintSecret: "short" })).toThrow(/savedCards\.fingerprintSecret: must be at least 32/)
      // A single secret keys the fingerprints too, as before keyrings.
      expect(parseServiceScanOptions({ ...base, savedCards: { secret: S1 } }).savedCards).toMatchObject({ secret: S1, fingerprintSecret: S1 })
      expect(parseServiceScanOptions({ ...base, savedCards: { secret: [{ id: "k2", secret: S2 }], fingerprintSecret: S1 } }).savedCards).toMatchObject({
        fingerprintSecret: S1,
      })
    })
  })
})
