import { DISPUTE_GATEWAY_METHODS } from "../../../../processors/types"
import { resolveModuleOptions } from "../../options"

const WORLDPAY = { type: "worldpay", url: "https://chargebacks.example", user: "merchant", password: "secret" } as const
const ADYEN = { type: "adyen", merchantAccount: "ShopECOM", apiKey: "AQE_key", hmacKey: "00".repeat(32) } as const

describe("module options", () => {
  it("fills in the defaults", () => {
    expect(resolveModuleOptions({ baseUrl: "https://disputes.example", secretKey: "sk" })).toEqual({
      baseUrl: "https://disputes.example",
      secretKey: "sk",
      pollIntervalMs: 3 * 60 * 60 * 1000,
      archiveImages: true,
      timeoutMs: 10_000,
      maxRetries: 2,
      concurrency: 8,
      pageSize: 250,
      retryBaseDelayMs: 5 * 60 * 1000,
      resubmitUnconfirmedAfterMs: 60 * 60 * 1000,
      checkoutReconcileAfterMs: 60 * 60 * 1000,
      webhookToleranceSeconds: 300,
      autoRespond: "off",
      maxDocumentBytes: 2 * 1024 * 1024,
      caseImportOverlapDays: 2,
      caseImportLookbackDays: 30,
      alerts: { dueSoonDays: 5, feed: true },
      monitoring: { visaRatioPercent: 0.9, mastercardRatioPercent: 1.5, mastercardMinChargebacks: 100 },
      checkoutSignals: { enabled: true, retentionDays: 400 },
      allowInsecureUrls: false,
    })
  })

  describe("checkoutSignals", () => {
    const base = { baseUrl: "https://disputes.example" }

    it("keeps signals 400 days by default, and takes a store's own choice", () => {
      expect(resolveModuleOptions(base).checkoutSignals).toEqual({ enabled: true, retentionDays: 400 })
      expect(resolveModuleOptions({ ...base, checkoutSignals: { enabled: false } }).checkoutSignals).toEqual({ enabled: false, retentionDays: 400 })
      expect(resolveModuleOptions({ ...base, checkoutSignals: { retentionDays: 365 } }).checkoutSignals).toEqual({ enabled: true, retentionDays: 365 })
    })

    it.each([
      [{ retentionDays: 0 }, /checkoutSignals\.retentionDays: must be at least 1 day/],
      [{ retentionDays: 3_651 }, /checkoutSignals\.retentionDays: must be at most 3650 days/],
      [{ retentionDays: 400.5 }, /checkoutSignals\.retentionDays: must be a whole number of days/],
      [{ retentionDays: "400" }, /checkoutSignals\.retentionDays: must be a whole number of days/],
      [{ enabled: "no" }, /checkoutSignals\.enabled: must be true or false/],
    ])("refuses %j, naming the field", (checkoutSignals, message) => {
      expect(() => resolveModuleOptions({ ...base, checkoutSignals })).toThrow(message)
    })
  })

  it.each([
    [{}, /baseUrl/],
    [{ baseUrl: "ftp://x" }, /baseUrl: must be an http\(s\) URL/],
    [{ baseUrl: "https://x", secretKey: " " }, /secretKey: must not be empty/],
    [{ baseUrl: "https://x", webhookSecret: "short" }, /webhookSecret: must be at least 16 characters/],
    [{ baseUrl: "https://x", pollIntervalMs: 10 }, /pollIntervalMs/],
    [{ baseUrl: "https://x", concurrency: 0 }, /concurrency/],
    [{ baseUrl: "https://x", archiveImages: "yes" }, /archiveImages/],
    [{ baseUrl: "https://x", autoRespond: "always" }, /autoRespond/],
    [{ baseUrl: "https://x", caseImportOverlapDays: -1 }, /caseImportOverlapDays/],
    [{ baseUrl: "https://x", alerts: { dueSoonDays: 0 } }, /alerts.dueSoonDays/],
    [{ baseUrl: "https://x", alerts: { emailTemplate: "case-alert" } }, /alerts.emailTo: is required with emailTemplate/],
    [{ baseUrl: "https://x", alerts: { emailTemplate: "case-alert", emailTo: ["not an address"] } }, /alerts.emailTo.0: must be an email address/],
    [{ baseUrl: "https://x", disputeGateway: { ...WORLDPAY, maxRetrievalBytes: 1000 } }, /disputeGateway.maxRetrievalBytes/],
    [{ baseUrl: "https://x", disputeGateway: { ...WORLDPAY, retrievalTimeoutMs: 10 } }, /disputeGateway.retrievalTimeoutMs/],
    // A misspelt key is named, not dropped: the option would look set and do nothing.
    [{ baseUrl: "https://x", disputeGateway: { ...WORLDPAY, maxRetreivalBytes: 1 } }, /disputeGateway: has unknown keys: maxRetreivalBytes/],
    [{ baseUrl: "https://x", disputeGateway: { ...WORLDPAY, password: "" } }, /disputeGateway.password: must not be empty/],
    [{ baseUrl: "https://x", disputeGateway: { ...WORLDPAY, merchantId: "demo-merchant" } }, /disputeGateway.merchantId: must be the Worldpay merchant id, a number/],
    [{ baseUrl: "https://x", disputeGateway: { type: "stripe" } }, /disputeGateway: must be \{ type: "worldpay", url, user, password \} or \{ type: "adyen", .* or an object implementing DisputeGateway/],
    // A list takes one gateway per processor, each named by its place; a name twice is refused (cases are stored by it).
    [{ baseUrl: "https://x", disputeGateway: [WORLDPAY, { ...WORLDPAY, password: "" }] }, /disputeGateway.1.password: must not be empty/],
    [{ baseUrl: "https://x", disputeGateway: [WORLDPAY, WORLDPAY] }, /disputeGateway: lists two gateways named "worldpay"/],
    [{ baseUrl: "https://x", disputeGateway: [] }, /disputeGateway: must list at least one gateway/],
    [{ baseUrl: "https://x", disputeGateway: [WORLDPAY, { ...ADYEN, disputesUrl: "http://adyen.example/v30" }] }, /disputeGateway.1.disputesUrl: must be an https URL/],
  ])("names the field of a bad option %p", (options, message) => {
    expect(() => resolveModuleOptions(options)).toThrow(message)
  })

  it("passes the Worldpay gateway's retrieval limits on: a store with more cases at once than 64 MiB holds raises the cap", () => {
    const resolved = resolveModuleOptions({
      baseUrl: "https://x",
      disputeGateway: { ...WORLDPAY, maxRetrievalBytes: 256 * 1024 * 1024, retrievalTimeoutMs: 180_000 },
    })
    expect(resolved.disputeGateway).toEqual([{ ...WORLDPAY, maxRetrievalBytes: 256 * 1024 * 1024, retrievalTimeoutMs: 180_000 }])
  })

  it("takes a store's own DisputeGateway object as it is", () => {
    const own = Object.fromEntries([["name", "acquirer"], ...DISPUTE_GATEWAY_METHODS.map((method) => [method, async () => undefined])])
    expect(resolveModuleOptions({ baseUrl: "https://x", disputeGateway: own }).disputeGateway?.[0]).toBe(own)
  })

  it("takes one gateway per processor as a list: Worldpay's and Adyen's side by side", () => {
    const resolved = resolveModuleOptions({ baseUrl: "https://x", disputeGateway: [WORLDPAY, ADYEN] })
    expect(resolved.disputeGateway?.map((gateway) => ("type" in gateway ? gateway.type : gateway.name))).toEqual(["worldpay", "adyen"])
  })

  it("never echoes a secret in its error", () => {
    try {
      resolveModuleOptions({ baseUrl: "nope", secretKey: "sk_live_topsecret" })
    } catch (error) {
      expect((error as Error).message).not.toContain("sk_live_topsecret")
    }
  })
})
