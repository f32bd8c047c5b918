import { readFileSync } from "node:fs"
import { join } from "node:path"
import { CARD_BRANDS, cardBrandName } from "../card-brands"

describe("the card-brand table", () => {
  it.each([
    ["VI", "Visa"],
    ["mc", "Mastercard"],
    [" AX ", "American Express"],
    ["DI", "Discover"],
    ["DC", "Diners Club"],
    ["JC", "JCB"],
    ["UP", "UnionPay"],
  ])("%j is %s", (code, brand) => {
    expect(cardBrandName(code)).toBe(brand)
  })

  it("names no brand for a code it does not know, leaving the caller to show the code", () => {
    expect(cardBrandName("XX")).toBeUndefined()
    expect(cardBrandName("")).toBeUndefined()
    expect(cardBrandName(null)).toBeUndefined()
    // Not read off Object.prototype.
    expect(cardBrandName("constructor")).toBeUndefined()
    expect(cardBrandName("__proto__")).toBeUndefined()
  })

  it("cannot be changed at run time", () => {
    expect(Object.isFrozen(CARD_BRANDS)).toBe(true)
  })

  // The admin's browser bundle imports this file: one import here would pull
  // server code (or a Node built-in) into it.
  it("imports nothing", () => {
    const source = readFileSync(join(__dirname, "..", "card-brands.ts"), "utf8")
    expect(source).not.toMatch(/^\s*(import|export\s+[^;]*\sfrom\s)/m)
    expect(source).not.toMatch(/\brequire\s*\(|\bimport\s*\(/)
  })
})
