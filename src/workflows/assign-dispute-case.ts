import { MedusaError } from "@medusajs/framework/utils"
import { createStep, createWorkflow, StepResponse, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep, useQueryGraphStep } from "@medusajs/medusa/core-flows"
import { DisputeCaseRow, ChargebackImportedEvent, ServiceScanEvents } from "../modules/servicescan/types"
import { recordChargebacksWorkflow } from "./record-chargebacks"
import { loadDisputeCaseStep } from "./steps/load-dispute-case"
import { updateDisputeCasesStep } from "./steps/update-dispute-cases"
import { chargebackFromCase } from "./utils/dispute-case"

export type AssignDisputeCaseWorkflowInput = { case_id: string; order_id: string }

/** Reads only: an admin assigns only a case that matched nothing. */
const validateUnmatchedStep = createStep("servicescan-validate-case-unmatched", async (row: DisputeCaseRow) => {
  if (row.status !== "unmatched") {
    throw new MedusaError(
      MedusaError.Types.NOT_ALLOWED,
      `Case ${row.case_id} is already matched to order ${row.order_id}`
    )
  }
  return new StepResponse(undefined)
})

/**
 * An admin's answer to an unmatched case: the order it belongs to. The case
 * becomes matched and records its chargeback on that order, as an imported
 * case would (the proof request goes out, the answer follows the policy).
 */
export const assignDisputeCaseWorkflow = createWorkflow(
  "servicescan-assign-dispute-case",
  (input: WorkflowData<AssignDisputeCaseWorkflowInput>) => {
    const row = loadDisputeCaseStep({ id: input.case_id })
    validateUnmatchedStep(row)
    // 404 for an unknown order before anything is written.
    useQueryGraphStep({ entity: "order", fields: ["id"], filters: { id: input.order_id }, options: { throwIfKeyNotFound: true } })

    const match = transform({ row, input }, ({ row, input }) => [
      { id: row.id, status: "matched" as const, order_id: input.order_id, match_note: "Assigned by an admin" },
    ])
    updateDisputeCasesStep(match).config({ name: "servicescan-assign-case-to-order" })

    const toRecord = transform({ row, input }, ({ row, input }) => ({ chargebacks: [chargebackFromCase(row, input.order_id)] }))
    const recorded = recordChargebacksWorkflow.runAsStep({ input: toRecord })
    const item = transform({ recorded }, ({ recorded }) => {
      const [first] = recorded.items
      if (!first?.chargeback_id) {
        throw new MedusaError(MedusaError.Types.NOT_ALLOWED, first?.error ?? "The chargeback could not be recorded")
      }
      return first
    })
    const attach = transform({ row, item }, ({ row, item }) => [{ id: row.id, chargeback_id: item.chargeback_id }])
    updateDisputeCasesStep(attach).config({ name: "servicescan-attach-assigned-case" })

    const event = transform({ row, item, input }, ({ row, item, input }): ChargebackImportedEvent[] =>
      item.created ? [{ id: item.chargeback_id as string, order_id: input.order_id, case_id: row.case_id, gateway: row.gateway }] : []
    )
    emitEventStep({ eventName: ServiceScanEvents.CHARGEBACK_IMPORTED, data: event }).config({
      name: "servicescan-emit-assigned-case-imported",
    })
    return new WorkflowResponse(transform({ row, item }, ({ row, item }) => ({ case_id: row.id, chargeback_id: item.chargeback_id as string })))
  }
)
