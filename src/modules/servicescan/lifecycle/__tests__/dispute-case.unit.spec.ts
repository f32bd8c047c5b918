import type { DisputeCaseRecord } from "../../../../processors/types"
import type { DisputeResponseStatus } from "../../types"
import { autoResponse, decideResponse, DisputeCaseState, isPastReplyBy, reconcileWithProcessor, ResponseEvent } from "../dispute-case"

const TODAY = "2026-11-25"
const open: DisputeCaseState = {
  status: "matched",
  response_status: "none",
  reply_by: "2026-12-09",
  awaiting_merchant: true,
  outcome: null,
}
const at = (response_status: DisputeResponseStatus, extra: Partial<DisputeCaseState> = {}): DisputeCaseState => ({
  ...open,
  response_status,
  ...extra,
})

const EVENTS: Record<string, ResponseEvent> = {
  start_represent: { type: "start", action: "represent", today: TODAY },
  start_accept: { type: "start", action: "accept", today: TODAY },
  sent_represent: { type: "sent", action: "represent" },
  sent_accept: { type: "sent", action: "accept" },
  refused_represent: { type: "failed", action: "represent", refused: true, error: "Cannot perform activity" },
  unknown_represent: { type: "failed", action: "represent", refused: false, error: "socket hang up" },
  refused_accept: { type: "failed", action: "accept", refused: true, error: "Cannot perform activity" },
  unknown_accept: { type: "failed", action: "accept", refused: false, error: "timeout" },
}

/** The response status each (answer, event) leads to, or "refused". */
const TABLE: Record<DisputeResponseStatus, Record<string, string>> = {
  none: { start_represent: "representing", start_accept: "accepting" },
  representing: { start_represent: "representing", sent_represent: "represented", refused_represent: "none", unknown_represent: "representing" },
  accepting: { start_accept: "accepting", sent_accept: "liability_accepted", refused_accept: "none", unknown_accept: "accepting" },
  represented: {},
  liability_accepted: {},
  expired: {},
}

describe("our answer to a case", () => {
  const cases = (Object.keys(TABLE) as DisputeResponseStatus[]).flatMap((status) =>
    Object.keys(EVENTS).map((event) => [status, event, TABLE[status][event] ?? "refused"] as const)
  )

  it.each(cases)("%s + %s -> %s", (status, event, expected) => {
    const decision = decideResponse(at(status), EVENTS[event])
    if (expected === "refused") {
      expect(decision.ok).toBe(false)
      return
    }
    if (!decision.ok) throw new Error(decision.reason)
    expect(decision.change.response_status ?? status).toBe(expected)
  })

  it("covers every answer and every event", () => {
    expect(cases).toHaveLength(6 * 8)
  })

  it("a refusal keeps the processor's reason; an unknown outcome keeps it too, for the admin", () => {
    expect(decideResponse(at("representing"), EVENTS.refused_represent)).toEqual({
      ok: true,
      change: { response_status: "none", response_error: "Cannot perform activity" },
    })
    expect(decideResponse(at("representing"), EVENTS.unknown_represent)).toEqual({ ok: true, change: { response_error: "socket hang up" } })
  })

  it.each([
    ["a case matched to no order", at("none", { status: "unmatched" }), /not matched/],
    ["past the reply-by day", at("none", { reply_by: "2026-11-24" }), /reply-by day \(2026-11-24\) has passed/],
    ["out of the merchant's queue", at("none", { awaiting_merchant: false }), /does not wait for the merchant/],
    ["answered", at("represented"), /already answered \(represented\)/],
    ["another answer under way", at("accepting"), /another answer \(accepting\)/],
  ])("never starts for %s", (_case, state, reason) => {
    expect(decideResponse(state, EVENTS.start_represent)).toEqual({ ok: false, reason: expect.stringMatching(reason) })
  })

  it("the reply-by day itself is still in time", () => {
    expect(isPastReplyBy("2026-11-25", TODAY)).toBe(false)
    expect(isPastReplyBy("2026-11-24", TODAY)).toBe(true)
    expect(isPastReplyBy(null, TODAY)).toBe(false)
  })
})

describe("what a fresh read of the case says", () => {
  const record = (activities: string[], extra: Partial<DisputeCaseRecord> = {}): DisputeCaseRecord => ({
    caseId: "1",
    amountMinor: 100,
    currencyCode: "USD",
    awaitingMerchant: true,
    replyBy: "2026-12-09",
    activities: activities.map((type) => ({ date: TODAY, type })),
    ...extra,
  })

  it("the processor's activities win over our record", () => {
    expect(reconcileWithProcessor(at("representing"), record(["Merchant Represent", "Assign To Merchant"]), TODAY)).toEqual({
      response_status: "represented",
    })
    expect(reconcileWithProcessor(at("none"), record(["Merchant Accepts Liability"]), TODAY)).toEqual({
      response_status: "liability_accepted",
    })
  })

  it("an unanswered case out of the merchant's queue, or past its day, is expired; nothing changes otherwise", () => {
    expect(reconcileWithProcessor(at("none"), record(["Reply Period Expired"], { awaitingMerchant: false }), TODAY)).toEqual({
      response_status: "expired",
    })
    expect(reconcileWithProcessor(at("none"), record([], { replyBy: "2026-11-20" }), TODAY)).toEqual({ response_status: "expired" })
    expect(reconcileWithProcessor(at("none"), record(["Assign To Merchant"]), TODAY)).toEqual({})
    expect(reconcileWithProcessor(at("represented"), record(["Merchant Represent"]), TODAY)).toEqual({})
  })

  it("carries the network's decision once", () => {
    expect(reconcileWithProcessor(at("represented"), record(["Case Won"], { outcome: "won" }), TODAY)).toEqual({ outcome: "won" })
    expect(reconcileWithProcessor(at("represented", { outcome: "won" }), record(["Case Won"], { outcome: "won" }), TODAY)).toEqual({})
  })
})

describe("the autoRespond policy", () => {
  const valid = { hasValidScan: true, hasInFlight: false, allInvalid: false }
  const fraud = { hasValidScan: false, hasInFlight: false, allInvalid: true }
  const waiting = { hasValidScan: false, hasInFlight: true, allInvalid: false }
  const nothing = { hasValidScan: false, hasInFlight: false, allInvalid: false }

  it.each([
    ["off", valid, null],
    ["off", fraud, null],
    ["represent-valid", valid, "represent"],
    ["represent-valid", fraud, null],
    ["represent-valid-accept-invalid", valid, "represent"],
    ["represent-valid-accept-invalid", fraud, "accept"],
    ["represent-valid-accept-invalid", waiting, null],
    ["represent-valid-accept-invalid", nothing, null],
  ] as const)("%s with %o -> %s", (policy, evidence, expected) => {
    expect(autoResponse(policy, evidence)).toBe(expected)
  })
})
