import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep } from "@medusajs/medusa/core-flows"
import type { DisputeCaseRecord } from "../processors/types"
import { DisputeCaseMatch, ChargebackImportedEvent, ServiceScanEvents } from "../modules/servicescan/types"
import { recordChargebacksWorkflow } from "./record-chargebacks"
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
    setChargebackStatusesStep(outcomes)

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
