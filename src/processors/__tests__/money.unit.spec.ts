import { BigNumber, MedusaError } from "@medusajs/framework/utils"
import {
  currencyExponent,
  formatMoney,
  fromMinorUnits,
  roundToCurrencyPrecision,
  toMinorUnits,
} from "../money"
import { DEFAULT_CURRENCY_EXPONENT, ISO_4217_EXPONENTS } from "../../lib/currency-exponents"

describe("currencyExponent", () => {
  it.each([
    ["JPY", 0],
    ["jpy", 0],
    ["KRW", 0],
    ["CLP", 0],
    ["ISK", 0],
    ["USD", 2],
    ["eur", 2],
    ["HUF", 2],
    ["IDR", 2],
    ["KWD", 3],
    ["BHD", 3],
    ["JOD", 3],
    ["OMR", 3],
    ["TND", 3],
    ["CLF", 4],
    ["XYZ", 2],
  ])("%s has exponent %i", (code, exponent) => {
    expect(currencyExponent(code)).toBe(exponent)
  })

  it.each(["", "US", "USDT", "12a", "u$d"])("rejects the code %j", (code) => {
    expect(() => currencyExponent(code)).toThrow(/three-letter ISO 4217 currency code/)
  })
})

describe("toMinorUnits", () => {
  it.each([
    ["10.5", "usd", 1050],
    [10.5, "usd", 1050],
    ["0.07", "usd", 7],
    [0.29, "usd", 29], // 0.29 * 100 is 28.999999999999996 in floats
    [1.005, "kwd", 1005], // 1.005 * 1000 is 1004.9999999999999 in floats
    ["3.125", "kwd", 3125],
    [1500, "jpy", 1500],
    ["1500", "JPY", 1500],
    [0, "usd", 0],
    ["19999999.99", "usd", 1999999999],
    ["-12.34", "usd", -1234],
  ])("%j %s is %i minor units", (amount, currency, minor) => {
    expect(toMinorUnits(amount, currency)).toBe(minor)
  })

  it("accepts Medusa's BigNumber and raw values", () => {
    expect(toMinorUnits(new BigNumber("42.42"), "usd")).toBe(4242)
    expect(toMinorUnits({ value: "42.420000000000000000", precision: 20 }, "usd")).toBe(4242)
    expect(toMinorUnits(new BigNumber(7), "kwd")).toBe(7000)
  })

  it("rejects amounts finer than the currency's minor unit instead of rounding", () => {
    expect(() => toMinorUnits("10.005", "usd")).toThrow(
      "The amount 10.005 USD has more decimal places than USD allows (2)."
    )
    expect(() => toMinorUnits("1500.5", "jpy")).toThrow(/JPY allows \(0\)/)
    expect(() => toMinorUnits("3.1255", "kwd")).toThrow(/KWD allows \(3\)/)
  })

  it("throws MedusaError INVALID_DATA", () => {
    try {
      toMinorUnits("1.001", "usd")
      throw new Error("expected a throw")
    } catch (error) {
      expect(MedusaError.isMedusaError(error)).toBe(true)
      expect((error as MedusaError).type).toBe(MedusaError.Types.INVALID_DATA)
    }
  })

  it.each([Number.NaN, Number.POSITIVE_INFINITY, "ten", "", null, undefined])(
    "rejects the non-amount %j",
    (amount) => {
      expect(() => toMinorUnits(amount as never, "usd")).toThrow(/Expected a finite amount/)
    }
  )

  it("rejects results beyond the safe integer range", () => {
    expect(() => toMinorUnits("999999999999999999", "usd")).toThrow(/too large/)
  })
})

describe("fromMinorUnits", () => {
  it.each([
    [1050, "usd", 10.5],
    [7, "usd", 0.07],
    [1500, "jpy", 1500],
    [3125, "kwd", 3.125],
    ["1005", "kwd", 1.005],
  ])("%j %s is %d", (minor, currency, major) => {
    const value = fromMinorUnits(minor, currency)
    expect(value).toBeInstanceOf(BigNumber)
    expect(value.numeric).toBe(major)
  })

  it("accepts bigint minor units", () => {
    expect(fromMinorUnits(BigInt(29), "usd").numeric).toBe(0.29)
  })

  it("round-trips exactly", () => {
    for (const [amount, currency] of [
      ["123.45", "usd"],
      ["0.01", "eur"],
      ["98765", "jpy"],
      ["12.345", "kwd"],
    ] as const) {
      expect(toMinorUnits(fromMinorUnits(toMinorUnits(amount, currency), currency), currency)).toBe(
        toMinorUnits(amount, currency)
      )
    }
  })

  it("rejects fractional minor units", () => {
    expect(() => fromMinorUnits(10.5, "usd")).toThrow(/must be an integer/)
    expect(() => fromMinorUnits("abc", "usd")).toThrow(/must be an integer/)
  })
})

describe("roundToCurrencyPrecision", () => {
  it.each([
    ["10.8875", "usd", "10.89"],
    ["10.8849", "usd", "10.88"],
    ["0.005", "usd", "0.01"],
    ["1500.5", "jpy", "1501"],
    ["3.1255", "kwd", "3.126"],
    ["10.5", "usd", "10.5"],
  ])("%s %s rounds half up to %s", (amount, currency, rounded) => {
    expect(roundToCurrencyPrecision(amount, currency).numeric).toBe(Number(rounded))
    expect(() => toMinorUnits(roundToCurrencyPrecision(amount, currency), currency)).not.toThrow()
  })
})

describe("formatMoney", () => {
  it.each([
    [24, "usd", "24.00 USD"],
    ["10.5", "eur", "10.50 EUR"],
    [1500, "jpy", "1500 JPY"],
    [3.125, "kwd", "3.125 KWD"],
    [0.005, "usd", "0.01 USD"],
  ])("%s %s -> %s", (amount, currency, expected) => {
    expect(formatMoney(amount, currency)).toBe(expected)
  })

  it("refuses what is not an amount or a currency", () => {
    expect(() => formatMoney(Number.NaN, "usd")).toThrow(/finite amount/)
    expect(() => formatMoney(1, "dollars")).toThrow(/ISO 4217/)
  })
})

// Moved from the table's own spec (lib/ may not import this layer): money converts with the shared table.
describe("the ISO 4217 table shared with the admin", () => {
  it("is the table the payment provider converts with", () => {
    for (const [code, exponent] of Object.entries(ISO_4217_EXPONENTS)) {
      expect(currencyExponent(code)).toBe(exponent)
    }
    expect(currencyExponent("usd")).toBe(DEFAULT_CURRENCY_EXPONENT)
  })
})
