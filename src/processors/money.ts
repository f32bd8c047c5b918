import type { BigNumberInput } from "@medusajs/framework/types"
import { BigNumber, MathBN, MedusaError } from "@medusajs/framework/utils"
// The table lives in lib, import-free, so the admin bundle can share it.
import { currencyExponent as isoExponent } from "../lib/currency-exponents"

/**
 * Money at the processor boundary. Medusa keeps amounts in major units with
 * arbitrary precision (`BigNumber`); processors such as Worldpay's cnpAPI take
 * integers in the currency's minor unit. Every conversion goes through these
 * helpers, in decimal arithmetic (bignumber.js via Medusa's `MathBN`), never
 * through JavaScript floats: `10.5 * 100` happens to be exact, `1.005 * 1000`
 * is not.
 *
 * Why here: the provider and the disputes module both convert (and may not
 * import each other), and the workflows format; processors/ is the lowest
 * layer under all of them that may use Medusa's runtime (`BigNumber`,
 * `MedusaError`), which lib/ may not.
 */

/** An amount in any form Medusa hands to a provider: number, decimal string, raw value, BigNumber. */
export type MoneyAmount = BigNumberInput | BigNumber

/**
 * The ISO 4217 minor-unit exponent of a currency (JPY 0, USD 2, KWD 3);
 * currencies not in the table (`currency-exponents.ts`) use 2, as the
 * standard does for almost all.
 *
 * @throws MedusaError INVALID_DATA when the code is not three letters.
 */
export function currencyExponent(currencyCode: string): number {
  return isoExponent(normalizeCurrencyCode(currencyCode))
}

/**
 * Converts a major-unit amount to an integer count of minor units:
 * `toMinorUnits("10.5", "usd") === 1050`, `toMinorUnits(1500, "jpy") === 1500`,
 * `toMinorUnits("3.125", "kwd") === 3125`.
 *
 * It never rounds: an amount finer than the currency allows (`10.005` USD) is
 * an error, so a rounding decision is always explicit at the call site (see
 * {@link roundToCurrencyPrecision}).
 *
 * @throws MedusaError INVALID_DATA when the amount is not a finite number, is
 * finer than the currency's minor unit, or does not fit a safe integer.
 */
export function toMinorUnits(amount: MoneyAmount, currencyCode: string): number {
  const exponent = currencyExponent(currencyCode)
  const value = toDecimal(amount)
  const minor = MathBN.mult(value, MathBN.exp(10, exponent))
  if (!minor.isInteger()) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `The amount ${value.toFixed()} ${currencyCode.toUpperCase()} has more decimal places than ${currencyCode.toUpperCase()} allows (${exponent}).`
    )
  }
  const result = minor.toNumber()
  if (!Number.isSafeInteger(result)) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `The amount ${value.toFixed()} ${currencyCode.toUpperCase()} is too large to process.`
    )
  }
  // `-0` would serialise as "0" anyway; normalise so equality checks hold.
  return result === 0 ? 0 : result
}

/**
 * Converts an integer count of minor units back to a major-unit Medusa
 * `BigNumber`: `fromMinorUnits(1050, "usd")` is 10.5.
 *
 * @throws MedusaError INVALID_DATA when `minor` is not an integer.
 */
export function fromMinorUnits(minor: number | string | bigint, currencyCode: string): BigNumber {
  const exponent = currencyExponent(currencyCode)
  const value = MathBN.convert(typeof minor === "bigint" ? minor.toString() : minor)
  if (!value.isFinite() || !value.isInteger()) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `A minor-unit amount must be an integer, got ${String(minor)} (${currencyCode.toUpperCase()}).`
    )
  }
  return new BigNumber(MathBN.div(value, MathBN.exp(10, exponent)))
}

/**
 * Rounds a major-unit amount to the currency's minor unit, half up: the same
 * rounding Medusa's payment module applies (`MathBN.convert(amount, precision)`)
 * when it compares captures and refunds with the authorized amount. Cart totals
 * can carry sub-cent precision from percentage taxes and discounts; rounding
 * them the way Medusa does keeps the processor's amount equal to the one Medusa
 * considers paid.
 */
export function roundToCurrencyPrecision(amount: MoneyAmount, currencyCode: string): BigNumber {
  const exponent = currencyExponent(currencyCode)
  return new BigNumber(MathBN.convert(toDecimal(amount), exponent))
}

function normalizeCurrencyCode(currencyCode: string): string {
  if (typeof currencyCode !== "string" || !/^[a-z]{3}$/i.test(currencyCode)) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `Expected a three-letter ISO 4217 currency code, got ${JSON.stringify(currencyCode)}.`
    )
  }
  return currencyCode.toUpperCase()
}

function toDecimal(amount: MoneyAmount): ReturnType<typeof MathBN.convert> {
  let value: ReturnType<typeof MathBN.convert>
  try {
    value = MathBN.convert(amount)
  } catch {
    value = MathBN.convert(Number.NaN)
  }
  if (amount === null || amount === undefined || !value.isFinite()) {
    throw new MedusaError(
      MedusaError.Types.INVALID_DATA,
      `Expected a finite amount, got ${describe(amount)}.`
    )
  }
  return value
}

function describe(amount: unknown): string {
  if (amount instanceof BigNumber || typeof amount === "number") {
    return String(amount)
  }
  try {
    return JSON.stringify(amount) ?? String(amount)
  } catch {
    return String(amount)
  }
}

/**
 * A major-unit amount as a merchant reads it in a document, with as many
 * decimals as the currency's minor unit: `formatMoney(24, "usd")` is
 * "24.00 USD", `formatMoney(1500, "jpy")` "1500 JPY", `formatMoney(3.125, "kwd")` "3.125 KWD".
 */
export function formatMoney(amount: MoneyAmount, currencyCode: string): string {
  const code = normalizeCurrencyCode(currencyCode)
  const exponent = currencyExponent(code)
  return `${MathBN.convert(toDecimal(amount), exponent).toFixed(exponent)} ${code}`
}
