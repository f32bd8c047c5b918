import type { ProcessorTransaction } from "./sandbox"

/** One approved authorization at the processor, and what became of it. */
export type Authorization = {
  cnpTxnId: string
  requestId: string | null
  amount: number | null
  /** How many times the processor answered it (1 + duplicates recognised by request id). */
  answers: number
  released: boolean
}

export type CardLedger = {
  last4: string
  authorizations: Authorization[]
  live: Authorization[]
}

/**
 * The processor's own books, per card (the token keeps the card's last four
 * digits, and each shopper's card has its own): every approved authorization,
 * deduplicated by transaction id (a duplicate request gets the original's id),
 * and whether an `authReversal` released it.
 */
export function ledgerByCard(transactions: ProcessorTransaction[]): Map<string, CardLedger> {
  const released = new Set(
    transactions
      .filter((t) => t.type === "authReversal" && t.response === "000" && t.originalCnpTxnId)
      .map((t) => String(t.originalCnpTxnId))
  )
  const byCard = new Map<string, CardLedger>()
  for (const t of transactions) {
    if (t.type !== "authorization" || t.response !== "000" || !t.cnpTxnId || !t.token) continue
    const last4 = t.token.slice(-4)
    const ledger = byCard.get(last4) ?? { last4, authorizations: [], live: [] }
    byCard.set(last4, ledger)
    const existing = ledger.authorizations.find((a) => a.cnpTxnId === t.cnpTxnId)
    if (existing) {
      existing.answers++
    } else {
      ledger.authorizations.push({
        cnpTxnId: t.cnpTxnId,
        requestId: t.id,
        amount: t.amount,
        answers: 1,
        released: released.has(t.cnpTxnId),
      })
    }
  }
  for (const ledger of byCard.values()) {
    ledger.live = ledger.authorizations.filter((a) => !a.released)
  }
  return byCard
}

/** Counts of each transaction type and response, for the report. */
export function transactionSummary(transactions: ProcessorTransaction[]): Record<string, number> {
  const summary: Record<string, number> = {}
  for (const t of transactions) {
    const key = `${t.type} ${t.response ?? "?"}${t.duplicate ? " (duplicate)" : ""}`
    summary[key] = (summary[key] ?? 0) + 1
  }
  return summary
}
