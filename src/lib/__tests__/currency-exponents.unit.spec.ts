import { readFileSync } from "node:fs"
import { join } from "node:path"
import { currencyExponent, DEFAULT_CURRENCY_EXPONENT, ISO_4217_EXPONENTS } from "../currency-exponents"

describe("ISO 4217 exponents shared with the admin", () => {
  it.each([
    ["JPY", 0],
    ["jpy", 0],
    [" KRW ", 0],
    ["HUF", 2],
    ["IDR", 2],
    ["COP", 2],
    ["IQD", 3],
    ["kwd", 3],
    ["UYW", 4],
    ["XYZ", 2],
  ])("%j has exponent %i", (code, exponent) => {
    expect(currencyExponent(code)).toBe(exponent)
  })

  it("gives the default to malformed codes instead of throwing (the admin validates them itself)", () => {
    expect(currencyExponent("")).toBe(DEFAULT_CURRENCY_EXPONENT)
    expect(currencyExponent("e1")).toBe(DEFAULT_CURRENCY_EXPONENT)
    // Not read off Object.prototype.
    expect(currencyExponent("constructor")).toBe(DEFAULT_CURRENCY_EXPONENT)
    expect(currencyExponent("__proto__")).toBe(DEFAULT_CURRENCY_EXPONENT)
  })

  // The admin's browser bundle imports this file: one import here would pull
  // server code (or a Node built-in) into it.
  it("imports nothing", () => {
    const source = readFileSync(join(__dirname, "..", "currency-exponents.ts"), "utf8")
    expect(source).not.toMatch(/^\s*(import|export\s+[^;]*\sfrom\s)/m)
    expect(source).not.toMatch(/\brequire\s*\(|\bimport\s*\(/)
  })
})
