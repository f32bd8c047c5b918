import { createWorkflow, transform, when, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep } from "@medusajs/medusa/core-flows"
import { ServiceScanEvents } from "../modules/servicescan/types"
import { applyOperationOutcomeWorkflow, paymentOperationFailedEvent } from "./apply-operation-outcome"
import { importDisputeCasesWorkflow } from "./import-dispute-cases"
import { markProcessorEventsStep } from "./steps/mark-processor-events"
import { readProcessorEventsStep } from "./steps/read-processor-events"

/** How long an operation's outcome that no payment records is tried again. */
const UNMATCHED_RETRY_MS = 24 * 60 * 60 * 1000

export type ApplyProcessorEventsWorkflowInput = {
  /** The dispute gateway whose webhook delivered them. */
  gateway: string
  /** Stored events (`receiveProcessorEventsWorkflow`'s). */
  ids: string[]
  /** Defaults to now; tests move the clock. */
  now?: string
}

/**
 * The webhook's slow half, from the stored events: a case's events import or
 * update its case exactly as the case import does for a processor that
 * publishes lists (`importDisputeCasesWorkflow`: matched to its order, a
 * chargeback recorded with its proof request, the timeline, the network's
 * decision); an operation's outcome goes to `applyOperationOutcomeWorkflow`;
 * anything else was stored and stays ignored. The events are marked applied;
 * an operation's outcome no payment records waits a day, after which a
 * failure is marked with why and raised (`servicescan.payment_operation.failed`).
 */
export const applyProcessorEventsWorkflow = createWorkflow(
  "servicescan-apply-processor-events",
  (input: WorkflowData<ApplyProcessorEventsWorkflowInput>) => {
    const clock = transform({ input }, ({ input }) => {
      const now = input.now ?? new Date().toISOString()
      return { now, today: now.slice(0, 10) }
    })
    const read = readProcessorEventsStep({ gateway: input.gateway, ids: input.ids })

    const imported = when("servicescan-processor-events-have-cases", { read }, ({ read }) => read.cases.length > 0).then(() =>
      importDisputeCasesWorkflow.runAsStep({
        input: transform({ read, input, clock }, ({ read, input, clock }) => ({ gateway: input.gateway, cases: read.cases, today: clock.today })),
      })
    )
    const applied = when("servicescan-processor-events-have-operations", { read }, ({ read }) => read.operations.length > 0).then(() =>
      applyOperationOutcomeWorkflow.runAsStep({ input: transform({ read }, ({ read }) => read.operations) })
    )

    const mark = transform({ read, applied, clock }, ({ read, applied, clock }) => {
      // An outcome no payment records yet may be one whose own answer is still on its way into the
      // payment's data: it stays unapplied (the case import's catch-up tries it again) for a day.
      const waiting = new Set(
        read.operationEvents
          .filter((event, index) => applied?.[index]?.effect === "unmatched" && Date.parse(clock.now) - Date.parse(event.occurred_at) < UNMATCHED_RETRY_MS)
          .map((event) => event.id)
      )
      // Past that day a failure no payment records is not dropped in silence: it is marked with why
      // and raised like any failed operation (the merchant checks it at the processor).
      const abandoned = read.operationEvents
        .map((event, index) => ({ event, result: applied?.[index] }))
        .filter(({ event, result }) => result?.effect === "unmatched" && !result.success && !waiting.has(event.id))
      return {
        ids: read.ids.filter((id) => !waiting.has(id)),
        waiting: [...waiting],
        now: clock.now,
        error: read.errors.length ? read.errors.join("; ").slice(0, 2000) : null,
        notes: abandoned.map(({ event, result }) => ({
          id: event.id,
          note: `the processor failed ${result?.operation} ${result?.transaction_id}, which no payment of this store records: check it at the processor`,
        })),
        failed: abandoned.flatMap(({ result }) => (result ? [paymentOperationFailedEvent(result)] : [])),
      }
    })
    markProcessorEventsStep(mark)
    emitEventStep({ eventName: ServiceScanEvents.PAYMENT_OPERATION_FAILED, data: transform({ mark }, ({ mark }) => mark.failed) }).config({
      name: "servicescan-emit-unmatched-operation-failed",
    })

    return new WorkflowResponse(
      transform({ read, imported, applied }, ({ read, imported, applied }) => ({
        cases: read.cases.map((record) => record.caseId),
        chargebacks_recorded: imported?.chargebacks_recorded ?? 0,
        operations: applied?.length ?? 0,
        errors: [...read.errors, ...(imported?.errors ?? [])],
      }))
    )
  }
)
