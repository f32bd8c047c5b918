import type { GatewayResult, OperationOutcome, ProcessorGateway } from "../../../processors/types"
import { capturedMinorOf, planRefund } from "../amounts"
import { applyOperationOutcome } from "../operation-outcomes"
import { authorizedPayment, capturedPayment, createProvider, logEntries, SESSION_REQUEST_ID, submittedSession } from "./helpers"

/**
 * What the provider sends and records for a processor that decides captures,
 * refunds and cancels later (Adyen's `201 received`), and how a later outcome
 * is applied to the payment data. Through the real provider with a store's own
 * gateway object: the wire of the built-in Adyen gateway is
 * processors/adyen/__tests__/payment-gateway.unit.spec.ts.
 */

const PSP = "PSP0000000000001"

/** A gateway without `lookup`, recording every call, answering every modification `201 received`. */
function asyncGateway() {
  const calls: Array<[string, Record<string, unknown>]> = []
  const received = (id: string): GatewayResult => ({ outcome: "approved", pending: true, transactionId: id, responseCode: "received", message: "received" })
  const gateway: ProcessorGateway = {
    name: "acme-async",
    authorize: async (request) => {
      calls.push(["authorize", request])
      return { outcome: "approved", transactionId: PSP, responseCode: "Authorised", message: "Authorised" }
    },
    sale: async (request) => {
      calls.push(["sale", request])
      return { outcome: "approved", transactionId: PSP, responseCode: "Authorised", message: "Authorised" }
    },
    capture: async (request) => {
      calls.push(["capture", request])
      return received("CAPTURE000000001")
    },
    refund: async (request) => {
      calls.push(["refund", request])
      return received("REFUND0000000001")
    },
    cancel: async (request) => {
      calls.push(["cancel", request])
      return received("CANCEL0000000001")
    },
    releaseByReference: async (request) => {
      calls.push(["releaseByReference", request])
      return received("TECHCANCEL000001")
    },
  }
  return { gateway, calls }
}

describe("a processor that decides later (pending results)", () => {
  it("a whole capture names what remains and the currency, and is recorded pending", async () => {
    const { gateway, calls } = asyncGateway()
    const { provider } = createProvider({ gateway }, { capt_1: 10.5 })
    const { data } = await provider.capturePayment({ data: authorizedPayment({ cnp_txn_id: PSP }), context: { idempotency_key: "capt_1" } })
    expect(calls).toEqual([
      ["capture", { requestId: SESSION_REQUEST_ID, transactionId: PSP, remainingAmount: 1050, currencyCode: "usd" }],
    ])
    expect(data).toMatchObject({ status: "captured", captures: [{ cnp_txn_id: "CAPTURE000000001", amount_minor: 1050, outcome: "pending" }] })
  })

  it("a partial capture names its amount and what remains", async () => {
    const { gateway, calls } = asyncGateway()
    const { provider } = createProvider({ gateway }, { capt_2: 4 })
    await provider.capturePayment({ data: authorizedPayment({ cnp_txn_id: PSP }), context: { idempotency_key: "capt_2" } })
    expect(calls[0][1]).toMatchObject({ amount: 400, remainingAmount: 1050, currencyCode: "usd", transactionId: PSP })
  })

  it("a refund names the payment's id beside the capture's, and is recorded pending", async () => {
    const { gateway, calls } = asyncGateway()
    const { provider } = createProvider({ gateway })
    const payment = capturedPayment({ cnp_txn_id: PSP })
    const { data } = await provider.refundPayment({ data: payment, amount: 5, context: { idempotency_key: "ref_1" } })
    expect(calls[0][1]).toMatchObject({ transactionId: "84000000000000002", paymentTransactionId: PSP, amount: 500, currencyCode: "usd" })
    expect(data).toMatchObject({ refunds: [{ cnp_txn_id: "REFUND0000000001", outcome: "pending" }] })
  })

  it("a cancel names the payment's id, and is recorded pending", async () => {
    const { gateway, calls } = asyncGateway()
    const { provider } = createProvider({ gateway })
    const { data } = await provider.cancelPayment({ data: authorizedPayment({ cnp_txn_id: PSP }), context: {} })
    expect(calls[0]).toEqual(["cancel", { requestId: SESSION_REQUEST_ID, transactionId: PSP, target: "authorization", paymentTransactionId: PSP }])
    expect(data).toMatchObject({ status: "canceled", cancellation: { cnp_txn_id: "CANCEL0000000001", outcome: "pending" } })
  })

  it("a submitted session replaced without an authorization recorded: released by reference, since there is no lookup", async () => {
    const { gateway, calls } = asyncGateway()
    const { provider, logger } = createProvider({ gateway })
    const data = await submittedSession(provider)
    await provider.deletePayment({ data, context: {} })
    expect(calls).toEqual([
      ["releaseByReference", { requestId: SESSION_REQUEST_ID, orderId: SESSION_REQUEST_ID, target: "authorization" }],
    ])
    expect(logEntries(logger)).toEqual(expect.arrayContaining([expect.objectContaining({ event: "blind_release_requested" })]))
  })
})

describe("applyOperationOutcome", () => {
  const outcome = (overrides: Partial<OperationOutcome>): OperationOutcome => ({
    operation: "capture",
    paymentTransactionId: PSP,
    transactionId: "CAPTURE000000001",
    success: true,
    occurredAt: "2026-11-28T01:00:00+01:00",
    ...overrides,
  })
  const pendingCapture = authorizedPayment({
    cnp_txn_id: PSP,
    status: "captured",
    captures: [{ cnp_txn_id: "CAPTURE000000001", amount_minor: 1050, request_id: "r", captured_at: "t", outcome: "pending" }],
  })

  it("decides a pending capture once: a repeated notification changes nothing", () => {
    const first = applyOperationOutcome(pendingCapture, outcome({}))
    expect(first.effect).toBe("applied")
    expect(first.data.captures[0]).toMatchObject({ outcome: "succeeded", outcome_at: "2026-11-28T01:00:00+01:00" })
    expect(applyOperationOutcome(first.data, outcome({})).effect).toBe("unchanged")
  })

  it("a success can still fail later (CAPTURE_FAILED after CAPTURE), but a failure never succeeds again", () => {
    const succeeded = applyOperationOutcome(pendingCapture, outcome({})).data
    const failed = applyOperationOutcome(succeeded, outcome({ success: false, reason: "Capture failed at the scheme" }))
    expect(failed.effect).toBe("applied")
    expect(failed.data.captures[0]).toMatchObject({ outcome: "failed", outcome_reason: "Capture failed at the scheme" })
    expect(failed.data.status).toBe("authorized")
    expect(capturedMinorOf(failed.data)).toBe(0)
    expect(applyOperationOutcome(failed.data, outcome({}))).toEqual({ data: failed.data, effect: "unchanged" })
    expect(applyOperationOutcome(failed.data, outcome({ success: false, reason: "again" })).effect).toBe("unchanged")
  })

  it("a refund reversed after its success (REFUNDED_REVERSED) gives its amount back to what can be refunded", () => {
    const payment = capturedPayment({
      cnp_txn_id: PSP,
      refunds: [{ cnp_txn_id: "REFUND0000000001", amount_minor: 1050, capture_cnp_txn_id: "84000000000000002", request_id: "r", refunded_at: "t", outcome: "succeeded" }],
    })
    const { data, effect } = applyOperationOutcome(payment, outcome({ operation: "refund", transactionId: "REFUND0000000001", success: false, reason: "REFUNDED_REVERSED" }))
    expect(effect).toBe("applied")
    expect(planRefund(data, 1050)).toEqual({ parts: [{ captureTxnId: "84000000000000002", amountMinor: 1050 }] })
  })

  it("a reversal confirmed as a refund (CANCEL_OR_REFUND) is found by its id on the cancellation, and its failure restores the capture", () => {
    const reversed = capturedPayment({
      cnp_txn_id: PSP,
      status: "canceled",
      cancellation: {
        kind: "capture",
        cnp_txn_id: "REVERSAL00000001",
        request_id: "r",
        processor_response: { code: "received", message: "received" },
        canceled_at: "t",
        outcome: "pending",
      },
    })
    const { data, effect } = applyOperationOutcome(reversed, outcome({ operation: "refund", transactionId: "REVERSAL00000001", success: false, reason: "Refused" }))
    expect(effect).toBe("applied")
    expect(data.status).toBe("captured")
    expect(data.cancellation).toMatchObject({ outcome: "failed", outcome_reason: "Refused" })
  })

  it("a failed capture stops counting: the payment is authorized again with nothing captured or refundable", () => {
    const { data, effect } = applyOperationOutcome(pendingCapture, outcome({ success: false, reason: "Insufficient balance on payment" }))
    expect(effect).toBe("applied")
    expect(data.status).toBe("authorized")
    expect(data.captures[0]).toMatchObject({ outcome: "failed", outcome_reason: "Insufficient balance on payment" })
    expect(capturedMinorOf(data)).toBe(0)
    expect(planRefund(data, 1)).toEqual({ refusal: "exceeds" })
  })

  it("a failed refund gives its amount back to what can be refunded", () => {
    const payment = capturedPayment({
      cnp_txn_id: PSP,
      refunds: [{ cnp_txn_id: "REFUND0000000001", amount_minor: 1050, capture_cnp_txn_id: "84000000000000002", request_id: "r", refunded_at: "t", outcome: "pending" }],
    })
    expect(planRefund(payment, 1)).toEqual({ refusal: "exceeds" })
    const { data } = applyOperationOutcome(payment, outcome({ operation: "refund", transactionId: "REFUND0000000001", success: false }))
    expect(planRefund(data, 1050)).toEqual({ parts: [{ captureTxnId: "84000000000000002", amountMinor: 1050 }] })
  })

  it("a failed cancel puts the payment back as it was", () => {
    const canceled = authorizedPayment({
      cnp_txn_id: PSP,
      status: "canceled",
      cancellation: {
        kind: "authorization",
        cnp_txn_id: "CANCEL0000000001",
        request_id: "r",
        processor_response: { code: "received", message: "received" },
        canceled_at: "t",
        outcome: "pending",
      },
    })
    const { data } = applyOperationOutcome(canceled, outcome({ operation: "cancel", transactionId: "CANCEL0000000001", success: false }))
    expect(data.status).toBe("authorized")
    expect(data.cancellation).toMatchObject({ outcome: "failed" })
  })

  it("an operation the payment does not record is unmatched, and nothing changes", () => {
    expect(applyOperationOutcome(pendingCapture, outcome({ transactionId: "ELSEWHERE0000001" }))).toEqual({ data: pendingCapture, effect: "unmatched" })
    expect(applyOperationOutcome(pendingCapture, outcome({ operation: "cancel", transactionId: "ELSEWHERE0000001" })).effect).toBe("unmatched")
  })
})
