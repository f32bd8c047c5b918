import fc from "fast-check"
import { capturedMinorOf, planRefund } from "../amounts"
import type { ServiceScanPaymentData } from "../types"

type Ledger = Pick<ServiceScanPaymentData, "captures" | "refunds">

function capture(id: string, amount: number): ServiceScanPaymentData["captures"][number] {
  return { cnp_txn_id: id, amount_minor: amount, request_id: id, captured_at: "2026-01-01T00:00:00Z" }
}

function refund(of: string, amount: number): ServiceScanPaymentData["refunds"][number] {
  return { cnp_txn_id: `r${of}`, amount_minor: amount, capture_cnp_txn_id: of, request_id: "r", refunded_at: "2026-01-01T00:00:00Z" }
}

describe("planRefund", () => {
  it("credits one capture when one can take the whole refund", () => {
    const ledger: Ledger = { captures: [capture("c1", 500), capture("c2", 1000)], refunds: [refund("c1", 200)] }
    expect(planRefund(ledger, 800)).toEqual({ parts: [{ captureTxnId: "c2", amountMinor: 800 }] })
  })

  it("splits a refund larger than any one capture over the captures, oldest first", () => {
    const ledger: Ledger = { captures: [capture("c1", 500), capture("c2", 500)], refunds: [] }
    expect(planRefund(ledger, 800)).toEqual({
      parts: [
        { captureTxnId: "c1", amountMinor: 500 },
        { captureTxnId: "c2", amountMinor: 300 },
      ],
    })
  })

  it("trims a one-unit overshoot of a rounded amount, refuses more, and never trims a whole-unit amount", () => {
    const ledger: Ledger = { captures: [capture("c1", 500)], refunds: [refund("c1", 100)] }
    expect(planRefund(ledger, 401, true)).toEqual({ parts: [{ captureTxnId: "c1", amountMinor: 400 }] })
    expect(planRefund(ledger, 402, true)).toEqual({ refusal: "exceeds" })
    expect(planRefund(ledger, 401)).toEqual({ refusal: "exceeds" })
  })

  it("refuses to credit a capture made outside Medusa (no processor id)", () => {
    expect(planRefund({ captures: [capture("", 500)], refunds: [] }, 100)).toEqual({ refusal: "capturedElsewhere" })
  })

  it("never plans more than remains captured, and plans exactly the amount asked (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 70_000 }),
        (amounts, asked) => {
          const ledger: Ledger = { captures: amounts.map((a, i) => capture(`c${i}`, a)), refunds: [] }
          const total = capturedMinorOf(ledger)
          const plan = planRefund(ledger, asked, true)
          if (asked > total + 1) {
            expect(plan).toEqual({ refusal: "exceeds" })
            return
          }
          if (!("parts" in plan)) throw new Error("expected a plan")
          const planned = plan.parts.reduce((sum, part) => sum + part.amountMinor, 0)
          expect(planned).toBe(Math.min(asked, total))
          for (const part of plan.parts) {
            const captured = ledger.captures.find((c) => c.cnp_txn_id === part.captureTxnId)
            expect(part.amountMinor).toBeLessThanOrEqual(captured?.amount_minor ?? 0)
          }
        }
      )
    )
  })
})
