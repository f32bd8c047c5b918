import { createCipheriv, randomBytes } from "node:crypto"
import { Keyring, KeyringOption } from "../keyring"
import {
  EVIDENCE_KEK_PURPOSE,
  EvidenceBinding,
  EvidenceKeyMissingError,
  EvidenceVault,
  sealedEvidenceFilename,
  SealedEvidenceError,
} from "../sealed-evidence"

const SCAN = "9b2f7c1e-3d4a-4b5c-8d6e-7f8091a2b3c4"
const OTHER_SCAN = "1c3e7c1e-3d4a-4b5c-8d6e-7f8091a2b3c4"
const IMAGE: EvidenceBinding = { kind: "scan-image", scanId: SCAN }
const PACK: EvidenceBinding = { kind: "evidence-pack", disputeCaseId: "sscase_01" }
// A JPEG's start of image and JFIF marker: what must never be readable in the sealed file.
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]), randomBytes(2048)])
const PDF = Buffer.concat([Buffer.from("%PDF-1.7\n% shopper@example.com\n", "latin1"), randomBytes(1024)])

const OLD_SECRET = "evidence-kek-old-0123456789abcdef-0123456789"
const NEW_SECRET = "evidence-kek-new-0123456789abcdef-0123456789"
const ring = (option: KeyringOption) => Keyring.from(option, EVIDENCE_KEK_PURPOSE)
const oldVault = new EvidenceVault(ring([{ id: "2025", secret: OLD_SECRET }]))
const rotatedVault = new EvidenceVault(ring([{ id: "2026", secret: NEW_SECRET }, { id: "2025", secret: OLD_SECRET }]))
const newOnlyVault = new EvidenceVault(ring([{ id: "2026", secret: NEW_SECRET }]))

/** How files were sealed before keys were wrapped: the file's key stored in clear (base64url). */
function sealedTheOldWay(plain: Buffer, scanId: string): { sealed: Buffer; key: string } {
  const key = randomBytes(32)
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", key, iv)
  cipher.setAAD(Buffer.from(`servicescan-evidence:${scanId}`, "utf8"))
  const body = Buffer.concat([cipher.update(plain), cipher.final()])
  return { sealed: Buffer.concat([Buffer.from("SSE1"), iv, cipher.getAuthTag(), body]), key: key.toString("base64url") }
}

describe("sealed evidence", () => {
  it("round-trips images and packs, and neither the sealed bytes nor the stored key carry anything readable", () => {
    for (const [plain, binding] of [[JPEG, IMAGE], [PDF, PACK]] as const) {
      const { sealed, key } = oldVault.seal(plain, binding)
      expect(sealed.subarray(0, 4).toString("ascii")).toBe("SSE1")
      expect(sealed.includes(plain.subarray(0, 10))).toBe(false)
      expect(sealed.includes(plain.subarray(100, 132))).toBe(false)
      // The stored key is wrapped, and names the KEK that wraps it.
      expect(key).toMatch(/^k1\.2025\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/)
      expect(Buffer.from(key, "base64url")).not.toHaveLength(32)
      expect(oldVault.open(sealed, key, binding)).toEqual(plain)
    }
    const { sealed, key } = oldVault.seal(JPEG, IMAGE)
    // Scan ids are compared as the service does: case-insensitively.
    expect(oldVault.open(sealed, key, { kind: "scan-image", scanId: SCAN.toUpperCase() })).toEqual(JPEG)
  })

  it("uses a fresh key and iv each time", () => {
    const a = oldVault.seal(JPEG, IMAGE)
    const b = oldVault.seal(JPEG, IMAGE)
    expect(a.key).not.toBe(b.key)
    expect(a.sealed.equals(b.sealed)).toBe(false)
  })

  it("refuses another file's key, another scan or case, a flipped bit, a truncated or foreign file", () => {
    const { sealed, key } = oldVault.seal(JPEG, IMAGE)
    const other = oldVault.seal(JPEG, IMAGE)
    expect(() => oldVault.open(sealed, other.key, IMAGE)).toThrow(SealedEvidenceError)
    expect(() => oldVault.open(sealed, key, { kind: "scan-image", scanId: OTHER_SCAN })).toThrow(/does not unwrap/)
    expect(() => oldVault.open(sealed, key, PACK)).toThrow(SealedEvidenceError)
    const flipped = Buffer.from(sealed)
    flipped[flipped.length - 1] ^= 1
    expect(() => oldVault.open(flipped, key, IMAGE)).toThrow(/does not open/)
    expect(() => oldVault.open(sealed.subarray(0, 20), key, IMAGE)).toThrow(SealedEvidenceError)
    expect(() => oldVault.open(JPEG, key, IMAGE)).toThrow(/not sealed evidence/)
    expect(() => oldVault.open(sealed, "short", IMAGE)).toThrow(/malformed/)
    const pack = oldVault.seal(PDF, PACK)
    expect(() => oldVault.open(pack.sealed, pack.key, { kind: "evidence-pack", disputeCaseId: "sscase_02" })).toThrow(SealedEvidenceError)
  })

  it("after a rotation: old files still open, new ones are wrapped under the new key, and a rewrap frees the old key", () => {
    const old = oldVault.seal(JPEG, IMAGE)
    expect(rotatedVault.open(old.sealed, old.key, IMAGE)).toEqual(JPEG)
    expect(rotatedVault.needsRewrap(old.key)).toBe(true)
    expect(rotatedVault.seal(JPEG, IMAGE).key).toMatch(/^k1\.2026\./)

    const rewrapped = rotatedVault.rewrap(old.key, IMAGE) as string
    expect(rewrapped).toMatch(/^k1\.2026\./)
    expect(rotatedVault.rewrap(rewrapped, IMAGE)).toBeNull()
    expect(rotatedVault.needsRewrap(rewrapped)).toBe(false)
    // The file is the same; only its wrapped key changed. The old KEK is no longer needed.
    expect(newOnlyVault.open(old.sealed, rewrapped, IMAGE)).toEqual(JPEG)
    // Before the rewrap, the new-only ring names what is missing instead of opening it.
    expect(() => newOnlyVault.open(old.sealed, old.key, IMAGE)).toThrow(/evidence key "2025", which evidenceKey no longer holds/)
    // A key rewrapped for one scan does not open another's file.
    expect(() => rotatedVault.rewrap(old.key, { kind: "scan-image", scanId: OTHER_SCAN })).toThrow(SealedEvidenceError)
  })

  it("opens files whose key an earlier version stored in clear, with or without a KEK, and wraps that key", () => {
    const legacy = sealedTheOldWay(JPEG, SCAN)
    expect(new EvidenceVault(null).open(legacy.sealed, legacy.key, IMAGE)).toEqual(JPEG)
    expect(oldVault.open(legacy.sealed, legacy.key, IMAGE)).toEqual(JPEG)
    expect(oldVault.needsRewrap(legacy.key)).toBe(true)
    const wrapped = oldVault.rewrap(legacy.key, IMAGE) as string
    expect(wrapped).toMatch(/^k1\.2025\./)
    expect(wrapped).not.toContain(legacy.key)
    expect(oldVault.open(legacy.sealed, wrapped, IMAGE)).toEqual(JPEG)
  })

  it("seals nothing without a KEK, and says which option is missing", () => {
    const vault = new EvidenceVault(null)
    expect(vault.configured).toBe(false)
    expect(() => vault.seal(JPEG, IMAGE)).toThrow(EvidenceKeyMissingError)
    expect(() => vault.seal(JPEG, IMAGE)).toThrow(/evidenceKey/)
    const { sealed, key } = oldVault.seal(JPEG, IMAGE)
    expect(() => vault.open(sealed, key, IMAGE)).toThrow(EvidenceKeyMissingError)
  })

  it("names files with nothing guessable in them", () => {
    const a = sealedEvidenceFilename()
    expect(a).toMatch(/^servicescan-evidence-[0-9a-f]{48}\.bin$/)
    expect(sealedEvidenceFilename()).not.toBe(a)
  })
})
