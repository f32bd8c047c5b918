import type { Context, DAL, Logger, ModulesSdkTypes } from "@medusajs/framework/types"
import { MedusaInternalService } from "@medusajs/framework/utils"
import { createDisputeGateway } from "../../../processors"
import { fromMinorUnits } from "../../../processors/money"
import type { DisputeCaseRecord, DisputeGateway } from "../../../processors/types"
import { DisputeCaseState, reconcileWithProcessor } from "../lifecycle/dispute-case"
import { DisputeCase, ServiceState } from "../models"
import { DISPUTE_CASE_ID_PREFIX } from "../models/dispute-case"
import { RESOLVED_OPTIONS, WithResolvedOptions } from "../options"
import { newEntityId } from "../repositories/entity-id"
import type { DisputeCaseSqlRepository } from "../repositories/dispute-case"
import type { DisputeCaseMatch, DisputeCaseRow, DisputeCaseUpsert, DueSoonCase } from "../types"
import { logRetries } from "./disputes-api"

type InjectedDependencies = WithResolvedOptions & {
  logger: Logger
  baseRepository: DAL.RepositoryService
  disputeCaseSqlRepository: DisputeCaseSqlRepository
  serviceStateService: ModulesSdkTypes.IMedusaInternalService<typeof ServiceState>
}

const NEW_CASE_STATE: DisputeCaseState = {
  status: "unmatched",
  response_status: "none",
  reply_by: null,
  awaiting_merchant: false,
  outcome: null,
}

/**
 * The processor's chargeback cases: its chargeback API (the `disputeGateway`
 * option), the case import's cursor, and the cases as stored (their CRUD is
 * Medusa's, for the DisputeCase model), reconciled with what the processor
 * publishes (lifecycle/dispute-case.ts).
 */
export class DisputeCaseService extends MedusaInternalService(DisputeCase)<InjectedDependencies, typeof DisputeCase> {
  protected readonly baseRepository_: DAL.RepositoryService
  protected readonly sql_: DisputeCaseSqlRepository
  protected readonly serviceStateService_: InjectedDependencies["serviceStateService"]
  /** The processors' chargeback APIs (the `disputeGateway` option, one per processor); empty when it is not set. */
  readonly gateways: readonly DisputeGateway[]

  constructor(dependencies: InjectedDependencies) {
    super(dependencies)
    const options = dependencies[RESOLVED_OPTIONS]
    this.baseRepository_ = dependencies.baseRepository
    this.sql_ = dependencies.disputeCaseSqlRepository
    this.serviceStateService_ = dependencies.serviceStateService
    this.gateways = (options.disputeGateway ?? []).flatMap((option) => {
      const gateway = createDisputeGateway(option, {
        timeoutMs: options.timeoutMs,
        maxRetries: options.maxRetries,
        maxDocumentBytes: options.maxDocumentBytes,
        onRetry: logRetries(dependencies.logger),
      })
      return gateway ? [gateway] : []
    })
  }

  /** The gateway a case was stored under (`dispute_case.gateway`), or null when no such gateway is configured. */
  gateway(name: string): DisputeGateway | null {
    return this.gateways.find((gateway) => gateway.name === name) ?? null
  }

  /** The case import's last fully imported activity day for a gateway, if any run finished. */
  async getCaseCursor(gateway: string): Promise<string | null> {
    const [row] = await this.serviceStateService_.list({ id: caseCursorId(gateway) }, { take: 1 })
    return row?.cursor ?? null
  }

  /** Records the last fully imported activity day for a gateway, for every process. */
  async setCaseCursor(gateway: string, day: string, sharedContext: Context): Promise<void> {
    const id = caseCursorId(gateway)
    const state = this.serviceStateService_
    // As a list of one selector: answered as a list of the rows updated, like one selector alone.
    if ((await state.update([{ selector: { id }, data: { cursor: day } }], sharedContext)).length === 0) {
      await state
        .create({ id, cursor: day }, sharedContext)
        .catch(() => state.update({ selector: { id }, data: { cursor: day } }, sharedContext))
    }
  }

  /**
   * Stores cases as the processor publishes them, by (gateway, case id), in
   * the caller's transaction: new ones are created `unmatched`, known ones
   * updated with what changed (queue, reply-by, amount, activities), and our
   * answer and the network's decision reconciled with the processor's record.
   * Answers the rows after the write and the rows before it (to undo).
   */
  async upsertCases(gateway: string, records: DisputeCaseRecord[], today: string, sharedContext: Context): Promise<DisputeCaseUpsert> {
    // The newest read of a case wins when one page lists it twice (a day's list and the actionable list).
    const byCaseId = new Map(records.map((record) => [record.caseId, record]))
    if (!byCaseId.size) {
      return { rows: [], created: [], previous: [] }
    }
    const existing = await this.listCases(gateway, [...byCaseId.keys()], sharedContext)
    const known = new Map(existing.map((row) => [row.case_id, row]))
    const toCreate: Record<string, unknown>[] = []
    const toUpdate: Record<string, unknown>[] = []
    const previous: DisputeCaseRow[] = []
    for (const record of byCaseId.values()) {
      const fields = caseFields(record)
      const row = known.get(record.caseId)
      if (!row) {
        toCreate.push({
          id: newEntityId(DISPUTE_CASE_ID_PREFIX),
          gateway,
          case_id: record.caseId,
          ...fields,
          ...reconcileWithProcessor(NEW_CASE_STATE, record, today),
        })
        continue
      }
      const next = { ...fields, ...reconcileWithProcessor(row, record, today) }
      if (Object.entries(next).some(([key, value]) => !sameValue(row[key as keyof DisputeCaseRow], value))) {
        previous.push(row)
        toUpdate.push({ id: row.id, ...next })
      }
    }
    const created = toCreate.length
      ? await this.baseRepository_.serialize<{ id: string }[]>(await this.create(toCreate, sharedContext))
      : []
    if (toUpdate.length) {
      await this.update(toUpdate, sharedContext)
    }
    const rows = await this.listCases(gateway, [...byCaseId.keys()], sharedContext)
    return { rows, created: created.map((row) => row.id), previous }
  }

  /** Writes the match of many cases (status, order, note, chargeback) in one statement. */
  async writeMatches(matches: DisputeCaseMatch[], sharedContext: Context): Promise<void> {
    await this.sql_.writeMatches(matches, sharedContext)
  }

  /** Marks cases due soon as announced and answers them (repositories/dispute-case.ts: `claimDueSoon`). */
  async claimDueSoon(input: { today: string; until: string; at: Date; limit: number }, sharedContext: Context): Promise<DueSoonCase[]> {
    return await this.sql_.claimDueSoon(input, sharedContext)
  }

  /** Undoes `claimDueSoon` for these cases. */
  async releaseDueSoon(ids: string[], at: Date, sharedContext: Context): Promise<void> {
    await this.sql_.releaseDueSoon(ids, at, sharedContext)
  }

  /** Compensation of `upsertCases`, in the caller's transaction. */
  async undoUpsertCases(input: { created: string[]; previous: DisputeCaseRow[] }, sharedContext: Context): Promise<void> {
    if (input.created.length) {
      await this.delete(input.created, sharedContext)
    }
    if (input.previous.length) {
      await this.update(input.previous.map(restorableCase), sharedContext)
    }
  }

  private async listCases(gateway: string, caseIds: string[], sharedContext: Context): Promise<DisputeCaseRow[]> {
    return await this.baseRepository_.serialize<DisputeCaseRow[]>(
      await this.list({ gateway, case_id: caseIds }, { take: null }, sharedContext)
    )
  }
}

function caseCursorId(gateway: string): string {
  return `cases:${gateway}`
}

/** The columns a processor's record sets. */
function caseFields(record: DisputeCaseRecord) {
  const currency = record.currencyCode.toLowerCase()
  return {
    amount: Number(fromMinorUnits(record.amountMinor, currency).toString()),
    currency_code: currency,
    cycle: record.cycle ?? null,
    reason_code: record.reasonCode ?? null,
    reason_description: record.reasonDescription ?? null,
    queue: record.queue ?? null,
    awaiting_merchant: record.awaitingMerchant,
    reply_by: record.replyBy ?? null,
    issued_on: record.issuedOn ?? null,
    processor_transaction_id: record.transactionId ?? null,
    processor_order_id: record.orderId ?? null,
    card_last4: record.cardLast4 ?? null,
    card_type: record.cardType ?? null,
    acquirer_reference_number: record.acquirerReferenceNumber ?? null,
    activities: { items: record.activities },
    last_activity_on: record.activities.reduce<string | null>((newest, a) => (!newest || a.date > newest ? a.date : newest), null),
  }
}

function sameValue(current: unknown, next: unknown): boolean {
  if (current !== null && typeof current === "object") {
    return JSON.stringify(current) === JSON.stringify(next)
  }
  // bigNumber columns read back as numbers or BigNumber-likes; compare by value.
  return String(current ?? null) === String(next ?? null)
}

function restorableCase(row: DisputeCaseRow): Record<string, unknown> {
  const { id, status, match_note, chargeback_id, order_id, cycle, reason_code, reason_description, queue, awaiting_merchant, reply_by } = row
  return {
    id,
    status,
    match_note,
    // A one-to-one relation: written through its name, `chargeback_id` would be ignored.
    chargeback: chargeback_id,
    order_id,
    cycle,
    reason_code,
    reason_description,
    queue,
    awaiting_merchant,
    reply_by,
    amount: row.amount,
    currency_code: row.currency_code,
    activities: row.activities,
    last_activity_on: row.last_activity_on,
    response_status: row.response_status,
    outcome: row.outcome,
  }
}
