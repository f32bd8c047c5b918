import { ChargebackStatus, isFinalChargebackStatus } from "../types"

/** What a chargeback's proof requests say, summed up (one aggregate query computes it). */
export type EvidenceSummary = {
  /** Some complete proof request has a scan judged `valid`. */
  hasValidScan: boolean
  /** Some proof request is still `to_submit`, `submitting` or `pending`. */
  hasInFlight: boolean
}

/**
 * The status a chargeback should have given its proof requests (see types.ts
 * for the meaning of each). One function, so that every workflow that touches
 * proof requests agrees on it.
 */
export function deriveChargebackStatus(current: ChargebackStatus, evidence: EvidenceSummary): ChargebackStatus {
  if (isFinalChargebackStatus(current)) {
    return current
  }
  if (evidence.hasValidScan) {
    return "evidence_ready"
  }
  if (evidence.hasInFlight) {
    return "evidence_pending"
  }
  return "no_evidence"
}
