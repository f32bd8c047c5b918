import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  REASON_CODE_TABLE,
  REASON_FAMILIES,
  REASON_FAMILY_LABELS,
  reasonCodeTableMarkdown,
  reasonFamilyOf,
  type ReasonFamily,
} from "../reason-family"

const NETWORK_CARD_TYPE = { visa: "VI", mastercard: "MC", amex: "AX", discover: "DI" } as const

describe("reason families", () => {
  it.each(REASON_CODE_TABLE.map((row) => [row.network, row.code, row.family] as const))(
    "%s %s is %s, with or without the card type",
    (network, code, family) => {
      expect(reasonFamilyOf(code, NETWORK_CARD_TYPE[network])).toBe(family)
      expect(reasonFamilyOf(code)).toBe(family)
      expect(reasonFamilyOf(` ${code.toLowerCase()} `, null)).toBe(family)
    }
  )

  it("maps the codes the issue names to the family that wins them", () => {
    const expected: [string, string, ReasonFamily][] = [
      ["10.4", "VI", "fraud"],
      ["13.1", "VI", "not_received"],
      ["13.3", "VI", "not_as_described"],
      ["13.6", "VI", "credit_not_processed"],
      ["12.6.1", "VI", "credit_not_processed"],
      ["4837", "MC", "fraud"],
      ["4855", "MC", "not_received"],
      ["4860", "MC", "credit_not_processed"],
      ["F29", "AX", "fraud"],
      ["C08", "AX", "not_received"],
      ["C31", "AX", "not_as_described"],
      ["P08", "AX", "credit_not_processed"],
      ["UA02", "DI", "fraud"],
      ["RG", "DI", "not_received"],
      ["RM", "DI", "not_as_described"],
      ["DP", "DI", "credit_not_processed"],
    ]
    for (const [code, cardType, family] of expected) expect([code, reasonFamilyOf(code, cardType)]).toEqual([code, family])
  })

  it("answers other for an unknown, empty or absent code", () => {
    for (const code of ["99.9", "4999", "Z01", "13", "13.1.1", "", "   ", null, undefined]) {
      expect(reasonFamilyOf(code, "VI")).toBe("other")
      expect(reasonFamilyOf(code)).toBe("other")
    }
  })

  it("finds a listed code even when the card type is unknown or names another network", () => {
    expect(reasonFamilyOf("13.1", "JCB")).toBe("not_received")
    expect(reasonFamilyOf("4855", "VI")).toBe("not_received")
  })

  it("lists each code once per network, and every family has a label and at least one code", () => {
    const keys = REASON_CODE_TABLE.map((row) => `${row.network}:${row.code}`)
    expect(new Set(keys).size).toBe(keys.length)
    // Codes do not collide across networks, which lets a code be found without its card type.
    const codes = REASON_CODE_TABLE.map((row) => row.code)
    expect(new Set(codes).size).toBe(codes.length)
    for (const family of REASON_FAMILIES) {
      expect(REASON_FAMILY_LABELS[family]).toBeTruthy()
      if (family !== "other") expect(REASON_CODE_TABLE.some((row) => row.family === family)).toBe(true)
    }
  })

  it("is the table docs/disputes.md shows", () => {
    const doc = readFileSync(join(__dirname, "../../../docs/disputes.md"), "utf8")
    const start = doc.indexOf("<!-- reason-families:start -->")
    const end = doc.indexOf("<!-- reason-families:end -->")
    expect(start).toBeGreaterThan(-1)
    expect(end).toBeGreaterThan(start)
    expect(doc.slice(start + "<!-- reason-families:start -->".length, end).trim()).toBe(reasonCodeTableMarkdown())
  })
})
