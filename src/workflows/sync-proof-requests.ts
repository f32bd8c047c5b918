import { createWorkflow, transform, WorkflowData, WorkflowResponse } from "@medusajs/framework/workflows-sdk"
import { emitEventStep } from "@medusajs/medusa/core-flows"
import {
  ChargebackEvidenceReadyEvent,
  ClaimedProofRequest,
  ProofRequestCompletedEvent,
  ServiceScanEvents,
} from "../modules/servicescan/types"
import { applyProofResultsStep } from "./steps/apply-proof-results"
import { fetchProofResultsStep } from "./steps/fetch-proof-results"
import { listCasesNeedingAnAnswerStep } from "./steps/list-cases-needing-an-answer"
import { refreshChargebackStatusesStep } from "./steps/refresh-chargeback-statuses"
import { submitProofRequestsStep } from "./steps/submit-proof-requests"

/** Statuses a send may start from (to_submit; submitting whose answer was lost; failed, on an admin's resubmit). */
const SENDABLE = new Set<string>(["to_submit", "submitting", "failed"])

export type SyncProofRequestsWorkflowInput = {
  /** Proof requests claimed by the caller (see `claimProofRequests`). */
  proof_requests: ClaimedProofRequest[]
  /** Also re-send ones whose submission outcome is unknown before their wait is over, or that failed (an admin's decision). */
  resubmit?: boolean
  /** The rows were claimed as due by the poll job (a lost answer whose wait is over is re-sent). */
  due?: boolean
  /** ISO time to compute the next poll times from; defaults to now. */
  now?: string
}

/**
 * One page of the poll job (or an admin's "check now"): sends proof requests
 * that still wait to be sent, checks pending ones at ServiceScan, stores the
 * ground truths, updates the chargebacks and emits
 * `servicescan.proof_request.completed` and `servicescan.chargeback.evidence_ready`,
 * and `servicescan.case.needs_attention` for a case whose evidence completed
 * that the `autoRespond` policy will not answer.
 *
 * Events are emitted when the workflow succeeds, at least once; subscribers
 * must be idempotent (the image archiver is).
 */
export const syncProofRequestsWorkflow = createWorkflow(
  "servicescan-sync-proof-requests",
  (input: WorkflowData<SyncProofRequestsWorkflowInput>) => {
    // Which rows may really go out is decided again under row locks (lifecycle/proof-request.ts):
    // the plan only splits what to send from what to poll.
    const plan = transform({ input }, ({ input }) => {
      return {
        submit: input.proof_requests.filter((pr) => SENDABLE.has(pr.status)).map((pr) => pr.id),
        poll: input.proof_requests
          .filter((pr) => pr.status === "pending")
          .map((pr) => ({ id: pr.id, remote_id: pr.remote_id })),
        chargeback_ids: [...new Set(input.proof_requests.map((pr) => pr.chargeback_id))],
      }
    })

    const submitted = submitProofRequestsStep({ ids: plan.submit, resubmit: input.resubmit, due: input.due, now: input.now })
    const outcomes = fetchProofResultsStep({ proof_requests: plan.poll })
    const completed = applyProofResultsStep({ outcomes, now: input.now })
    const changes = refreshChargebackStatusesStep({ chargeback_ids: plan.chargeback_ids })

    const events = transform({ completed, changes }, ({ completed, changes }) => ({
      completed: completed.map(
        (pr): ProofRequestCompletedEvent => ({ id: pr.id, chargeback_id: pr.chargeback_id, remote_id: pr.remote_id })
      ),
      evidence_ready: changes
        .filter((change) => change.to === "evidence_ready")
        .map(
          (change): ChargebackEvidenceReadyEvent => ({
            id: change.id,
            order_id: change.order_id,
            external_id: change.external_id,
          })
        ),
    }))
    emitEventStep({ eventName: ServiceScanEvents.PROOF_REQUEST_COMPLETED, data: events.completed }).config({
      name: "servicescan-emit-proof-request-completed",
    })
    emitEventStep({ eventName: ServiceScanEvents.CHARGEBACK_EVIDENCE_READY, data: events.evidence_ready }).config({
      name: "servicescan-emit-chargeback-evidence-ready",
    })

    // A case whose evidence just completed and that the autoRespond policy will not answer waits for a person.
    const completedEvidence = transform({ changes, input }, ({ changes, input }) => ({
      chargeback_ids: changes.filter((change) => change.to === "evidence_ready" || change.to === "no_evidence").map((change) => change.id),
      today: (input.now ? new Date(input.now) : new Date()).toISOString().slice(0, 10),
    }))
    const needingAnAnswer = listCasesNeedingAnAnswerStep(completedEvidence)
    emitEventStep({ eventName: ServiceScanEvents.CASE_NEEDS_ATTENTION, data: needingAnAnswer }).config({
      name: "servicescan-emit-case-needs-attention",
    })

    const summary = transform({ submitted, outcomes, completed, changes }, ({ submitted, outcomes, completed, changes }) => ({
      submitted: submitted.filter((s) => s.status === "pending").length,
      submission_errors: submitted.filter((s) => s.status !== "pending").length,
      checked: outcomes.filter((o) => o.kind !== "skipped").length,
      still_pending: outcomes.filter((o) => o.kind === "pending").length,
      completed: completed.length,
      errors: outcomes.filter((o) => o.kind === "error" || o.kind === "failed").length,
      skipped: outcomes.filter((o) => o.kind === "skipped").length,
      chargebacks_changed: changes.length,
    }))
    return new WorkflowResponse(summary)
  }
)
