import { MedusaError } from "@medusajs/framework/utils"
import {
  HttpConnectionError,
  HttpStatusError,
  HttpTimeoutError,
} from "../../../lib/http"
import {
  declineError,
  formCodeError,
  ServiceScanPaymentError,
  toMedusaError,
} from "../errors"
import { DeclineReason, GatewayConfigurationError, GatewayProtocolError } from "../../../processors/types"

const request = { method: "POST", url: "https://cnp.example/online" }

describe("toMedusaError", () => {
  it("passes MedusaErrors through", () => {
    const original = new MedusaError(MedusaError.Types.INVALID_DATA, "bad")
    expect(toMedusaError(original, { operation: "refund", stage: "processor" })).toBe(original)
  })

  const authorize = { operation: "authorize", stage: "processor", gateway: "worldpay" } as const
  const decline = (reason: DeclineReason, responseCode: string, message: string) =>
    declineError({ outcome: "declined", reason, responseCode, message }, authorize)

  it.each([
    [decline("insufficient_funds", "110", "Insufficient Funds"), "declined", "Your card was declined. Please check your card details or use a different card."],
    [formCodeError("882", authorize), "declined", "The card details were not valid: the security code is too short (882). Please check and try again."],
    [decline("issuer_unavailable", "101", "Issuer Unavailable"), "unavailable", "We could not process your payment right now. Please try again in a moment."],
    [decline("merchant_configuration", "321", "Invalid Merchant"), "configuration", "We could not process your payment right now. Please try again later or choose another payment method."],
    [new GatewayConfigurationError("refused", { gateway: "worldpay", responseCode: "1", processorMessage: "Authentication failed" }), "configuration", "We could not process your payment right now. Please try again later or choose another payment method."],
    // Never connected: nothing reached the processor, so the failure is settled (a processor that may have acted is CONFLICT, below).
    [new HttpTimeoutError(100, { request, connected: false }), "unavailable", "We could not reach the payment service. Please try again in a moment."],
    [new HttpConnectionError({ request, connected: false }), "unavailable", "We could not reach the payment service. Please try again in a moment."],
  ])("authorize: %s -> %s", (error, category, message) => {
    const mapped = toMedusaError(error, authorize)
    expect(mapped).toBeInstanceOf(ServiceScanPaymentError)
    expect(mapped).toMatchObject({ type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR, category, message })
  })

  it.each([
    ["a reset once connected", new HttpConnectionError({ request, connected: true })],
    ["a timeout once connected", new HttpTimeoutError(100, { request, connected: true })],
    ["an untyped error from a custom gateway", new TypeError("boom")],
    ["an unreadable answer", new GatewayProtocolError("<html>", { gateway: "worldpay" })],
  ])("authorize: the processor may have acted after %s, so the storefront must not treat it as settled (CONFLICT, 409)", (_case, error) => {
    const mapped = toMedusaError(error, { operation: "authorize", stage: "processor", gateway: "worldpay" })
    expect(mapped).toMatchObject({ type: MedusaError.Types.CONFLICT, category: expect.any(String), outcomeUnknown: true })
    // The exchange is a read: an unknown outcome there charged nothing, so it stays a settled failure.
    expect(toMedusaError(error, { operation: "authorize", stage: "exchange" })).toMatchObject({
      type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
    })
  })

  it("tells the merchant the raw code on admin operations", () => {
    const refused = declineError({
      outcome: "declined",
      reason: "transaction_not_found",
      responseCode: "360",
      message: "No transaction found with specified transaction Id",
    }, { operation: "refund", stage: "processor", gateway: "worldpay" })
    expect(refused).toMatchObject({
      type: MedusaError.Types.NOT_ALLOWED,
      message: "Worldpay did not refund the payment (360 No transaction found with specified transaction Id).",
      processorResponse: { code: "360" },
    })
    const timeout = toMedusaError(new HttpTimeoutError(100, { request }), {
      operation: "capture",
      stage: "processor",
      gateway: "worldpay",
    })
    expect(timeout).toMatchObject({ type: MedusaError.Types.UNEXPECTED_STATE, outcomeUnknown: true })
    expect(timeout.message).toMatch(/^Could not capture the payment: .*timed out after 100 ms\. The outcome is unknown; retrying is safe/)
  })

  it.each([
    ["a reset once connected", new HttpConnectionError({ request, connected: true }), true],
    ["a refused connection", new HttpConnectionError({ request, connected: false }), false],
    ["a timeout once connected", new HttpTimeoutError(100, { request, connected: true }), true],
    ["a timeout while connecting", new HttpTimeoutError(100, { request, connected: false }), false],
  ])("calls the processor's outcome unknown after %s: %s", (_case, error, unknown) => {
    expect(toMedusaError(error, { operation: "authorize", stage: "processor", gateway: "worldpay" })).toMatchObject({
      outcomeUnknown: unknown,
    })
  })

  it("reads the exchange's 4xx answers", () => {
    const exchange = (status: number, body: unknown) =>
      toMedusaError(new HttpStatusError(status, body, { request: { method: "GET", url: "https://c/x" } }), {
        operation: "authorize",
        stage: "exchange",
      })
    expect(exchange(404, { error: "Unknown processor: acme" })).toMatchObject({ category: "configuration" })
    expect(exchange(404, { error: "Form not found" })).toMatchObject({ category: "form_expired" })
    expect(exchange(400, { error: "??" })).toMatchObject({
      category: "form_expired",
      message: "We could not read your card details. Please enter them again.",
    })
    expect(exchange(429, "slow down")).toMatchObject({ category: "unavailable" })
    expect(exchange(408, "Request Timeout")).toMatchObject({ category: "unavailable" })
    expect(exchange(425, "Too Early")).toMatchObject({ category: "unavailable" })
  })

  it("reads a processor's 408/425 as temporary, not as a wrong gateway url", () => {
    for (const status of [408, 425]) {
      const mapped = toMedusaError(new HttpStatusError(status, "later", { request }), {
        operation: "capture",
        stage: "processor",
        gateway: "worldpay",
      })
      expect(mapped).toMatchObject({ category: "unavailable", outcomeUnknown: true })
      expect(mapped.message).not.toMatch(/gateway url/)
    }
  })
})
