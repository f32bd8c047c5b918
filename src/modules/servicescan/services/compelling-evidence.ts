import type { Context } from "@medusajs/framework/types"
import type { CardHistoryPayment, CardHistoryPrior, CompellingEvidenceSqlRepository } from "../repositories/compelling-evidence"

type InjectedDependencies = {
  compellingEvidenceSqlRepository: CompellingEvidenceSqlRepository
}

const DAY_MS = 24 * 60 * 60 * 1000
/**
 * How far back the earlier payments are read: past CE 3.0's 365 days (by a
 * little, so that calendar days in any time zone are covered; the rule itself
 * is applied in src/lib/compelling-evidence.ts).
 */
export const CARD_HISTORY_DAYS = 367
/** The most earlier payments read: CE 3.0 needs two; a card used hundreds of times must not cost hundreds of rows. */
export const MAX_CARD_HISTORY = 100

/** A disputed payment and the earlier payments on its card. */
export type CardHistory = {
  /** Null when the order has no recorded payment. */
  disputed: CardHistoryPayment | null
  /** The disputed payment was made with a saved card (its fingerprint is known). */
  saved_card: boolean
  /** Newest first. */
  priors: CardHistoryPrior[]
}

/**
 * The data behind Visa Compelling Evidence 3.0: the disputed payment, its
 * checkout's signals (the CheckoutSignal model), and the earlier payments made
 * with the same saved card (the PaymentRef model's token fingerprint) with
 * theirs. Reads only; the decision is src/lib/compelling-evidence.ts.
 */
export class CompellingEvidenceService {
  protected readonly sql_: CompellingEvidenceSqlRepository

  constructor(dependencies: InjectedDependencies) {
    this.sql_ = dependencies.compellingEvidenceSqlRepository
  }

  async readCardHistory(input: { order_id: string; processor_transaction_id: string | null }, sharedContext: Context): Promise<CardHistory> {
    const disputed = await this.sql_.findDisputedPayment(input, sharedContext)
    if (!disputed) {
      return { disputed: null, saved_card: false, priors: [] }
    }
    const { token_fingerprint: fingerprint, ...payment } = disputed
    if (!fingerprint) {
      return { disputed: payment, saved_card: false, priors: [] }
    }
    const priors = await this.sql_.listPriorPayments(
      {
        fingerprint,
        exclude_order_id: payment.order_id,
        from: new Date(payment.created_at.getTime() - CARD_HISTORY_DAYS * DAY_MS),
        before: payment.created_at,
        limit: MAX_CARD_HISTORY,
      },
      sharedContext
    )
    return { disputed: payment, saved_card: true, priors }
  }
}
