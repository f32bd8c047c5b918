import { MedusaError } from "@medusajs/framework/utils"
import type { ProcessorGateway } from "../../../processors/types"
import { ServiceScanProviderService } from "../service"
import { baseOptions, CNP_PASSWORD, createCapturingLogger, PAYMENT_TOKEN_KEY } from "./helpers"

function messageOf(options: unknown): string {
  try {
    ServiceScanProviderService.validateOptions(options as Record<string, unknown>)
  } catch (error) {
    expect(MedusaError.isMedusaError(error)).toBe(true)
    expect((error as MedusaError).type).toBe(MedusaError.Types.INVALID_DATA)
    return (error as Error).message
  }
  throw new Error("expected validateOptions to throw")
}

const own: ProcessorGateway = {
  name: "acme",
  authorize: async () => ({ outcome: "approved", responseCode: "0", message: "" }),
  sale: async () => ({ outcome: "approved", responseCode: "0", message: "" }),
  capture: async () => ({ outcome: "approved", responseCode: "0", message: "" }),
  refund: async () => ({ outcome: "approved", responseCode: "0", message: "" }),
  cancel: async () => ({ outcome: "approved", responseCode: "0", message: "" }),
}

describe("validateOptions", () => {
  it("accepts the Worldpay gateway and a store owner's own gateway", () => {
    expect(() => ServiceScanProviderService.validateOptions(baseOptions())).not.toThrow()
    expect(() => ServiceScanProviderService.validateOptions(baseOptions({ gateway: own, capture: "automatic" }))).not.toThrow()
  })

  it.each([
    ["checkoutUrl", { checkoutUrl: undefined }, "checkoutUrl: is required"],
    ["checkoutUrl", { checkoutUrl: "javascript:alert(1)" }, "checkoutUrl: must be an http(s) URL"],
    ["clientScriptUrl", { clientScriptUrl: "not a url" }, "clientScriptUrl: must be an http(s) URL"],
    ["shareableKey", { shareableKey: "" }, "shareableKey: must not be empty"],
    ["paymentTokenApiKey", { paymentTokenApiKey: undefined }, "paymentTokenApiKey: is required"],
    ["processor", { processor: "world/pay" }, "processor: must be a path segment"],
    ["capture", { capture: "auto" }, 'capture: must be "manual" or "automatic"'],
    ["timeoutMs", { timeoutMs: 10 }, "timeoutMs: must be at least 100 ms"],
    ["savedCards", { savedCards: "on" }, "savedCards: must be { secret } (saved cards)"],
    ["savedCards.secret", { savedCards: { secret: "too-short" } }, "savedCards.secret: must be at least 32 characters"],
    ["savedCards.secret", { savedCards: { secret: "x".repeat(40), keys: [] } }, "savedCards: has unsupported keys: keys"],
    ["maxRetries", { maxRetries: 9 }, "maxRetries: must be at most 5"],
    ["formConfig", { formConfig: { colour: "red" } }, "formConfig: has unsupported keys: colour"],
  ])("names %s", (_field, override, message) => {
    expect(messageOf({ ...baseOptions(), ...override })).toContain(message)
  })

  it("names the Worldpay field that is wrong", () => {
    const message = messageOf(
      baseOptions({ gateway: { type: "worldpay", url: "ftp://x", merchantId: "1", user: "u", password: "" } })
    )
    expect(message).toContain("gateway.url: must be an http(s) URL")
    expect(message).toContain("gateway.password: must not be empty")
  })

  it("names the methods a custom gateway lacks", () => {
    const { cancel: _cancel, refund: _refund, ...partial } = own
    expect(messageOf(baseOptions({ gateway: partial as ProcessorGateway }))).toContain(
      "gateway: does not implement ProcessorGateway: missing refund, cancel"
    )
    expect(messageOf({ ...baseOptions(), gateway: "worldpay" })).toContain('gateway: must be { type: "worldpay"')
  })

  it("lists every problem at once and never echoes secret values", () => {
    const message = messageOf({
      paymentTokenApiKey: PAYMENT_TOKEN_KEY,
      gateway: { type: "worldpay", url: 5, merchantId: "1", user: "u", password: CNP_PASSWORD, extra: true },
    })
    expect(message).toContain("checkoutUrl")
    expect(message).toContain("clientScriptUrl")
    expect(message).toContain("shareableKey")
    expect(message).toContain("gateway.url")
    expect(message).toContain("gateway: has unknown keys: extra")
    expect(message).not.toContain(PAYMENT_TOKEN_KEY)
    expect(message).not.toContain(CNP_PASSWORD)
  })

  it("is what the constructor applies, with defaults", () => {
    expect(
      () => new ServiceScanProviderService({ logger: createCapturingLogger() }, { ...baseOptions(), checkoutUrl: "" })
    ).toThrow(/checkoutUrl/)
  })
})
