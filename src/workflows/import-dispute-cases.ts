import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep } from "@medusajs/medusa/core-flows"
import type { DisputeCaseRecord } from "../modules/servicescan/gateways/types"
import { ChargebackImportedEvent, ServiceScanEvents } from "../modules/servicescan/types"
import { recordChargebacksWorkflow } from "./record-chargebacks"
import { matchDisputeCasesStep } from "./steps/match-dispute-cases"
import { setChargebackStatusesStep } from "./steps/set-chargeback-statuses"
import { updateDisputeCasesStep } from "./steps/update-dispute-cases"
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
    const matchUpdates = transform({ matches }, ({ matches }) =>
      matches.map((m) =>
        m.order_id ? { id: m.id, status: "matched" as const, order_id: m.order_id, match_note: null } : { id: m.id, match_note: m.note }
      )
    )
    updateDisputeCasesStep(matchUpdates).config({ name: "servicescan-record-case-matches" })

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

    const attach = transform({ upserted, recorded }, ({ upserted, recorded }) => {
      const byCase = new Map(upserted.rows.map((row) => [row.case_id, row.id]))
      return recorded.items
        .filter((item) => item.chargeback_id)
        .map((item) => ({ id: byCase.get(item.external_id) as string, chargeback_id: item.chargeback_id }))
    })
    updateDisputeCasesStep(attach).config({ name: "servicescan-attach-cases-to-chargebacks" })

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
