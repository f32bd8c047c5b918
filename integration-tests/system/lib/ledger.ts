import { liveAuthorizations, type SandboxMove } from "../../helpers/processors"
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

/**
 * The same books for a processor counted through helpers/processors.ts (`TestProcessor.moves()`),
 * where a token does not keep the card's last four digits (Adyen's stored payment method ids):
 * `last4ByToken` names each token's card, as the processor's own listing of stored cards shows it.
 * `cnpTxnId` holds the processor's id of the payment (Adyen: its pspReference).
 */
export function ledgerFromMoves(moves: SandboxMove[], last4ByToken: ReadonlyMap<string, string>): Map<string, CardLedger> {
  const live = new Set(liveAuthorizations(moves).map((m) => m.id))
  const byCard = new Map<string, CardLedger>()
  for (const m of moves) {
    if ((m.kind !== "authorization" && m.kind !== "sale") || !m.ok) continue
    const last4 = (m.token && last4ByToken.get(m.token)) ?? `token ${m.token ?? "none"}`
    const ledger = byCard.get(last4) ?? { last4, authorizations: [], live: [] }
    byCard.set(last4, ledger)
    const authorization = { cnpTxnId: m.id, requestId: m.key, amount: m.amount, answers: 1 + m.replays, released: !live.has(m.id) }
    ledger.authorizations.push(authorization)
    if (!authorization.released) ledger.live.push(authorization)
  }
  return byCard
}
