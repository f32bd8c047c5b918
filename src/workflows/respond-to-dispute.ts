import type { IFileModuleService } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { createStep, createWorkflow, StepResponse, transform, when, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { acquireLockStep, emitEventStep, releaseLockStep } from "@medusajs/medusa/core-flows"
import { randomUUID } from "node:crypto"
import type { DisputeAction } from "../modules/servicescan/lifecycle/dispute-case"
import { REASON_FAMILY_EVIDENCE, REASON_FAMILY_LABELS, reasonFamilyOf } from "../lib/reason-family"
import { ChargebackRespondedEvent, ServiceScanEvents } from "../modules/servicescan/types"
import { finishDisputeResponseStep } from "./steps/finish-dispute-response"
import { loadDisputeCaseStep } from "./steps/load-dispute-case"
import { prepareEvidencePackStep } from "./steps/prepare-evidence-pack"
import { sendDisputeAnswerStep } from "./steps/send-dispute-answer"
import { startDisputeResponseStep } from "./steps/start-dispute-response"
import { uploadEvidenceDocumentStep } from "./steps/upload-evidence-document"

export type RespondToDisputeWorkflowInput = {
  chargeback_id: string
  action: DisputeAction
  /** Who decided: an admin, or the module's `autoRespond` policy (it goes into the note). */
  decided_by: "admin" | "policy"
  /** Defaults to now; tests move the clock. */
  now?: string
}

export type RespondToDisputeWorkflowOutput = {
  case_id: string
  response_status: string
  /** The processor's refusal or the failure, when the answer did not go through. */
  error: string | null
  /** The processor refused it (nothing was done); otherwise an error means the outcome is unknown until the next try. */
  refused: boolean
}

/** Removes a pack the new one replaced, once the answer went through. Nothing to undo. */
const deleteReplacedPackStep = createStep("servicescan-delete-replaced-pack", async (fileId: string | null, { container }) => {
  if (fileId) {
    await container.resolve<IFileModuleService>(Modules.FILE).deleteFiles([fileId]).catch(() => undefined)
  }
  return new StepResponse(undefined)
})

const NOTES: Record<DisputeAction, string> = {
  represent:
    "Represented with card-scan evidence (ServiceScan): the attached document shows the order, the payment, and the scan of the card at checkout judged genuine.",
  accept: "Liability accepted: the card scans of this payment were judged likely true fraud.",
}

/**
 * Answers a processor's case for a chargeback, from the admin or by policy:
 * - represent: makes the evidence pack, puts it on the case as a document
 *   (replacing an earlier one), then sends the representment with a short note;
 * - accept: sends the acceptance of liability.
 * Once per case, never after its reply-by day (lifecycle/dispute-case.ts). An
 * answer whose acknowledgement was lost is checked against the case's
 * activities before anything is sent again.
 */
export const respondToDisputeWorkflow = createWorkflow(
  "servicescan-respond-to-dispute",
  (input: WorkflowData<RespondToDisputeWorkflowInput>) => {
    const clock = transform({ input }, ({ input }) => {
      const now = input.now ?? new Date().toISOString()
      return { now, today: now.slice(0, 10) }
    })
    // One answer per case at a time (the evidence-ready and proof-request-completed events of one
    // chargeback both reach the policy); the second then finds the case answered. Not `key`: the
    // workflow SDK mistakes a resolved object with a `key` property for its own wrapper.
    const lock = transform({ input }, ({ input }) => ({
      lock_key: `servicescan:dispute-answer:${input.chargeback_id}`,
      owner: randomUUID(),
    }))
    acquireLockStep({ key: lock.lock_key, ownerId: lock.owner, timeout: 60, ttl: 300 })
    const row = loadDisputeCaseStep({ chargeback_id: input.chargeback_id })
    const claim = transform({ row, input, clock }, ({ row, input, clock }) => ({ case_id: row.id, action: input.action, today: clock.today }))
    const claimed = startDisputeResponseStep(claim)

    const pack = when("servicescan-represent-with-evidence", { input }, ({ input }) => input.action === "represent").then(() => {
      const made = prepareEvidencePackStep({ case: claimed, now: clock.now })
      uploadEvidenceDocumentStep({ case: claimed, pack: made, now: clock.now, today: clock.today })
      return made
    })

    const note = transform({ input, claimed }, ({ input, claimed }) => {
      // The reviewer reads first which kind of dispute the evidence answers (lib/reason-family.ts).
      const family = reasonFamilyOf(claimed.reason_code, claimed.card_type)
      const base =
        input.action === "represent"
          ? `Reason family: ${REASON_FAMILY_LABELS[family]}; the attached document leads with ${REASON_FAMILY_EVIDENCE[family]}. ${NOTES.represent}`
          : NOTES[input.action]
      return input.decided_by === "policy" ? `${base} (sent automatically by the store's policy)` : base
    })
    const outcome = sendDisputeAnswerStep({ case: claimed, action: input.action, note, today: clock.today })
    const status = finishDisputeResponseStep({ case_id: claimed.id, action: input.action, outcome, now: clock.now })

    const replaced = transform({ pack, outcome }, ({ pack, outcome }) => (outcome.sent && pack ? pack.replaced_file_id : null))
    deleteReplacedPackStep(replaced)
    releaseLockStep({ key: lock.lock_key, ownerId: lock.owner })

    const events = transform({ claimed, outcome }, ({ claimed, outcome }): ChargebackRespondedEvent[] =>
      outcome.sent && claimed.chargeback_id
        ? [{ id: claimed.chargeback_id, order_id: claimed.order_id ?? "", case_id: claimed.case_id, gateway: claimed.gateway }]
        : []
    )
    const eventName = transform({ input }, ({ input }) =>
      input.action === "represent" ? ServiceScanEvents.CHARGEBACK_REPRESENTED : ServiceScanEvents.CHARGEBACK_LIABILITY_ACCEPTED
    )
    emitEventStep({ eventName, data: events }).config({ name: "servicescan-emit-dispute-answered" })

    return new WorkflowResponse(
      transform({ claimed, status, outcome }, ({ claimed, status, outcome }): RespondToDisputeWorkflowOutput => ({
        case_id: claimed.id,
        response_status: status,
        error: outcome.sent ? null : outcome.error,
        refused: !outcome.sent && outcome.refused,
      }))
    )
  }
)
