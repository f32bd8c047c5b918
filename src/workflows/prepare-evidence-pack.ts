import { createWorkflow, transform, when, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { loadDisputeCaseStep } from "./steps/load-dispute-case"
import { prepareEvidencePackStep } from "./steps/prepare-evidence-pack"

/**
 * The evidence pack of a chargeback's processor case, for an admin to read:
 * the stored one, or a new one when there is none yet. (Sending evidence
 * always makes a fresh pack, so what goes to the processor is current.)
 */
export const prepareEvidencePackWorkflow = createWorkflow(
  "servicescan-prepare-evidence-pack",
  (input: WorkflowData<{ chargeback_id: string }>) => {
    const row = loadDisputeCaseStep({ chargeback_id: input.chargeback_id })
    // Evaluated when the workflow runs, not when it is defined.
    const now = transform({ input }, () => new Date().toISOString())
    const made = when("servicescan-make-missing-pack", { row }, ({ row }) => !row.pack_file_id).then(() =>
      prepareEvidencePackStep({ case: row, now })
    )
    return new WorkflowResponse(
      transform({ row, made }, ({ row, made }) => ({
        case_id: row.case_id,
        dispute_case_id: row.id,
        file_id: made?.file_id ?? row.pack_file_id,
        // Wrapped (src/lib/sealed-evidence.ts); null only for a pack an earlier version stored in clear.
        key: made ? made.key : row.pack_key,
      }))
    )
  }
)
