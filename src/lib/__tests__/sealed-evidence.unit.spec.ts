import { randomBytes } from "node:crypto"
import { openEvidence, sealedEvidenceFilename, SealedEvidenceError, sealEvidence } from "../sealed-evidence"

const SCAN = "9b2f7c1e-3d4a-4b5c-8d6e-7f8091a2b3c4"
const OTHER_SCAN = "1c3e7c1e-3d4a-4b5c-8d6e-7f8091a2b3c4"
// A JPEG's start of image and JFIF marker: what must never be readable in the sealed file.
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]), randomBytes(2048)])

describe("sealed evidence", () => {
  it("round-trips, and the sealed bytes carry nothing of the image", () => {
    const { sealed, key } = sealEvidence(JPEG, SCAN)
    expect(Buffer.from(key, "base64url")).toHaveLength(32)
    expect(sealed.subarray(0, 4).toString("ascii")).toBe("SSE1")
    expect(sealed.includes(JPEG.subarray(0, 10))).toBe(false)
    expect(sealed.includes(JPEG.subarray(100, 132))).toBe(false)
    expect(openEvidence(sealed, key, SCAN)).toEqual(JPEG)
    // Scan ids are compared as the service does: case-insensitively.
    expect(openEvidence(sealed, key, SCAN.toUpperCase())).toEqual(JPEG)
  })

  it("uses a fresh key and iv each time", () => {
    const a = sealEvidence(JPEG, SCAN)
    const b = sealEvidence(JPEG, SCAN)
    expect(a.key).not.toBe(b.key)
    expect(a.sealed.equals(b.sealed)).toBe(false)
  })

  it("refuses a wrong key, another scan, a flipped bit, a truncated or foreign file", () => {
    const { sealed, key } = sealEvidence(JPEG, SCAN)
    const other = sealEvidence(JPEG, SCAN)
    expect(() => openEvidence(sealed, other.key, SCAN)).toThrow(SealedEvidenceError)
    expect(() => openEvidence(sealed, key, OTHER_SCAN)).toThrow(SealedEvidenceError)
    const flipped = Buffer.from(sealed)
    flipped[flipped.length - 1] ^= 1
    expect(() => openEvidence(flipped, key, SCAN)).toThrow(SealedEvidenceError)
    expect(() => openEvidence(sealed.subarray(0, 20), key, SCAN)).toThrow(SealedEvidenceError)
    expect(() => openEvidence(JPEG, key, SCAN)).toThrow(/not a sealed evidence image/)
    expect(() => openEvidence(sealed, "short", SCAN)).toThrow(/malformed/)
  })

  it("names files with nothing guessable in them", () => {
    const a = sealedEvidenceFilename()
    expect(a).toMatch(/^servicescan-evidence-[0-9a-f]{48}\.bin$/)
    expect(sealedEvidenceFilename()).not.toBe(a)
  })
})
