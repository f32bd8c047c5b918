import type { DisputeCaseRecord } from "../../../processors/types"
import type { AutoRespondPolicy, DisputeCaseOutcome, DisputeCaseStatus, DisputeResponseStatus } from "../types"

/**
 * Our answer to a processor's chargeback case, decided here and nowhere else
 * (no I/O). The module service and the workflows read a case, ask what an
 * event makes of it, and write the answer. Table in docs/architecture.md.
 *
 * | response | event | next |
 * |---|---|---|
 * | none | start(represent) | representing |
 * | none | start(accept) | accepting |
 * | representing / accepting | start(the same action) | unchanged: a retry after a lost answer, which reads the case before writing |
 * | representing | sent | represented |
 * | accepting | sent | liability_accepted |
 * | representing / accepting | failed, refused by the processor | none (`response_error` says why) |
 * | representing / accepting | failed, outcome unknown | unchanged (the next try reconciles) |
 * | any | processor shows our represent / acceptance | represented / liability_accepted |
 * | none | the reply-by day passed, or the case left the merchant's queue without our answer | expired |
 * | represented / liability_accepted / expired | start | refused: never twice, never late |
 */

export type DisputeAction = "represent" | "accept"

export type DisputeCaseState = {
  status: DisputeCaseStatus
  response_status: DisputeResponseStatus
  /** `YYYY-MM-DD`. */
  reply_by: string | null
  awaiting_merchant: boolean
  outcome: DisputeCaseOutcome | null
}

export type ResponseEvent =
  | { type: "start"; action: DisputeAction; today: string }
  | { type: "sent"; action: DisputeAction }
  | { type: "failed"; action: DisputeAction; refused: boolean; error: string }

export type ResponseChange = {
  response_status?: DisputeResponseStatus
  response_error?: string | null
}

export type ResponseDecision = { ok: true; change: ResponseChange } | { ok: false; reason: string }

const IN_PROGRESS: Record<DisputeAction, DisputeResponseStatus> = { represent: "representing", accept: "accepting" }
const DONE: Record<DisputeAction, DisputeResponseStatus> = { represent: "represented", accept: "liability_accepted" }

/** Processor activities (their own words, any processor) that show our answer landed. */
const REPRESENTED_ACTIVITY = /represent/i
const ACCEPTED_ACTIVITY = /accepts? liability/i

/** Whether the reply-by day is behind us. Days compare as strings (`YYYY-MM-DD`). */
export function isPastReplyBy(replyBy: string | null, today: string): boolean {
  return replyBy !== null && today > replyBy
}

/** What `event` makes of our answer to a case. */
export function decideResponse(state: DisputeCaseState, event: ResponseEvent): ResponseDecision {
  const refuse = (reason: string): ResponseDecision => ({ ok: false, reason })
  switch (event.type) {
    case "start": {
      if (state.status !== "matched") {
        return refuse("the case is not matched to an order of this store")
      }
      if (state.response_status === DONE.represent || state.response_status === DONE.accept) {
        return refuse(`the case was already answered (${state.response_status.replace("_", " ")})`)
      }
      if (state.response_status === "expired" || isPastReplyBy(state.reply_by, event.today)) {
        return refuse(`the reply-by day (${state.reply_by ?? "unknown"}) has passed`)
      }
      if (state.response_status === IN_PROGRESS.represent || state.response_status === IN_PROGRESS.accept) {
        // A retry after a lost answer may only finish what was started.
        return state.response_status === IN_PROGRESS[event.action]
          ? { ok: true, change: {} }
          : refuse(`another answer (${state.response_status}) is under way`)
      }
      if (!state.awaiting_merchant) {
        return refuse("the processor does not wait for the merchant's answer on this case")
      }
      return { ok: true, change: { response_status: IN_PROGRESS[event.action], response_error: null } }
    }
    case "sent":
      return state.response_status === IN_PROGRESS[event.action]
        ? { ok: true, change: { response_status: DONE[event.action], response_error: null } }
        : refuse(`no ${event.action} is under way`)
    case "failed":
      if (state.response_status !== IN_PROGRESS[event.action]) {
        return refuse(`no ${event.action} is under way`)
      }
      // A refusal settles it (nothing was done); an unknown outcome stays under way for the next try to reconcile.
      return {
        ok: true,
        change: event.refused ? { response_status: "none", response_error: event.error } : { response_error: event.error },
      }
  }
}

/**
 * What a fresh read of the case at the processor says about our answer and
 * the network's decision: the processor's record wins over ours.
 */
export function reconcileWithProcessor(
  state: DisputeCaseState,
  record: Pick<DisputeCaseRecord, "activities" | "awaitingMerchant" | "replyBy" | "outcome">,
  today: string
): ResponseChange & { outcome?: DisputeCaseOutcome } {
  const change: ResponseChange & { outcome?: DisputeCaseOutcome } = {}
  const types = record.activities.map((activity) => activity.type)
  if (types.some((type) => ACCEPTED_ACTIVITY.test(type))) {
    change.response_status = "liability_accepted"
  } else if (types.some((type) => REPRESENTED_ACTIVITY.test(type))) {
    change.response_status = "represented"
  } else if (state.response_status === "none" && (!record.awaitingMerchant || isPastReplyBy(record.replyBy ?? null, today))) {
    change.response_status = "expired"
  }
  if (record.outcome && record.outcome !== state.outcome) {
    change.outcome = record.outcome
  }
  if (change.response_status === state.response_status) {
    delete change.response_status
  }
  return change
}

/** What the module's `autoRespond` policy does once a chargeback's evidence is complete. */
export function autoResponse(
  policy: AutoRespondPolicy,
  evidence: { hasValidScan: boolean; hasInFlight: boolean; allInvalid: boolean }
): DisputeAction | null {
  if (policy === "off" || evidence.hasInFlight) {
    return null
  }
  if (evidence.hasValidScan) {
    return "represent"
  }
  if (policy === "represent-valid-accept-invalid" && evidence.allInvalid) {
    return "accept"
  }
  return null
}

/** A stored case's activities (its `activities` column holds `{ items }`), newest first. */
export function caseActivities(row: { activities: Record<string, unknown> | null }): DisputeCaseRecord["activities"] {
  const items = row.activities?.items
  return Array.isArray(items) ? (items as DisputeCaseRecord["activities"]) : []
}
