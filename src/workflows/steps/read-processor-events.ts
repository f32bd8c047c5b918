import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { DisputeCaseRecord, OperationOutcome, PushedEvent } from "../../processors/types"

/** A stored event, as the module keeps it. */
type ProcessorEventRow = {
  id: string
  gateway: string
  event_key: string
  kind: PushedEvent["kind"]
  case_id: string | null
  occurred_at: Date | string
  data: { event?: Record<string, unknown>; operation?: OperationOutcome | null } | null
}

export type ReadProcessorEventsOutput = {
  /** Each case an event touched, as all of its stored events say (out-of-order deliveries fold the same way). */
  cases: DisputeCaseRecord[]
  /** The operations' outcomes, in the order received. */
  operations: OperationOutcome[]
  /** The events read (to mark processed). */
  ids: string[]
  /** The event of each operation outcome, in the same order, with when the processor decided it. */
  operationEvents: { id: string; occurred_at: string }[]
  /** Cases whose events the gateway could not read into a record, with why. */
  errors: string[]
}

/**
 * Reads only: the stored events of a delivery, turned by the gateway's
 * webhook code into case records (each case from ALL its stored events, not
 * just the new one, so a late earlier event never moves a case back) and
 * operation outcomes. Events of other kinds are read and left.
 */
export const readProcessorEventsStep = createStep(
  "servicescan-read-processor-events",
  async (input: { gateway: string; ids: string[] }, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const webhook = service.getDisputeGateway(input.gateway)?.webhook
    const output: ReadProcessorEventsOutput = { cases: [], operations: [], ids: [], operationEvents: [], errors: [] }
    if (!webhook || !input.ids.length) {
      return new StepResponse(output)
    }
    const rows = (await service.listProcessorEvents({ id: input.ids }, { take: null })) as ProcessorEventRow[]
    output.ids = rows.map((row) => row.id)
    for (const row of rows) {
      if (row.kind === "operation" && row.data?.operation) {
        output.operations.push(row.data.operation)
        output.operationEvents.push({ id: row.id, occurred_at: new Date(row.occurred_at).toISOString() })
      }
    }
    const caseIds = [...new Set(rows.flatMap((row) => (row.kind === "case" && row.case_id ? [row.case_id] : [])))]
    if (caseIds.length) {
      const all = (await service.listProcessorEvents(
        { gateway: input.gateway, case_id: caseIds, kind: "case" },
        { take: null }
      )) as ProcessorEventRow[]
      for (const caseId of caseIds) {
        try {
          output.cases.push(webhook.caseRecord(all.filter((row) => row.case_id === caseId).map(pushedEventOf)))
        } catch (error) {
          output.errors.push(`${caseId}: ${(error as Error).message}`)
        }
      }
    }
    return new StepResponse(output)
  }
)

function pushedEventOf(row: ProcessorEventRow): PushedEvent {
  return {
    key: row.event_key,
    kind: row.kind,
    caseId: row.case_id ?? undefined,
    occurredAt: new Date(row.occurred_at).toISOString(),
    data: row.data?.event ?? {},
  }
}
