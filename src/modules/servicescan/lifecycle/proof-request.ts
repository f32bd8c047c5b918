import type { ProofRequestStatus } from "../types"
import { pollDelayMs, retryDelayMs } from "./backoff"

/**
 * The life of a proof request, decided here and nowhere else. No I/O: the
 * module service reads rows, asks {@link decide} what each event makes of
 * them, and writes the answer; the job and the workflows only say which
 * events happened. The table and a diagram are in docs/architecture.md.
 *
 * ServiceScan's `PUT /disputes/proofRequest` has no idempotency key, so the
 * one hard rule is about sending: a PUT goes out only from a row claimed for
 * it (`send`), never while another PUT for the same row may still be on the
 * wire (`in_flight_until` in the future), and a lost answer is re-sent only
 * after a bounded wait (or when an admin asks). A duplicate proof request at
 * ServiceScan costs little; a lost one loses the dispute.
 *
 * | state | event | next |
 * |---|---|---|
 * | to_submit | send | submitting (in flight) |
 * | submitting, in flight | accepted | pending |
 * | submitting, in flight | not_created | to_submit (backoff) |
 * | submitting, in flight | rejected | failed |
 * | submitting, in flight | unknown | submitting, unconfirmed (re-sent after `resubmitAfterMs`) |
 * | submitting, in flight | not_sent | the state it was claimed from |
 * | submitting, unconfirmed | send (due, or an admin's resubmit) | submitting (in flight) |
 * | failed | send (an admin's resubmit only) | submitting (in flight) |
 * | pending | polled_pending | pending (next poll) |
 * | pending | polled_complete | complete |
 * | pending | polled_failed | failed |
 * | pending | poll_error | pending (backoff) |
 * | pending | poll_skipped | pending (due again at once) |
 * | any other | any | refused |
 *
 * An answer for a PUT that is no longer the row's latest (its sender was
 * presumed dead and the row re-sent) is `late`: its remote id, if any, is
 * kept in `other_remote_ids` and nothing else changes.
 */

/** The columns the lifecycle reads. */
export type ProofRequestState = {
  status: ProofRequestStatus
  remote_id: string | null
  other_remote_ids: string[]
  /** Calls for this proof request that failed in a row. */
  attempts: number
  /** PUTs sent for this row so far; an answer names the PUT it belongs to. */
  submissions: number
  /** While a PUT may be on the wire: until when its sender is alive by contract. */
  in_flight_until: Date | null
  next_poll_at: Date | null
}

/** The columns the lifecycle writes; absent ones are unchanged. */
export type ProofRequestChange = Partial<ProofRequestState> & {
  last_error?: string | null
  last_polled_at?: Date
  submitted_at?: Date
  completed_at?: Date | null
}

export type ProofRequestEvent =
  /** Claim the row for a PUT. `resubmit`: an admin's explicit decision. */
  | { type: "send"; resubmit?: boolean }
  /** The service created it. `submission`: the PUT this answers. */
  | { type: "accepted"; submission: number; remote_id: string }
  /** Proof that nothing was created (connection refused, 503, 4xx other than 400). */
  | { type: "not_created"; submission: number; error: string }
  /** The service refused these scan ids for good (400). */
  | { type: "rejected"; submission: number; error: string }
  /** No answer that says what happened (timeout or reset once connected, 500, unreadable 2xx). */
  | { type: "unknown"; submission: number; error: string }
  /** Claimed but never sent (the run stopped first); `from` is the state it was claimed from. */
  | { type: "not_sent"; submission: number; from: ProofRequestState }
  | { type: "polled_pending" }
  | { type: "polled_complete" }
  /** The service does not know the proof request, or it belongs to another account. */
  | { type: "polled_failed"; error: string }
  /** Worth another try later (timeout, 5xx, malformed body). */
  | { type: "poll_error"; error: string }
  /** Not checked: the run stopped on an authentication error first. */
  | { type: "poll_skipped" }

export type ProofRequestSettings = {
  pollIntervalMs: number
  retryBaseDelayMs: number
  /** How long after a lost answer the PUT is sent again by itself. */
  resubmitAfterMs: number
  /** The longest a live sender keeps a PUT on the wire (a page of PUTs, one attempt each). */
  inFlightMs: number
  random?: () => number
}

export type Decision =
  | { ok: true; change: ProofRequestChange }
  /** The event does not apply to this state; nothing may be written. */
  | { ok: false; reason: string }

/** Statuses the poll job claims when due (`next_poll_at <= now`). */
export const DUE_STATUSES: readonly ProofRequestStatus[] = ["to_submit", "submitting", "pending"]

/** Statuses during which evidence may still arrive (the chargeback is `evidence_pending`). */
export const OPEN_STATUSES: readonly ProofRequestStatus[] = ["to_submit", "submitting", "pending"]

/** Whether a PUT for this row may still be on the wire at `now`. */
export function isInFlight(state: Pick<ProofRequestState, "status" | "in_flight_until">, now: Date): boolean {
  return state.status === "submitting" && state.in_flight_until !== null && state.in_flight_until > now
}

/** What the job or an admin's "check now" does with a claimed row: send it, poll it, or leave it. */
export function plannedAction(
  state: Pick<ProofRequestState, "status" | "in_flight_until" | "next_poll_at">,
  options: { now: Date; resubmit?: boolean }
): "send" | "poll" | "none" {
  if (state.status === "pending") {
    return "poll"
  }
  return canSend(state, options) ? "send" : "none"
}

/** The `send` rule on its own, for planning (the same one {@link decide} applies). */
export function canSend(
  state: Pick<ProofRequestState, "status" | "in_flight_until" | "next_poll_at">,
  { now, resubmit = false }: { now: Date; resubmit?: boolean }
): boolean {
  switch (state.status) {
    case "to_submit":
      return true
    case "submitting":
      // Unconfirmed: re-sent once its wait is over, or at once when an admin asks; never while in flight.
      return !isInFlight(state, now) && (resubmit || (state.next_poll_at !== null && state.next_poll_at <= now))
    case "failed":
      return resubmit
    default:
      return false
  }
}

/** What `event` makes of a proof request in `state` at `now`. */
export function decide(
  state: ProofRequestState,
  event: ProofRequestEvent,
  now: Date,
  settings: ProofRequestSettings
): Decision {
  const refuse = (why: string): Decision => ({ ok: false, reason: `${event.type} refused for a ${describe(state, now)} proof request: ${why}` })
  const retryAt = (attempts: number) =>
    new Date(now.getTime() + retryDelayMs(attempts, settings.retryBaseDelayMs, settings.pollIntervalMs, settings.random))
  const nextPoll = () => new Date(now.getTime() + pollDelayMs(settings.pollIntervalMs, settings.random))

  switch (event.type) {
    case "send": {
      if (!canSend(state, { now, resubmit: event.resubmit })) {
        return refuse(
          isInFlight(state, now)
            ? "a PUT for it may still be on the wire"
            : state.status === "submitting"
              ? "its lost answer is re-sent only after the wait, or when an admin asks"
              : state.status === "failed"
                ? "only an admin re-sends a failed proof request"
                : "it was already accepted"
        )
      }
      const inFlightUntil = new Date(now.getTime() + settings.inFlightMs)
      return {
        ok: true,
        change: {
          status: "submitting",
          submissions: state.submissions + 1,
          attempts: state.attempts + 1,
          in_flight_until: inFlightUntil,
          // A sender that dies leaves the row unconfirmed: due for a re-send after the same wait as a lost answer.
          next_poll_at: new Date(inFlightUntil.getTime() + settings.resubmitAfterMs),
          submitted_at: now,
          last_error: null,
        },
      }
    }
    case "accepted":
    case "not_created":
    case "rejected":
    case "unknown":
    case "not_sent": {
      if (state.status !== "submitting" || state.submissions !== event.submission) {
        // A late answer to an earlier PUT: the row was re-sent since, or moved on.
        if (event.type === "accepted" && event.remote_id !== state.remote_id && !state.other_remote_ids.includes(event.remote_id)) {
          return { ok: true, change: { other_remote_ids: [...state.other_remote_ids, event.remote_id] } }
        }
        return refuse("the answer belongs to an earlier submission")
      }
      switch (event.type) {
        case "accepted":
          return {
            ok: true,
            change: {
              status: "pending",
              remote_id: event.remote_id,
              // An earlier PUT's id that had surfaced stays on record.
              other_remote_ids: state.remote_id ? [...state.other_remote_ids, state.remote_id] : state.other_remote_ids,
              attempts: 0,
              in_flight_until: null,
              next_poll_at: nextPoll(),
              last_error: null,
            },
          }
        case "not_created":
          return {
            ok: true,
            change: { status: "to_submit", in_flight_until: null, next_poll_at: retryAt(state.attempts), last_error: event.error },
          }
        case "rejected":
          return { ok: true, change: { status: "failed", in_flight_until: null, next_poll_at: null, last_error: event.error } }
        case "unknown":
          return {
            ok: true,
            change: {
              status: "submitting",
              in_flight_until: null,
              next_poll_at: new Date(now.getTime() + settings.resubmitAfterMs),
              last_error: `Submission outcome unknown (${event.error}). ServiceScan may have created it; it is sent again by itself after ${Math.round(settings.resubmitAfterMs / 60_000)} min unless an admin resubmits sooner.`,
            },
          }
        case "not_sent":
          return {
            ok: true,
            change: {
              status: event.from.status,
              attempts: event.from.attempts,
              submissions: event.from.submissions,
              in_flight_until: event.from.in_flight_until,
              next_poll_at: now,
            },
          }
      }
      break
    }
    case "polled_pending":
    case "polled_complete":
    case "polled_failed":
    case "poll_error":
    case "poll_skipped": {
      if (state.status !== "pending") {
        return refuse("only a pending proof request is polled")
      }
      switch (event.type) {
        case "polled_pending":
          return { ok: true, change: { attempts: 0, last_error: null, last_polled_at: now, next_poll_at: nextPoll() } }
        case "polled_complete":
          return {
            ok: true,
            change: { status: "complete", attempts: 0, last_error: null, last_polled_at: now, completed_at: now, next_poll_at: null },
          }
        case "polled_failed":
          return { ok: true, change: { status: "failed", last_error: event.error, last_polled_at: now, next_poll_at: null } }
        case "poll_error":
          return {
            ok: true,
            change: {
              attempts: state.attempts + 1,
              last_error: event.error,
              last_polled_at: now,
              next_poll_at: retryAt(state.attempts + 1),
            },
          }
        case "poll_skipped":
          // Give the claim back at once; a configuration error keeps the job from spinning on it.
          return { ok: true, change: { next_poll_at: now } }
      }
    }
  }
  return refuse("unknown event")
}

function describe(state: Pick<ProofRequestState, "status" | "in_flight_until">, now: Date): string {
  if (state.status !== "submitting") {
    return state.status
  }
  return isInFlight(state, now) ? "submitting (in flight)" : "submitting (unconfirmed)"
}
