import type { Context } from "@medusajs/framework/types"
import { deriveChargebackStatus } from "../lifecycle/chargeback-status"
import type { ChargebackStatusSqlRepository } from "../repositories/chargeback-status"
import type { ChargebackStatusChange, EvidenceVerdicts } from "../types"

type InjectedDependencies = {
  chargebackStatusSqlRepository: ChargebackStatusSqlRepository
}

/**
 * A chargeback's status as its proof requests decide it
 * (lifecycle/chargeback-status.ts), read and written for a whole list of
 * chargebacks at once, in the caller's transaction.
 */
export class ChargebackStatusService {
  protected readonly sql_: ChargebackStatusSqlRepository

  constructor(dependencies: InjectedDependencies) {
    this.sql_ = dependencies.chargebackStatusSqlRepository
  }

  /**
   * Brings chargebacks' statuses in line with their proof requests and answers
   * what changed. The write only moves a chargeback whose status is still the
   * one read (an admin's outcome in between wins).
   */
  async refresh(chargebackIds: string[], sharedContext: Context): Promise<ChargebackStatusChange[]> {
    const ids = [...new Set(chargebackIds)]
    if (!ids.length) {
      return []
    }
    const changes: ChargebackStatusChange[] = []
    for (const row of await this.sql_.listWithEvidence(ids, sharedContext)) {
      const to = deriveChargebackStatus(row.status, { hasValidScan: row.has_valid_scan, hasInFlight: row.has_in_flight })
      if (to !== row.status) {
        changes.push({ id: row.id, order_id: row.order_id, external_id: row.external_id, from: row.status, to })
      }
    }
    return this.write(changes, sharedContext)
  }

  /** Compensation of `refresh`: each change made, the other way. */
  async restore(changes: ChargebackStatusChange[], sharedContext: Context): Promise<void> {
    await this.write(
      changes.map((change) => ({ ...change, from: change.to, to: change.from })),
      sharedContext
    )
  }

  /**
   * What each chargeback's evidence says, for an automatic answer: some scan
   * judged valid; some proof request still open; every judged scan invalid
   * (and at least one judged).
   */
  async summarize(chargebackIds: string[], sharedContext: Context): Promise<Map<string, EvidenceVerdicts>> {
    const ids = [...new Set(chargebackIds)]
    if (!ids.length) {
      return new Map()
    }
    const rows = await this.sql_.countVerdicts(ids, sharedContext)
    return new Map(
      rows.map((row) => [
        row.id,
        {
          hasValidScan: row.has_valid_scan,
          hasInFlight: row.has_in_flight,
          allInvalid: Number(row.judged) > 0 && Number(row.judged) === Number(row.invalid),
        },
      ])
    )
  }

  /**
   * Applies status changes to rows still in their `from` status, and answers
   * the changes made: no event may announce a change that did not happen.
   */
  private async write(changes: ChargebackStatusChange[], sharedContext: Context): Promise<ChargebackStatusChange[]> {
    const made = await this.sql_.writeStatuses(changes, sharedContext)
    return changes.filter((change) => made.has(change.id))
  }
}
