import { deriveChargebackStatus } from "../chargeback-status"
import { CHARGEBACK_OUTCOMES } from "../../types"

describe("deriveChargebackStatus", () => {
  const none = { hasValidScan: false, hasInFlight: false }

  it("is evidence_ready as soon as one scan is valid, even with more requests in flight", () => {
    expect(deriveChargebackStatus("evidence_pending", { hasValidScan: true, hasInFlight: true })).toBe("evidence_ready")
    expect(deriveChargebackStatus("no_evidence", { hasValidScan: true, hasInFlight: false })).toBe("evidence_ready")
  })

  it("is evidence_pending while a proof request is on its way", () => {
    expect(deriveChargebackStatus("open", { hasValidScan: false, hasInFlight: true })).toBe("evidence_pending")
    expect(deriveChargebackStatus("no_evidence", { hasValidScan: false, hasInFlight: true })).toBe("evidence_pending")
  })

  it("is no_evidence without scans, or when every answer was fraud or a refusal", () => {
    expect(deriveChargebackStatus("open", none)).toBe("no_evidence")
    expect(deriveChargebackStatus("evidence_pending", none)).toBe("no_evidence")
  })

  it.each(CHARGEBACK_OUTCOMES)("never leaves the final status %s", (outcome) => {
    expect(deriveChargebackStatus(outcome, { hasValidScan: true, hasInFlight: true })).toBe(outcome)
    expect(deriveChargebackStatus(outcome, none)).toBe(outcome)
  })
})
