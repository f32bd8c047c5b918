// Import-free on purpose: the admin extension's browser bundle imports this
// table (to show and check amounts the way the payment provider counts them),
// so nothing server-side may come in through this file.

/**
 * ISO 4217 minor-unit exponents that differ from 2. The list is the standard's
 * (not Medusa's `defaultCurrencies`, whose `decimal_digits` are display hints:
 * it shows HUF and IDR without decimals, while processors count them in
 * hundredths). Browsers' `Intl` is no substitute either: V8 takes CLDR's
 * cash digits (0 for HUF, IDR, COP and IQD) where Firefox follows ISO.
 */
export const ISO_4217_EXPONENTS: Readonly<Record<string, number>> = Object.freeze({
  // 0: currencies without a minor unit
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  // 3: thousandths
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  // 4: units of account
  CLF: 4,
  UYW: 4,
})

/** The exponent ISO 4217 gives almost every currency, and ours for codes not in the table. */
export const DEFAULT_CURRENCY_EXPONENT = 2

/**
 * The ISO 4217 minor-unit exponent of a currency (JPY 0, USD 2, KWD 3), in any
 * letter case. It does not validate the code: an unknown or malformed one gets
 * {@link DEFAULT_CURRENCY_EXPONENT}; callers that must refuse bad codes (the
 * server's `currencyExponent` in `processors/money.ts`) check them first.
 */
export function currencyExponent(currencyCode: string): number {
  const code = typeof currencyCode === "string" ? currencyCode.trim().toUpperCase() : ""
  // An own-property check, so a code like "constructor" never reads the prototype.
  return Object.prototype.hasOwnProperty.call(ISO_4217_EXPONENTS, code)
    ? ISO_4217_EXPONENTS[code]
    : DEFAULT_CURRENCY_EXPONENT
}
