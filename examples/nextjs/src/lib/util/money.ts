/** Medusa's store API gives amounts in major units (10.5 USD); Intl knows each currency's digits. */
export function formatAmount(amount: number | null | undefined, currencyCode: string | null | undefined): string {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: (currencyCode || "usd").toUpperCase() }).format(
    amount ?? 0,
  )
}
