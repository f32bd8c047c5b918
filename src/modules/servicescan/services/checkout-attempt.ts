import type { Context, DAL } from "@medusajs/framework/types"
import { MedusaInternalService } from "@medusajs/framework/utils"
import { CheckoutAttempt } from "../models"
import type { CheckoutAttemptSqlRepository } from "../repositories/checkout-attempt"
import type { CheckoutAttemptClaim, CheckoutAttemptInput, CheckoutAttemptRow } from "../types"

type InjectedDependencies = {
  baseRepository: DAL.RepositoryService
  checkoutAttemptSqlRepository: CheckoutAttemptSqlRepository
}

/**
 * The checkout's record of cart completions through the ServiceScan provider
 * (the CheckoutAttempt model; its CRUD is Medusa's): which session a hosted
 * form id was spent on, and the attempts the reconciliation job settles.
 *
 * A checkout concern in the disputes module because its table is here: Medusa
 * gives a payment provider no tables of its own, and a module reads only its
 * own. The cart completion's guard and the reconciliation job call it through
 * the module's service.
 */
export class CheckoutAttemptService extends MedusaInternalService(CheckoutAttempt)<InjectedDependencies, typeof CheckoutAttempt> {
  protected readonly baseRepository_: DAL.RepositoryService
  protected readonly sql_: CheckoutAttemptSqlRepository

  constructor(dependencies: InjectedDependencies) {
    super(dependencies)
    this.baseRepository_ = dependencies.baseRepository
    this.sql_ = dependencies.checkoutAttemptSqlRepository
  }

  /**
   * A cart completion's claim on its hosted form id, before the card is
   * authorized, in one statement: when no other session's completion carried
   * the form id (or `force`, once the caller found that none of them paid),
   * records this session's attempt: a first record, or this session's again
   * (`attempted_at` moves and it reopens for reconciliation). Otherwise it
   * records nothing and answers those sessions. A session paying with a saved
   * card has no form id and is always recorded. Answers the session's record
   * as it was before, so that the claim can be undone.
   */
  async claim(input: CheckoutAttemptInput & { force?: boolean; now?: Date }, sharedContext: Context): Promise<CheckoutAttemptClaim> {
    // Two claims of one form id (or of one saved card's session) never run at once: the completion
    // middleware holds a lock on it. One statement is atomic by itself, so this takes no transaction
    // of its own (nor joins a caller's: its one caller passes none).
    return await this.sql_.claim(
      { ...input, form_id: input.form_id?.toLowerCase() ?? null, force: input.force === true, now: input.now ?? new Date() },
      sharedContext
    )
  }

  /** Attempts the reconciliation job has not settled, oldest first, last attempted before `before`. */
  async listUnreconciled(before: Date, limit: number): Promise<CheckoutAttemptRow[]> {
    return await this.baseRepository_.serialize<CheckoutAttemptRow[]>(
      await this.list({ reconciled_at: null, attempted_at: { $lt: before } }, { take: limit, order: { attempted_at: "ASC" } })
    )
  }
}
