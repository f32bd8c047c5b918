// The one place that says which status a chargeback shows: the list, the top
// of its page and the order widget all read it from here, so none of them can
// say "Evidence ready" while the case panel below says the evidence was sent.
import {
  DISPUTE_CASE_OUTCOME_MEANINGS,
  DISPUTE_RESPONSE_STATUS_MEANINGS,
} from "../../modules/servicescan/lifecycle/status-meanings"
import { chargebackStatusLabel, responseStatusLabel, type BadgeColor } from "./format"
import type { Chargeback, ChargebackStatus } from "./types"

/** What a chargeback's case adds to its own status: our answer at the processor, and the network's decision. */
export const CASE_DRIVEN_STATUSES = ["representing", "represented", "accepting", "liability_accepted", "expired"] as const
export type CaseDrivenStatus = (typeof CASE_DRIVEN_STATUSES)[number]

/** The status a chargeback is shown with: its own, or its case's when the case has moved further. */
export type ChargebackDisplayStatus = ChargebackStatus | CaseDrivenStatus

const CASE_DRIVEN = new Set<string>(CASE_DRIVEN_STATUSES)
const FINAL = new Set<string>(["won", "lost", "closed"])

/**
 * Which status a chargeback shows, in order of what decides it:
 * 1. its own final status (won, lost, closed: set by an admin or by the decision the processor reported);
 * 2. the network's decision on its case (won, lost), even before the chargeback caught up;
 * 3. our answer to its case (represented, liability accepted, expired, or one being sent);
 * 4. otherwise its own status (open, evidence pending, evidence ready, no evidence).
 */
export function chargebackDisplayStatus(
  chargeback: Pick<Chargeback, "status" | "dispute_case">
): ChargebackDisplayStatus | string {
  if (FINAL.has(chargeback.status)) {
    return chargeback.status
  }
  const disputeCase = chargeback.dispute_case
  if (disputeCase?.outcome === "won" || disputeCase?.outcome === "lost") {
    return disputeCase.outcome
  }
  if (disputeCase?.response_status && CASE_DRIVEN.has(disputeCase.response_status)) {
    return disputeCase.response_status
  }
  return chargeback.status
}

type StatusView = {
  /** The status key: the translation key under `status.chargeback.`. */
  status: string
  /** English words (the translations' source, and what a missing translation falls back to). */
  label: string
  color: BadgeColor
  description: string
}

/**
 * A case-driven status reads as the case panel's answer reads
 * (`responseStatusLabel`), with one difference: a chargeback whose evidence
 * went up is "Represented", the card networks' word, where the panel says
 * what we did ("Evidence sent").
 */
function caseDrivenBadge(status: CaseDrivenStatus): { label: string; color: BadgeColor } {
  const { label, color } = responseStatusLabel(status)
  return { label: status === "represented" ? "Represented" : label, color }
}

/** A chargeback's shown status with its badge and the sentence under it. */
export function chargebackDisplayView(chargeback: Pick<Chargeback, "status" | "dispute_case">): StatusView {
  const status = chargebackDisplayStatus(chargeback)
  if (CASE_DRIVEN.has(status)) {
    const key = status as CaseDrivenStatus
    return { status, ...caseDrivenBadge(key), description: DISPUTE_RESPONSE_STATUS_MEANINGS[key] }
  }
  if (status !== chargeback.status && (status === "won" || status === "lost")) {
    // Decided by the network, not yet by the chargeback's own lifecycle.
    return { status, ...chargebackStatusLabel(status), description: DISPUTE_CASE_OUTCOME_MEANINGS[status] }
  }
  return { status, ...chargebackStatusLabel(status) }
}
