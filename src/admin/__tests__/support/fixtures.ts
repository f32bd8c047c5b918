import type { Chargeback, ProofRequest } from "../../lib/types"

export const VALID_SCAN = "9b2f6c1e-3d4a-4f8b-a1c2-7e5d9f0b3a61"
export const INVALID_SCAN = "1c9e7a52-8b0d-4e3f-9a6b-2d4c8e1f5b73"
export const FRAUD_SCAN = "5e8d2b14-7c3a-4b9e-8f1d-6a0c3e9b2d47"
export const UNREPORTED_SCAN = "e4a1c8d2-0b6f-4d3a-b7e9-1f5c2a8d6b90"

/** The service's own image URL: it must never reach the page. */
export const SERVICE_IMAGE_URL = `https://disputes.servicescan.example/disputes/image/${VALID_SCAN}.jpg`

export function proofRequest(overrides: Partial<ProofRequest> = {}): ProofRequest {
  return {
    id: "sspr_01",
    remote_id: "pr_remote_1",
    status: "complete",
    attempts: 0,
    next_poll_at: null,
    last_error: null,
    completed_at: "2025-03-02T10:00:00.000Z",
    scans: [
      { id: "ssev_1", scan_id: VALID_SCAN, ground_truth: "valid", image_url: SERVICE_IMAGE_URL },
      { id: "ssev_2", scan_id: INVALID_SCAN, ground_truth: "invalid", image_url: null },
      { id: "ssev_3", scan_id: FRAUD_SCAN, ground_truth: "fraud", image_url: null },
    ],
    ...overrides,
  }
}

export function chargeback(overrides: Partial<Chargeback> = {}): Chargeback {
  return {
    id: "chbk_01",
    external_id: "dp_1001",
    order_id: "order_01",
    amount: 49.99,
    currency_code: "eur",
    reason: "Fraudulent transaction",
    reason_code: "10.4",
    due_by: "2099-03-10T23:59:59.000Z",
    status: "evidence_ready",
    source: "webhook",
    created_at: "2025-03-01T09:00:00.000Z",
    proof_requests: [proofRequest()],
    ...overrides,
  }
}

export function list(items: Chargeback[], count = items.length, offset = 0, limit = 20) {
  return { items, count, offset, limit }
}
