import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep } from "@medusajs/medusa/core-flows"
import type { DisputeCaseRecord } from "../processors/types"
import {
  CaseDecidedEvent,
  CaseNeedsAttentionEvent,
  ChargebackImportedEvent,
  DisputeCaseMatch,
  ServiceScanEvents,
} from "../modules/servicescan/types"
import { recordChargebacksWorkflow } from "./record-chargebacks"
import { listCasesNeedingAnAnswerStep } from "./steps/list-cases-needing-an-answer"
import { matchDisputeCasesStep } from "./steps/match-dispute-cases"
import { setChargebackStatusesStep } from "./steps/set-chargeback-statuses"
import { writeDisputeCaseMatchesStep } from "./steps/write-dispute-case-matches"
import { upsertDisputeCasesStep } from "./steps/upsert-dispute-cases"
import { chargebackFromCase } from "./utils/dispute-case"

export type ImportDisputeCasesWorkflowInput = {
  /** The dispute gateway's name, e.g. `worldpay`. */
  gateway: string
  /** One page of cases as the gateway read them. */
  cases: DisputeCaseRecord[]
  /** `YYYY-MM-DD`, the import's day (reply-by days compare with it). */
  today: string
}

/**
 * One page of the case import: stores each case as the processor publishes
 * it, matches new ones to the order their disputed transaction paid, records
 * a chargeback for each matched case (idempotent by case id, through
 * `recordChargebacksWorkflow`, so the proof request goes out as for any
 * chargeback), and carries the network's decision to the chargeback. A case
 * that matches nothing is kept `unmatched`, with why, for an admin.
 * Alerts: `servicescan.case.needs_attention` for a new unmatched case (and a
 * chargeback recorded with its evidence already complete that no policy
 * answers), `servicescan.case.decided` for a decision that changed a
 * chargeback.
 */
export const importDisputeCasesWorkflow = createWorkflow(
  "servicescan-import-dispute-cases",
  (input: WorkflowData<ImportDisputeCasesWorkflowInput>) => {
    const upserted = upsertDisputeCasesStep(input)

    const toMatch = transform({ upserted }, ({ upserted }) =>
      upserted.rows
        .filter((row) => row.status === "unmatched")
        .map((row) => ({
          id: row.id,
          case_id: row.case_id,
          processor_transaction_id: row.processor_transaction_id,
          processor_order_id: row.processor_order_id,
        }))
    )
    const matches = matchDisputeCasesStep(toMatch)

    const toRecord = transform({ upserted, matches }, ({ upserted, matches }) => {
      const newlyMatched = new Map(matches.filter((m) => m.order_id).map((m) => [m.id, m]))
      const chargebacks = upserted.rows
        .filter((row) => !row.chargeback_id && (row.order_id || newlyMatched.has(row.id)))
        .map((row) => {
          const match = newlyMatched.get(row.id)
          return chargebackFromCase(row, row.order_id ?? (match?.order_id as string), match?.scan_id ? [match.scan_id] : [])
        })
      return { chargebacks }
    })
    const recorded = recordChargebacksWorkflow.runAsStep({ input: toRecord })

    // One write per page for the matches and the chargebacks they got: a case matched now is
    // `matched` with its order (even when its chargeback could not be recorded: the item's error
    // says why), one that matches nothing keeps why, and each recorded chargeback is attached.
    const caseMatches = transform({ upserted, matches, recorded }, ({ upserted, matches, recorded }) => {
      const matchOf = new Map(matches.map((m) => [m.id, m]))
      const chargebackOf = new Map(recorded.items.filter((item) => item.chargeback_id).map((item) => [item.external_id, item.chargeback_id]))
      const next: DisputeCaseMatch[] = []
      const previous: DisputeCaseMatch[] = []
      for (const row of upserted.rows) {
        const before: DisputeCaseMatch = {
          id: row.id,
          status: row.status,
          order_id: row.order_id,
          match_note: row.match_note,
          chargeback_id: row.chargeback_id,
        }
        const match = matchOf.get(row.id)
        const after: DisputeCaseMatch = match?.order_id
          ? { ...before, status: "matched", order_id: match.order_id, match_note: null }
          : match
            ? { ...before, match_note: match.note }
            : { ...before }
        after.chargeback_id = chargebackOf.get(row.case_id) ?? after.chargeback_id
        if (Object.keys(after).some((key) => after[key as keyof DisputeCaseMatch] !== before[key as keyof DisputeCaseMatch])) {
          next.push(after)
          previous.push(before)
        }
      }
      return { next, previous }
    })
    writeDisputeCaseMatchesStep(caseMatches)

    const outcomes = transform({ upserted, recorded }, ({ upserted, recorded }) => {
      const recordedIds = new Map(recorded.items.map((item) => [item.external_id, item.chargeback_id]))
      return upserted.rows
        .map((row) => ({ id: row.chargeback_id ?? recordedIds.get(row.case_id) ?? null, outcome: row.outcome }))
        .filter((row): row is { id: string; outcome: "won" | "lost" } => !!row.id && !!row.outcome)
        .map((row) => ({ id: row.id, status: row.outcome }))
    })
    const decidedIds = setChargebackStatusesStep(outcomes)

    const imported = transform({ upserted, recorded, input }, ({ upserted, recorded, input }) => {
      const byCase = new Map(upserted.rows.map((row) => [row.case_id, row]))
      return recorded.items
        .filter((item) => item.created && item.chargeback_id)
        .map(
          (item): ChargebackImportedEvent => ({
            id: item.chargeback_id as string,
            order_id: byCase.get(item.external_id)?.order_id ?? "",
            case_id: item.external_id,
            gateway: input.gateway,
          })
        )
    })
    emitEventStep({ eventName: ServiceScanEvents.CHARGEBACK_IMPORTED, data: imported }).config({
      name: "servicescan-emit-chargeback-imported",
    })

    // Alerts. A new case that matches nothing waits for an admin to assign it; a chargeback just
    // recorded whose evidence is already complete (no scan to prove) waits for one when the
    // policy does not answer it; a decision carried from the network ends the dispute.
    const recordedIds = transform({ recorded }, ({ recorded }) =>
      recorded.items.filter((item) => item.created && item.chargeback_id).map((item) => item.chargeback_id as string)
    )
    const needingAnAnswer = listCasesNeedingAnAnswerStep({ chargeback_ids: recordedIds, today: input.today })
    const attention = transform({ upserted, matches, needingAnAnswer }, ({ upserted, matches, needingAnAnswer }) => {
      const created = new Set(upserted.created)
      const unmatched = new Set(matches.filter((m) => !m.order_id && created.has(m.id)).map((m) => m.id))
      return [
        ...upserted.rows
          .filter((row) => unmatched.has(row.id))
          .map(
            (row): CaseNeedsAttentionEvent => ({
              id: row.id,
              case_id: row.case_id,
              gateway: row.gateway,
              order_id: null,
              chargeback_id: null,
              reply_by: row.reply_by,
              reason: "unmatched",
            })
          ),
        ...needingAnAnswer,
      ]
    })
    emitEventStep({ eventName: ServiceScanEvents.CASE_NEEDS_ATTENTION, data: attention }).config({
      name: "servicescan-emit-case-needs-attention",
    })
    const decided = transform(
      { upserted, matches, recorded, outcomes, decidedIds, input },
      ({ upserted, matches, recorded, outcomes, decidedIds, input }) => {
        const changed = new Set(decidedIds)
        const recordedIds = new Map(recorded.items.map((item) => [item.external_id, item.chargeback_id]))
        const orderOf = new Map(matches.map((m) => [m.id, m.order_id]))
        const caseOf = new Map<string, { case_id: string; order_id: string | null }>()
        for (const row of upserted.rows) {
          const chargebackId = row.chargeback_id ?? recordedIds.get(row.case_id)
          if (chargebackId) {
            caseOf.set(chargebackId, { case_id: row.case_id, order_id: row.order_id ?? orderOf.get(row.id) ?? null })
          }
        }
        return outcomes
          .filter((update) => changed.has(update.id))
          .map(
            (update): CaseDecidedEvent => ({
              id: update.id,
              order_id: caseOf.get(update.id)?.order_id ?? "",
              outcome: update.status,
              decided_by: "processor",
              case_id: caseOf.get(update.id)?.case_id ?? null,
              gateway: input.gateway,
            })
          )
      }
    )
    emitEventStep({ eventName: ServiceScanEvents.CASE_DECIDED, data: decided }).config({
      name: "servicescan-emit-case-decided",
    })

    const summary = transform({ upserted, matches, recorded }, ({ upserted, matches, recorded }) => ({
      cases: upserted.rows.length,
      new_cases: upserted.created.length,
      matched: matches.filter((m) => m.order_id).length,
      unmatched: matches.filter((m) => !m.order_id).length,
      chargebacks_recorded: recorded.items.filter((item) => item.created).length,
      errors: recorded.items.filter((item) => item.error).map((item) => `${item.external_id}: ${item.error}`),
    }))
    return new WorkflowResponse(summary)
  }
)
