// Import-free on purpose: the admin extension's browser bundle imports this
// table (to name a card as the evidence pack and the store API do), so nothing
// server-side may come in through this file.

/**
 * The brands behind processors' card type codes (Worldpay's cnpAPI `<type>`),
 * as a shopper or a merchant knows them. The one table: the store API's saved
 * cards, the evidence pack and the admin all name a card from it. The
 * storefront widget keeps no table of its own: it shows the `brand` the store
 * API sends.
 */
export const CARD_BRANDS: Readonly<Record<string, string>> = Object.freeze({
  VI: "Visa",
  MC: "Mastercard",
  AX: "American Express",
  DI: "Discover",
  DC: "Diners Club",
  JC: "JCB",
  UP: "UnionPay",
})

/**
 * The brand of a processor's card type code, in any letter case ("jc" →
 * "JCB"); undefined for a code not in the table, so each caller decides how
 * to show one (most show the code as the processor wrote it).
 */
export function cardBrandName(code: string | null | undefined): string | undefined {
  const key = typeof code === "string" ? code.trim().toUpperCase() : ""
  // An own-property check, so a code like "constructor" never reads the prototype.
  return Object.prototype.hasOwnProperty.call(CARD_BRANDS, key) ? CARD_BRANDS[key] : undefined
}
