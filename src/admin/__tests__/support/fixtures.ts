import type { Chargeback, DisputeCase, ProofRequest } from "../../lib/types"

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
    order: { id: "order_01", display_id: 1001, email: "ada@example.com", customer_name: "Ada Lovelace" },
    ...overrides,
  }
}

export function list<T = Chargeback>(items: T[], count = items.length, offset = 0, limit = 20) {
  return { items, count, offset, limit }
}

/** `YYYY-MM-DD`, `days` from today in UTC (the calendar the backend checks reply-by days in). */
export function utcDay(days = 0): string {
  return new Date(Date.now() + days * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
}

export const CASE_ID = "397892775806"

/** A Worldpay case in the merchant's queue, three days before its reply-by day, not answered yet. */
export function disputeCase(overrides: Partial<DisputeCase> = {}): DisputeCase {
  return {
    id: "sscase_01",
    gateway: "worldpay",
    case_id: CASE_ID,
    status: "matched",
    match_note: null,
    chargeback_id: "chbk_01",
    order_id: "order_01",
    amount: 49.99,
    currency_code: "eur",
    cycle: "First Chargeback",
    reason_code: "4837",
    reason_description: "No Cardholder Authorization",
    queue: "Merchant",
    awaiting_merchant: true,
    reply_by: utcDay(3),
    issued_on: utcDay(-2),
    processor_transaction_id: "834262947682512345",
    processor_order_id: "order_01",
    card_last4: "4444",
    card_type: "MC",
    acquirer_reference_number: "82953534959521791610982",
    activities: {
      items: [
        {
          date: utcDay(-1),
          type: "Assign To Merchant",
          fromQueue: "Vantiv",
          toQueue: "Merchant",
          settlementAmountMinor: 4999,
          settlementCurrencyCode: "EUR",
        },
      ],
    },
    last_activity_on: utcDay(-1),
    response_status: "none",
    document_id: null,
    document_uploaded_at: null,
    represented_at: null,
    liability_accepted_at: null,
    response_error: null,
    outcome: null,
    pack_bytes: null,
    pack_generated_at: null,
    pack_downscaled: false,
    created_at: "2025-03-01T09:00:00.000Z",
    updated_at: "2025-03-01T09:00:00.000Z",
    ...overrides,
  }
}

/** A chargeback imported from a processor case, with its evidence ready (one valid scan). */
export function caseChargeback(caseOverrides: Partial<DisputeCase> = {}, overrides: Partial<Chargeback> = {}): Chargeback {
  return chargeback({
    external_id: CASE_ID,
    source: "processor",
    reason: "No Cardholder Authorization",
    reason_code: "4837",
    dispute_case: disputeCase(caseOverrides),
    ...overrides,
  })
}
