import fc from "fast-check"
import { PDFDocument, StandardFonts } from "pdf-lib"
import { EVIDENCE_PACK_CONTENT_TYPE, buildEvidencePack, evidencePackFileName } from ".."
import { allocate } from "../build"
import { cardLabel } from "../document"
import { formatBytes, formatTimestamp, toEncodable } from "../text"
import { TWO_MB, invalidScan, makeInput, pdfText } from "./fixtures"

let winAnsi: Set<number>
let canEncode: (codePoint: number) => boolean

beforeAll(async () => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  winAnsi = new Set(font.getCharacterSet())
  canEncode = (codePoint) => winAnsi.has(codePoint)
})

describe("toEncodable", () => {
  it("keeps what the standard fonts can draw, accents and typographic quotes included", () => {
    expect(toEncodable("Zoë Ångström – “Café” €12 ½", canEncode)).toBe("Zoë Ångström – “Café” €12 ½")
  })

  it("transliterates letters the fonts lack and replaces what has no reading", () => {
    expect(toEncodable("Łukasz Wałęsa", canEncode)).toBe("Lukasz Walesa")
    expect(toEncodable("Şişli, İstanbul", canEncode)).toBe("Sisli, Istanbul")
    expect(toEncodable("ﬁle Ｆｕｌｌ", canEncode)).toBe("file Full")
    expect(toEncodable("山田 太郎 🎉", canEncode)).toBe("?? ?? ?")
    expect(toEncodable("Дмитрий", canEncode)).toBe("???????")
    // Spacing accents decompose to a space and a mark: no stray spaces come of them.
    expect(toEncodable("a˘b ˝", canEncode)).toBe("a?b ?")
    expect(toEncodable("⅓ ⑴", canEncode)).toBe("1/3 (1)")
  })

  it("turns line breaks and tabs into single spaces and drops invisible characters", () => {
    expect(toEncodable("  12 Orchard\r\nLane\t\tApt\u00a04 ", canEncode)).toBe("12 Orchard Lane Apt 4")
    expect(toEncodable("a\u200db\ufeffc\u0000d\u0007e", canEncode)).toBe("abcde")
  })

  it("survives lone surrogates", () => {
    expect(toEncodable("a\ud800b\udc00c", canEncode)).toBe("a?b?c")
  })

  it("always returns text the font encodes, for any string", () => {
    const anyText = fc.oneof(
      fc.string({ unit: "binary" }),
      fc.string({ unit: "grapheme" }),
      fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) })
    )
    fc.assert(
      fc.property(anyText, (text) => {
        const encodable = toEncodable(text, canEncode)
        for (const char of encodable) expect(winAnsi.has(char.codePointAt(0) ?? -1)).toBe(true)
        expect(encodable).toBe(encodable.trim())
        expect(encodable).not.toContain("  ")
      }),
      { numRuns: 200 }
    )
  })

  it("draws hostile text in a real pack, as PDF.js reads it back", async () => {
    const input = makeInput([invalidScan(1)])
    input.order = { ...input.order, customerName: "Zoë Łukasz\n山田 🎉\tO'Brien", email: "zoë@例え.jp" }
    const { pdf } = await buildEvidencePack(input, { maxBytes: TWO_MB })
    const { all } = pdfText(pdf)
    expect(all).toContain("Customer Zoë Lukasz ?? ? O'Brien")
    expect(all).toContain("Email zoë@??.jp")
  })
})

describe("formatting", () => {
  it("states sizes the way processors state their limits", () => {
    expect(formatBytes(2 * 1024 * 1024)).toBe("2 MB")
    expect(formatBytes(1_572_864)).toBe("1.5 MB")
    expect(formatBytes(500_000)).toBe("488 kB")
    expect(formatBytes(900)).toBe("900 bytes")
  })

  it("shows times in UTC, keeps bare dates, and shows what does not parse as given", () => {
    expect(formatTimestamp("2025-02-03T10:04:07-05:00")).toBe("2025-02-03 15:04:07 UTC")
    expect(formatTimestamp("2025-03-15")).toBe("2025-03-15")
    expect(formatTimestamp("yesterday-ish")).toBe("yesterday-ish")
    expect(formatTimestamp("  ")).toBeNull()
    expect(formatTimestamp(null)).toBeNull()
  })

  it("labels a card by its type and last four digits only", () => {
    expect(cardLabel("VI", "1111")).toBe("Visa (VI) ending in 1111")
    expect(cardLabel("MC", "5454545454545454")).toBe("Mastercard (MC) ending in 5454")
    expect(cardLabel("Maestro", null)).toBe("Maestro")
    expect(cardLabel(null, "12")).toBe("Card ending in 12")
    expect(cardLabel(null, null)).toBeNull()
  })
})

describe("evidencePackFileName", () => {
  it("names the pack after the case, safely", () => {
    expect(EVIDENCE_PACK_CONTENT_TYPE).toBe("application/pdf")
    expect(evidencePackFileName("216000001")).toBe("servicescan-evidence-216000001.pdf")
    expect(evidencePackFileName("CB-2025/03 #7")).toBe("servicescan-evidence-CB-2025-03-7.pdf")
    expect(evidencePackFileName("../../etc/passwd")).toBe("servicescan-evidence-etc-passwd.pdf")
    expect(evidencePackFileName("Čase 1")).toBe("servicescan-evidence-Case-1.pdf")
    expect(evidencePackFileName("")).toBe("servicescan-evidence-case.pdf")
    expect(evidencePackFileName("v1..2")).toBe("servicescan-evidence-v1.2.pdf")
    expect(evidencePackFileName("x".repeat(200))).toBe(`servicescan-evidence-${"x".repeat(64)}.pdf`)
  })

  it("gives a plain, bounded, stable name for any case id", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: "binary", maxLength: 300 }), fc.string({ unit: fc.constantFrom(".", "-", "_", "/", "a", "é"), maxLength: 80 })),
        (caseId) => {
        const name = evidencePackFileName(caseId)
        expect(name).toMatch(/^servicescan-evidence-[A-Za-z0-9_][A-Za-z0-9._-]{0,63}\.pdf$/)
        expect(name).not.toContain("..")
        expect(evidencePackFileName(caseId)).toBe(name)
        }
      ),
      { numRuns: 500 }
    )
  })
})

describe("allocate", () => {
  it("lets small images keep their size and splits the rest between the large ones", () => {
    expect(allocate([100, 1_000, 5_000], 3_000)).toEqual([100, 1_000, 1_900])
    expect(allocate([5_000, 5_000, 5_000], 3_000)).toEqual([1_000, 1_000, 1_000])
    expect(allocate([10, 20], 1_000)).toEqual([10, 20])
  })

  it("never hands out more than the budget, nor more than an image needs", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 10_000_000 }), { maxLength: 20 }), fc.integer({ min: 0, max: 20_000_000 }), (sizes, budget) => {
        const allowances = allocate(sizes, budget)
        expect(allowances.reduce((sum, value) => sum + value, 0)).toBeLessThanOrEqual(budget)
        allowances.forEach((allowance, index) => expect(allowance).toBeLessThanOrEqual(sizes[index]))
      })
    )
  })
})
