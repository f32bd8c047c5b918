import { WebhookRejection } from "../../types"
import { ADYEN_MAX_EVENT_AGE_MS, AdyenWebhook } from "../notification-events"
import { hasValidSignature, hmacSignature, signingString } from "../notifications"
import { adyen } from "../index"
import { adyenOptionsSchema } from "../options"

/** Adyen's published vector (docs: verify-hmac-signatures), recomputed in /work/brief/adyen.md §5. */
const DOCS_KEY = "44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056"
const DOCS_ITEM = {
  pspReference: "7914073381342284",
  merchantAccountCode: "TestMerchant",
  merchantReference: "TestPayment-1407325143704",
  amount: { value: 1130, currency: "EUR" },
  eventCode: "AUTHORISATION",
  success: "true" as const,
}
const KEY = "5934AD24EED2B42F39D1F8BBAA602FF05E7D291AC95BC71EA5538AC41B6F0F56"
const BASIC = { user: "adyen-webhook", password: "demo-webhook-password" }
const AUTHORIZATION = `Basic ${Buffer.from("adyen-webhook:demo-webhook-password").toString("base64")}`

type Item = Record<string, unknown> & { additionalData?: Record<string, string> }

/** A signed notification body of one item. */
function body(fields: Partial<Item> = {}, key = KEY): Uint8Array {
  const item = {
    pspReference: "QFQTPCQ8HXSKGK82",
    originalReference: "9913140798220028",
    merchantAccountCode: "ServiceScanDemoECOM",
    merchantReference: "order-ref-1",
    amount: { currency: "EUR", value: 1000 },
    eventCode: "CHARGEBACK",
    eventDate: "2026-11-20T10:00:00+01:00",
    success: "true",
    reason: "Other Fraud-Card Absent Environment",
    paymentMethod: "visa",
    ...fields,
  } as Item & Parameters<typeof signingString>[0]
  const additionalData = {
    chargebackReasonCode: " 10.4",
    chargebackSchemeCode: "visa",
    defensePeriodEndsAt: "2026-12-04T10:00:00+01:00",
    defendable: "true",
    disputeStatus: "Unresponded",
    ...(fields.additionalData ?? {}),
  }
  const signed = { ...item, additionalData: { ...additionalData, hmacSignature: hmacSignature(item, key) } }
  return Buffer.from(JSON.stringify({ live: "false", notificationItems: [{ NotificationRequestItem: signed }] }))
}

const webhook = () => new AdyenWebhook({ merchantAccount: "ServiceScanDemoECOM", hmacKeys: [KEY], basic: BASIC })

describe("Adyen notification HMAC", () => {
  it("matches Adyen's published vector", () => {
    expect(signingString(DOCS_ITEM)).toBe("7914073381342284::TestMerchant:TestPayment-1407325143704:1130:EUR:AUTHORISATION:true")
    expect(hmacSignature(DOCS_ITEM, DOCS_KEY)).toBe("coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=")
    expect(hasValidSignature({ ...DOCS_ITEM, additionalData: { hmacSignature: "coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=" } }, [DOCS_KEY])).toBe(true)
    expect(hasValidSignature({ ...DOCS_ITEM, amount: { value: 1131, currency: "EUR" }, additionalData: { hmacSignature: "coqCmt/IZ4E3CzPvMY8zTjQVL5hYJUiBRg8UU+iCWo0=" } }, [DOCS_KEY])).toBe(false)
  })
})

describe("AdyenWebhook.receive", () => {
  it("reads a signed chargeback, keyed by event code, PSP reference and success, without its signature", () => {
    const [event] = webhook().receive({ body: body(), authorization: AUTHORIZATION })
    expect(event).toMatchObject({ key: "CHARGEBACK:QFQTPCQ8HXSKGK82:true", kind: "case", caseId: "QFQTPCQ8HXSKGK82", occurredAt: "2026-11-20T09:00:00.000Z" })
    expect(JSON.stringify(event.data)).not.toContain("hmacSignature")
  })

  it.each([
    ["a wrong HMAC key", () => ({ body: body({}, "00".repeat(32)), authorization: AUTHORIZATION })],
    ["a signed field changed after signing", () => ({ body: Buffer.from(Buffer.from(body()).toString().replace('"value":1000', '"value":9000')), authorization: AUTHORIZATION })],
    ["no Basic credentials", () => ({ body: body() })],
    ["a wrong Basic password", () => ({ body: body(), authorization: `Basic ${Buffer.from("adyen-webhook:guess").toString("base64")}` })],
    ["another merchant account's item, correctly signed", () => ({ body: body({ merchantAccountCode: "OtherECOM" }), authorization: AUTHORIZATION })],
  ])("refuses %s as forged", (_name, request) => {
    const error = (() => {
      try {
        webhook().receive(request())
      } catch (caught) {
        return caught
      }
    })()
    expect(error).toBeInstanceOf(WebhookRejection)
    expect((error as WebhookRejection).reason).toBe("forged")
  })

  it("refuses a body that is not a notification as malformed", () => {
    expect(() => webhook().receive({ body: Buffer.from("{}"), authorization: AUTHORIZATION })).toThrow(
      expect.objectContaining({ reason: "malformed" })
    )
  })

  it("maps modification outcomes to OperationOutcome, and acknowledges anything else as ignored", () => {
    const read = (fields: Partial<Item>) => webhook().receive({ body: body(fields), authorization: AUTHORIZATION })[0]
    expect(read({ eventCode: "CAPTURE", pspReference: "CAPTURE000000001" })).toMatchObject({
      kind: "operation",
      operation: { operation: "capture", paymentTransactionId: "9913140798220028", transactionId: "CAPTURE000000001", success: true },
    })
    expect(read({ eventCode: "REFUND", success: "false", pspReference: "REFUND0000000001", reason: "Insufficient balance" }).operation).toMatchObject({
      operation: "refund",
      success: false,
      reason: "Insufficient balance",
    })
    expect(read({ eventCode: "CAPTURE_FAILED" }).operation).toMatchObject({ operation: "capture", success: false })
    // The answer to `/reversals` (a cancel of a captured payment), even when Adyen refunded it.
    expect(read({ eventCode: "CANCEL_OR_REFUND", additionalData: { "modification.action": "refund" } }).operation).toMatchObject({ operation: "cancel", success: true })
    expect(read({ eventCode: "CANCEL_OR_REFUND", success: "false", reason: "Refused" }).operation).toMatchObject({ operation: "cancel", success: false, reason: "Refused" })
    expect(read({ eventCode: "CANCELLATION" }).operation).toMatchObject({ operation: "cancel" })
    expect(read({ eventCode: "AUTHORISATION", originalReference: undefined }).kind).toBe("ignored")
    expect(read({ eventCode: "SCHEME_ARBITRATION_WON" }).kind).toBe("ignored")
  })

  it("stores only the additionalData keys the case record reads: no shopper email, IP or card summary, no signature", () => {
    const [event] = webhook().receive({
      body: body({ additionalData: { shopperEmail: "shopper@example.com", shopperIP: "203.0.113.9", cardSummary: "1111", arn: "74012345678901234567890" } }),
      authorization: AUTHORIZATION,
    })
    expect(Object.keys((event.data as { additionalData: Record<string, string> }).additionalData).sort()).toEqual(
      ["arn", "chargebackReasonCode", "defendable", "defensePeriodEndsAt", "disputeStatus"]
    )
    expect(JSON.stringify(event.data)).not.toMatch(/shopper@example.com|203\.0\.113\.9|hmacSignature/)
    expect(webhook().caseRecord([event])).toMatchObject({ reasonCode: "10.4", acquirerReferenceNumber: "74012345678901234567890", queue: "Unresponded" })
  })

  it("accepts items signed with an earlier key listed in previousHmacKeys (a rotation), and refuses any other key", () => {
    const OLD = "AB".repeat(32)
    const built = (previousHmacKeys?: string[]) =>
      adyen.dispute.create(
        adyenOptionsSchema.parse({
          type: "adyen",
          merchantAccount: "ServiceScanDemoECOM",
          apiKey: "k",
          hmacKey: KEY,
          webhookUser: BASIC.user,
          webhookPassword: BASIC.password,
          ...(previousHmacKeys ? { previousHmacKeys } : {}),
        }),
        {}
      ).webhook
    expect(built([OLD])?.receive({ body: body({}, OLD), authorization: AUTHORIZATION })).toHaveLength(1)
    expect(built([OLD])?.receive({ body: body({}, KEY), authorization: AUTHORIZATION })).toHaveLength(1)
    expect(() => built()?.receive({ body: body({}, OLD), authorization: AUTHORIZATION })).toThrow(expect.objectContaining({ reason: "forged" }))
    expect(() => built([OLD])?.receive({ body: body({}, "CD".repeat(32)), authorization: AUTHORIZATION })).toThrow(
      expect.objectContaining({ reason: "forged" })
    )
  })

  it("bounds an event's age by Adyen's 30 days of retries, plus a day", () => {
    expect(ADYEN_MAX_EVENT_AGE_MS).toBe(31 * 24 * 3600 * 1000)
  })
})

describe("AdyenWebhook.caseRecord", () => {
  const events = (...items: Partial<Item>[]) => items.flatMap((fields) => webhook().receive({ body: body(fields), authorization: AUTHORIZATION }))

  it("reads a chargeback into a case awaiting the merchant: payment, amount, trimmed reason code, reply-by, timeline", () => {
    const record = webhook().caseRecord(events({ eventCode: "NOTIFICATION_OF_CHARGEBACK", eventDate: "2026-11-20T09:59:00+01:00" }, {}))
    expect(record).toMatchObject({
      caseId: "QFQTPCQ8HXSKGK82",
      transactionId: "9913140798220028",
      orderId: "order-ref-1",
      amountMinor: 1000,
      currencyCode: "EUR",
      cycle: "First Chargeback",
      reasonCode: "10.4",
      reasonDescription: "Other Fraud-Card Absent Environment",
      awaitingMerchant: true,
      replyBy: "2026-12-04",
      issuedOn: "2026-11-20",
    })
    expect(record.activities.map((activity) => activity.type)).toEqual(["Chargeback", "Notification of chargeback"])
  })

  it("folds out-of-order deliveries to the same case: a late NOTIFICATION_OF_CHARGEBACK does not move it back", () => {
    const inOrder = webhook().caseRecord(events({ eventCode: "NOTIFICATION_OF_CHARGEBACK", eventDate: "2026-11-20T09:59:00+01:00" }, {}))
    const reversed = webhook().caseRecord(events({}, { eventCode: "NOTIFICATION_OF_CHARGEBACK", eventDate: "2026-11-20T09:59:00+01:00" }))
    expect(reversed).toEqual(inOrder)
  })

  it("records the scheme's decision: won on CHARGEBACK_REVERSED (no originalReference), lost on PREARBITRATION_LOST", () => {
    const won = webhook().caseRecord(
      events({}, { eventCode: "CHARGEBACK_REVERSED", originalReference: undefined, eventDate: "2026-11-25T10:00:00+01:00", additionalData: { disputeStatus: "Won" } })
    )
    expect(won).toMatchObject({ outcome: "won", awaitingMerchant: false, transactionId: "9913140798220028" })
    const lost = webhook().caseRecord(events({}, { eventCode: "PREARBITRATION_LOST", eventDate: "2026-11-26T10:00:00+01:00", additionalData: { disputeStatus: "Lost" } }))
    expect(lost.outcome).toBe("lost")
  })

  it("is not awaiting the merchant when Adyen says the dispute is not defendable", () => {
    expect(webhook().caseRecord(events({ additionalData: { defendable: "false" } })).awaitingMerchant).toBe(false)
  })
})
