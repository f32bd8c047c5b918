import {
  canSend,
  decide,
  isInFlight,
  plannedAction,
  ProofRequestEvent,
  ProofRequestSettings,
  ProofRequestState,
} from "../proof-request"

const NOW = new Date("2026-11-25T12:00:00Z")
const MIN = 60_000
const settings: ProofRequestSettings = {
  pollIntervalMs: 180 * MIN,
  retryBaseDelayMs: 5 * MIN,
  resubmitAfterMs: 60 * MIN,
  inFlightMs: 10 * MIN,
  random: () => 0.5,
}
const at = (minutes: number) => new Date(NOW.getTime() + minutes * MIN)

const base: ProofRequestState = {
  status: "to_submit",
  remote_id: null,
  other_remote_ids: [],
  attempts: 0,
  submissions: 0,
  in_flight_until: null,
  next_poll_at: NOW,
}

/** Every state the lifecycle distinguishes. */
const STATES: Record<string, ProofRequestState> = {
  to_submit: base,
  in_flight: { ...base, status: "submitting", submissions: 1, attempts: 1, in_flight_until: at(5), next_poll_at: at(65) },
  unconfirmed_due: { ...base, status: "submitting", submissions: 1, attempts: 1, in_flight_until: null, next_poll_at: at(-1) },
  unconfirmed_waiting: { ...base, status: "submitting", submissions: 1, attempts: 1, in_flight_until: null, next_poll_at: at(30) },
  dead_sender_waiting: { ...base, status: "submitting", submissions: 1, attempts: 1, in_flight_until: at(-1), next_poll_at: at(59) },
  pending: { ...base, status: "pending", submissions: 1, remote_id: "rem_1", next_poll_at: at(-1) },
  complete: { ...base, status: "complete", submissions: 1, remote_id: "rem_1", next_poll_at: null },
  failed: { ...base, status: "failed", submissions: 1, remote_id: null, next_poll_at: null },
}

/** Every event, with the submission number of the state's latest PUT where one applies. */
function events(state: ProofRequestState): Record<string, ProofRequestEvent> {
  const submission = state.submissions
  return {
    send: { type: "send" },
    resubmit: { type: "send", resubmit: true },
    accepted: { type: "accepted", submission, remote_id: "rem_new" },
    not_created: { type: "not_created", submission, error: "503 Service Unavailable" },
    rejected: { type: "rejected", submission, error: "400 invalid scan ids" },
    unknown: { type: "unknown", submission, error: "socket hang up" },
    not_sent: { type: "not_sent", submission, from: STATES.to_submit },
    polled_pending: { type: "polled_pending" },
    polled_complete: { type: "polled_complete" },
    polled_failed: { type: "polled_failed", error: "404 Proof request not found" },
    poll_error: { type: "poll_error", error: "timeout" },
    poll_skipped: { type: "poll_skipped" },
  }
}

/** The whole table: the status each (state, event) leads to, or "refused". */
const TABLE: Record<string, Record<string, string>> = {
  // An id that surfaces for an earlier PUT is recorded whatever the row became since.
  to_submit: { send: "submitting", resubmit: "submitting", accepted: "to_submit" },
  in_flight: {
    accepted: "pending",
    not_created: "to_submit",
    rejected: "failed",
    unknown: "submitting",
    not_sent: "to_submit",
  },
  unconfirmed_due: {
    send: "submitting",
    resubmit: "submitting",
    // The latest PUT's answer may still surface; it is taken.
    accepted: "pending",
    not_created: "to_submit",
    rejected: "failed",
    unknown: "submitting",
    not_sent: "to_submit",
  },
  unconfirmed_waiting: {
    resubmit: "submitting",
    accepted: "pending",
    not_created: "to_submit",
    rejected: "failed",
    unknown: "submitting",
    not_sent: "to_submit",
  },
  dead_sender_waiting: {
    resubmit: "submitting",
    accepted: "pending",
    not_created: "to_submit",
    rejected: "failed",
    unknown: "submitting",
    not_sent: "to_submit",
  },
  pending: {
    // A late answer to an earlier PUT only records its id.
    accepted: "pending",
    polled_pending: "pending",
    polled_complete: "complete",
    polled_failed: "failed",
    poll_error: "pending",
    poll_skipped: "pending",
  },
  complete: { accepted: "complete" },
  failed: { resubmit: "submitting", accepted: "failed" },
}

describe("the proof request lifecycle", () => {
  const cases = Object.keys(STATES).flatMap((state) =>
    Object.keys(events(STATES[state])).map((event) => [state, event, TABLE[state][event] ?? "refused"] as const)
  )

  it.each(cases)("%s + %s -> %s", (stateName, eventName, expected) => {
    const state = STATES[stateName]
    const decision = decide(state, events(state)[eventName], NOW, settings)
    if (expected === "refused") {
      expect(decision).toEqual({ ok: false, reason: expect.stringContaining(`${events(state)[eventName].type} refused`) })
      return
    }
    if (!decision.ok) throw new Error(decision.reason)
    expect({ ...state, ...decision.change }.status).toBe(expected)
  })

  it("covers every state and every event", () => {
    expect(cases).toHaveLength(Object.keys(STATES).length * 12)
  })

  describe("sending", () => {
    it("claims the row in flight, counts the PUT, and schedules a re-send for a sender that dies", () => {
      const decision = decide(STATES.to_submit, { type: "send" }, NOW, settings)
      expect(decision).toEqual({
        ok: true,
        change: {
          status: "submitting",
          submissions: 1,
          attempts: 1,
          in_flight_until: at(10),
          next_poll_at: at(70),
          submitted_at: NOW,
          last_error: null,
        },
      })
      const claimed = { ...STATES.to_submit, ...(decision.ok ? decision.change : {}) }
      expect(isInFlight(claimed, NOW)).toBe(true)
      expect(isInFlight(claimed, at(11))).toBe(false)
    })

    it("never sends while a PUT may be on the wire, not even when an admin asks", () => {
      expect(decide(STATES.in_flight, { type: "send", resubmit: true }, NOW, settings)).toEqual({
        ok: false,
        reason: expect.stringMatching(/may still be on the wire/),
      })
      expect(canSend(STATES.in_flight, { now: NOW, resubmit: true })).toBe(false)
    })

    it("re-sends a lost answer by itself once its wait is over", () => {
      expect(canSend(STATES.unconfirmed_waiting, { now: NOW })).toBe(false)
      expect(canSend(STATES.unconfirmed_waiting, { now: at(31) })).toBe(true)
    })
  })

  describe("answers", () => {
    it("a lost answer waits resubmitAfterMs and says so", () => {
      const decision = decide(STATES.in_flight, events(STATES.in_flight).unknown, NOW, settings)
      expect(decision).toMatchObject({
        ok: true,
        change: { status: "submitting", in_flight_until: null, next_poll_at: at(60), last_error: expect.stringMatching(/outcome unknown.*60 min/) },
      })
    })

    it("nothing created: back to to_submit with backoff (equal jitter of the base delay)", () => {
      const decision = decide(STATES.in_flight, events(STATES.in_flight).not_created, NOW, settings)
      expect(decision).toMatchObject({ ok: true, change: { status: "to_submit", next_poll_at: new Date(NOW.getTime() + 3.75 * MIN) } })
    })

    it("accepted: pending with the remote id, polled after the interval", () => {
      const decision = decide(STATES.in_flight, events(STATES.in_flight).accepted, NOW, settings)
      expect(decision).toMatchObject({
        ok: true,
        change: { status: "pending", remote_id: "rem_new", attempts: 0, in_flight_until: null, next_poll_at: at(180) },
      })
    })

    it("an answer to an earlier PUT never overwrites the latest one: its remote id is kept beside it", () => {
      const resent = { ...STATES.pending, submissions: 2, remote_id: "rem_2" }
      const late: ProofRequestEvent = { type: "accepted", submission: 1, remote_id: "rem_1" }
      expect(decide(resent, late, NOW, settings)).toEqual({ ok: true, change: { other_remote_ids: ["rem_1"] } })
      // Recorded once.
      expect(decide({ ...resent, other_remote_ids: ["rem_1"] }, late, NOW, settings).ok).toBe(false)
      // A late failure says nothing about the row.
      expect(decide(resent, { type: "unknown", submission: 1, error: "x" }, NOW, settings).ok).toBe(false)
    })

    it("an admin's re-send of a failed request keeps the old remote id on record", () => {
      const failed = { ...STATES.failed, remote_id: "rem_old" }
      const claimed = decide(failed, { type: "send", resubmit: true }, NOW, settings)
      if (!claimed.ok) throw new Error(claimed.reason)
      const row = { ...failed, ...claimed.change }
      const accepted = decide(row, { type: "accepted", submission: row.submissions, remote_id: "rem_new" }, NOW, settings)
      expect(accepted).toMatchObject({ ok: true, change: { remote_id: "rem_new", other_remote_ids: ["rem_old"] } })
    })

    it("a claim never sent goes back to the state it was claimed from", () => {
      const from = STATES.unconfirmed_due
      const claimed = decide(from, { type: "send" }, NOW, settings)
      if (!claimed.ok) throw new Error(claimed.reason)
      const row = { ...from, ...claimed.change }
      const back = decide(row, { type: "not_sent", submission: row.submissions, from }, NOW, settings)
      expect(back).toMatchObject({
        ok: true,
        change: { status: "submitting", submissions: 1, attempts: 1, in_flight_until: null, next_poll_at: NOW },
      })
    })
  })

  describe("polls", () => {
    it("an error backs off from the attempts so far; a clean answer resets them", () => {
      const failing = { ...STATES.pending, attempts: 2 }
      expect(decide(failing, { type: "poll_error", error: "timeout" }, NOW, settings)).toMatchObject({
        ok: true,
        change: { attempts: 3, last_error: "timeout", next_poll_at: new Date(NOW.getTime() + 15 * MIN) },
      })
      expect(decide(failing, { type: "polled_pending" }, NOW, settings)).toMatchObject({
        ok: true,
        change: { attempts: 0, last_error: null, last_polled_at: NOW },
      })
    })
  })

  it("plans: pending rows are polled, sendable ones sent, the rest left alone", () => {
    expect(plannedAction(STATES.pending, { now: NOW })).toBe("poll")
    expect(plannedAction(STATES.to_submit, { now: NOW })).toBe("send")
    expect(plannedAction(STATES.unconfirmed_waiting, { now: NOW })).toBe("none")
    expect(plannedAction(STATES.unconfirmed_waiting, { now: NOW, resubmit: true })).toBe("send")
    expect(plannedAction(STATES.complete, { now: NOW, resubmit: true })).toBe("none")
  })
})
