import { formatDay, formatDateTime, gatewayDisplayName, groundTruthLabel, todayUtc } from "./format"
import type { Chargeback, DisputeAction, DisputeCase } from "./types"

/**
 * Whether the admin can answer a processor case now, and if not, why, in the
 * words the page shows next to the disabled button.
 *
 * The checks are the backend's own (modules/servicescan/lifecycle/dispute-case.ts,
 * `decideResponse` on a "start" event), in the same order, so the button and
 * the server agree; a spec holds the two together over every state. The one
 * check of the page's own is the evidence: representing needs a scan worth
 * disputing, which is what the evidence pack shows the card network.
 */
/**
 * `reason` is the English sentence; `key` and `params` name the same sentence
 * under `case.refusal` in src/admin/i18n for the admin's language.
 */
export type Availability =
  | { allowed: true }
  | { allowed: false; reason: string; key: string; params?: Record<string, string> }

/** Where a chargeback's evidence stands, for the represent button. */
export type EvidenceState = "ready" | "pending" | "none"

const IN_FLIGHT = new Set(["to_submit", "submitting", "pending"])

export function evidenceState(chargeback: Pick<Chargeback, "status" | "proof_requests">): EvidenceState {
  const prs = chargeback.proof_requests
  if (!prs) {
    // The row was read without its evidence: the status says as much as we know.
    return chargeback.status === "evidence_ready" ? "ready" : chargeback.status === "evidence_pending" ? "pending" : "none"
  }
  const valid = prs.some(
    (pr) => pr.status === "complete" && (pr.scans ?? []).some((scan) => groundTruthLabel(scan.ground_truth).verdict === "valid")
  )
  if (valid) {
    return "ready"
  }
  return prs.some((pr) => IN_FLIGHT.has(pr.status)) ? "pending" : "none"
}

const IN_PROGRESS: Record<DisputeAction, string> = { represent: "representing", accept: "accepting" }

type CaseState = Pick<
  DisputeCase,
  | "status"
  | "response_status"
  | "reply_by"
  | "awaiting_merchant"
  | "queue"
  | "gateway"
  | "represented_at"
  | "liability_accepted_at"
>

export function responseAvailability(
  disputeCase: CaseState,
  action: DisputeAction,
  options: { evidence: EvidenceState; today?: string }
): Availability {
  const today = options.today ?? todayUtc()
  const gateway = gatewayDisplayName(disputeCase.gateway)
  const refuse = (reason: string, key: string, params?: Record<string, string>): Availability => ({ allowed: false, reason, key, params })
  if (disputeCase.status !== "matched") {
    return refuse("The case is not matched to an order yet.", "notMatched")
  }
  if (disputeCase.response_status === "represented") {
    const when = disputeCase.represented_at ? ` on ${formatDateTime(disputeCase.represented_at)}` : ""
    return refuse(`Already answered: the evidence was sent${when}.`, when ? "representedOn" : "represented", {
      when: disputeCase.represented_at ? formatDateTime(disputeCase.represented_at) : "",
    })
  }
  if (disputeCase.response_status === "liability_accepted") {
    const when = disputeCase.liability_accepted_at ? ` on ${formatDateTime(disputeCase.liability_accepted_at)}` : ""
    return refuse(`Already answered: liability was accepted${when}.`, when ? "acceptedOn" : "accepted", {
      when: disputeCase.liability_accepted_at ? formatDateTime(disputeCase.liability_accepted_at) : "",
    })
  }
  if (disputeCase.response_status === "expired" || (disputeCase.reply_by !== null && today > disputeCase.reply_by)) {
    return refuse(
      disputeCase.reply_by
        ? `The reply-by day (${formatDay(disputeCase.reply_by)}) has passed; ${gateway} takes no answer any more.`
        : `The reply period has expired; ${gateway} takes no answer any more.`,
      disputeCase.reply_by ? "replyByPassed" : "expired",
      { day: disputeCase.reply_by ? formatDay(disputeCase.reply_by) : "", gateway }
    )
  }
  if (disputeCase.response_status === "representing" || disputeCase.response_status === "accepting") {
    if (disputeCase.response_status !== IN_PROGRESS[action]) {
      return refuse(
        disputeCase.response_status === "representing"
          ? "The evidence is being sent; liability cannot be accepted at the same time."
          : "Liability is being accepted; evidence cannot be sent at the same time.",
        disputeCase.response_status === "representing" ? "busyRepresenting" : "busyAccepting"
      )
    }
    // The same answer again finishes what was started (the backend reads the case before writing).
  } else if (!disputeCase.awaiting_merchant) {
    return refuse(
      `${gateway} is not waiting for your answer${disputeCase.queue ? ` (the case is in its “${disputeCase.queue}” queue)` : ""}.`,
      disputeCase.queue ? "notWaitingQueue" : "notWaiting",
      { gateway, queue: disputeCase.queue ?? "" }
    )
  }
  if (action === "represent" && options.evidence !== "ready") {
    return refuse(
      options.evidence === "pending"
        ? "The evidence is not ready: ServiceScan has not returned its verdict yet."
        : "No scan was judged worth disputing, so there is no evidence to send. Attach other scans, or accept liability.",
      options.evidence === "pending" ? "evidencePending" : "noEvidence"
    )
  }
  return { allowed: true }
}
