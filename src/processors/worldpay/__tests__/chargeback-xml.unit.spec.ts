import { DisputeGatewayProtocolError } from "../../types"
import {
  buildUpdateRequest,
  parseDocumentResponse,
  parseErrorResponse,
  parseRetrievalResponse,
  parseUpdateResponse,
} from "../chargeback-xml"
import { caseXml, errorXml, FULL_ACTIVITIES, FULL_CASE, FULL_RECORD, NS, retrievalXml } from "./chargeback-fixtures"

function protocolError(run: () => unknown): DisputeGatewayProtocolError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(DisputeGatewayProtocolError)
    return error as DisputeGatewayProtocolError
  }
  throw new Error("expected a DisputeGatewayProtocolError")
}

describe("Chargeback API XML: retrieval", () => {
  it("reads the README's case field by field, activities newest first as listed", () => {
    expect(parseRetrievalResponse(retrievalXml([caseXml()], "4915526374820196"))).toEqual({
      transactionId: "4915526374820196",
      cases: [FULL_RECORD],
    })
  })

  it("leaves absent and empty values undefined", () => {
    const xml = retrievalXml([
      `<chargebackCase><caseId>1</caseId><orderId/><cycle></cycle><chargebackAmount>5</chargebackAmount><chargebackCurrencyType>eur</chargebackCurrencyType></chargebackCase>`,
    ])
    const [kase] = parseRetrievalResponse(xml).cases
    expect(kase).toEqual({
      caseId: "1",
      amountMinor: 5,
      currencyCode: "EUR",
      awaitingMerchant: false,
      activities: [],
      ...Object.fromEntries(
        [
          "merchantId", "transactionId", "orderId", "merchantTxnId", "customerId", "cardLast4", "cardType", "cycle", "reasonCode",
          "reasonDescription", "queue", "outcome", "issuedOn", "receivedOn", "originalTransactionOn", "replyBy",
          "acquirerReferenceNumber", "chargebackReferenceNumber", "representedAmountMinor",
        ].map((name) => [name, undefined])
      ),
    })
  })

  it("keeps ids and codes as written: leading zeros, 18 digits, no number coercion", () => {
    const [kase] = parseRetrievalResponse(
      retrievalXml([caseXml({ ...FULL_CASE, caseId: "000123", vantivCnpTxnId: "834262947682512345", reasonCode: "0042", orderId: "1e3" })])
    ).cases
    expect(kase).toMatchObject({ caseId: "000123", transactionId: "834262947682512345", reasonCode: "0042", orderId: "1e3" })
  })

  it("decodes XML's entities and character references, and leaves a reference to a forbidden character as written", () => {
    const [kase] = parseRetrievalResponse(
      retrievalXml([
        caseXml(FULL_CASE, [
          { activityDate: "2025-01-31", activityType: "Add Note", notes: "A &amp; B &lt;c&gt; &quot;d&quot; &apos;e&apos; &#233;&#x2019;&#13; &#0; &nbsp;" },
        ]).replace(/&amp;(amp|lt|gt|quot|apos|#)/g, "&$1"),
      ])
    ).cases
    expect(kase.activities[0].notes).toBe("A & B <c> \"d\" 'e' é’\r &#0; &nbsp;")
  })

  it("reads elements with a namespace prefix", () => {
    const xml =
      `<ns2:chargebackRetrievalResponse xmlns:ns2="${NS}"><ns2:transactionId>9</ns2:transactionId>` +
      `<ns2:chargebackCase><ns2:caseId>7</ns2:caseId><ns2:chargebackAmount>10</ns2:chargebackAmount>` +
      `<ns2:chargebackCurrencyType>USD</ns2:chargebackCurrencyType><ns2:currentQueue>Merchant</ns2:currentQueue>` +
      `<ns2:activity><ns2:activityDate>2025-01-31</ns2:activityDate><ns2:activityType>Assign To Merchant</ns2:activityType></ns2:activity>` +
      `</ns2:chargebackCase></ns2:chargebackRetrievalResponse>`
    expect(parseRetrievalResponse(xml)).toEqual({
      transactionId: "9",
      cases: [expect.objectContaining({ caseId: "7", amountMinor: 10, awaitingMerchant: true, activities: [expect.objectContaining({ type: "Assign To Merchant" })] })],
    })
  })

  it("reads the network's decision from the newest activity that states one", () => {
    const read = (types: string[]) =>
      parseRetrievalResponse(retrievalXml([caseXml(FULL_CASE, types.map((activityType) => ({ activityDate: "2025-02-01", activityType })))])).cases[0]
        .outcome
    expect(read(["Case Won", "Merchant Represent"])).toBe("won")
    expect(read(["Add Note", "Case Lost", "Merchant Represent"])).toBe("lost")
    expect(read(["Merchant Accepts Liability"])).toBeUndefined()
    expect(read(["Reply Period Expired"])).toBeUndefined()
  })

  it("keeps the day of a date with a time zone, and refuses what is not a date", () => {
    const read = (replyByDay: string) => parseRetrievalResponse(retrievalXml([caseXml({ ...FULL_CASE, replyByDay })])).cases[0].replyBy
    expect(read("2025-02-14Z")).toBe("2025-02-14")
    expect(read("2025-02-14-05:00")).toBe("2025-02-14")
    for (const bad of ["2025-02-14T10:00:00", "14/02/2025", "2025-13-01", "2025-02-00"]) {
      expect(protocolError(() => read(bad)).message).toContain("<replyByDay>")
    }
  })

  it("checks amounts: whole minor units, at most 15 digits; only settlements may be negative", () => {
    const withAmount = (chargebackAmount: string) => () => parseRetrievalResponse(retrievalXml([caseXml({ ...FULL_CASE, chargebackAmount })]))
    for (const bad of ["-5", "1.5", "1e3", "", "0x10", "1234567890123456"]) {
      if (bad === "") {
        expect(protocolError(withAmount(bad)).message).toContain("without a <chargebackAmount>")
      } else {
        expect(protocolError(withAmount(bad)).message).toContain(`<chargebackAmount> "${bad}" (case ${FULL_CASE.caseId}), not a whole number of minor units`)
      }
    }
    expect(withAmount("123456789012345")().cases[0].amountMinor).toBe(123456789012345)
    const [kase] = parseRetrievalResponse(
      retrievalXml([caseXml(FULL_CASE, [{ activityDate: "2025-02-01", activityType: "Reversal", settlementAmount: "-1999" }])])
    ).cases
    expect(kase.activities[0].settlementAmountMinor).toBe(-1999)
  })

  it.each([
    ["an empty body", ""],
    ["JSON", '{"error":"Service unavailable"}'],
    ["a DOCTYPE", `<!DOCTYPE x [<!ENTITY a "b">]>${retrievalXml([caseXml()])}`],
    ["a cut-off answer", retrievalXml([caseXml()]).slice(0, -10)],
    ["an answer cut right after a case", retrievalXml([caseXml(), caseXml()]).split("</chargebackCase>")[0] + "</chargebackCase>"],
    ["a cut-off case", retrievalXml([caseXml()]).replace("</chargebackCase>", "")],
    ["an empty case", retrievalXml(["<chargebackCase/>"])],
    ["a case with text", retrievalXml(["<chargebackCase>x</chargebackCase>"])],
    ["a case nested in a case", retrievalXml([`<chargebackCase>${caseXml()}</chargebackCase>`])],
    ["a closing tag hidden in a comment", retrievalXml([caseXml().replace("<cycle>", "<!-- </chargebackCase> --><cycle>")])],
    ["a repeated field", retrievalXml([caseXml().replace("<cycle>", "<orderId>b</orderId><cycle>")])],
    ["an activity without a date", retrievalXml([caseXml(FULL_CASE, [{ activityType: "Add Note" }])])],
    ["two roots", `${retrievalXml([])}${retrievalXml([])}`],
    ["a currency that is not ISO 4217", retrievalXml([caseXml({ ...FULL_CASE, chargebackCurrencyType: "US$" })])],
  ])("refuses %s with a protocol error", (_label, body) => {
    protocolError(() => parseRetrievalResponse(body))
  })

  it("refuses bytes that are not UTF-8", () => {
    const bytes = Buffer.concat([Buffer.from(retrievalXml([caseXml()]).slice(0, 200)), Buffer.from([0xff, 0xfe]), Buffer.from("</x>")])
    expect(protocolError(() => parseRetrievalResponse(bytes)).message).toContain("not UTF-8")
  })

  it("reads the same however the answer is sliced, multi-byte characters split across slices included", () => {
    const cases = Array.from({ length: 5 }, (_, i) =>
      caseXml({ ...FULL_CASE, caseId: String(100 + i), reasonCodeDescription: `Fraude — carte absente ${"é".repeat(i)}` }, FULL_ACTIVITIES)
    )
    const xml = `${retrievalXml(cases).replace(/<chargebackCase>/g, "\n  <chargebackCase >")}\n`
    const whole = parseRetrievalResponse(xml, { sliceSize: 1 << 20 })
    expect(whole.cases.map((kase) => kase.caseId)).toEqual(["100", "101", "102", "103", "104"])
    for (const sliceSize of [1, 2, 3, 7, 16, 127, 1000]) {
      expect(parseRetrievalResponse(xml, { sliceSize })).toEqual(whole)
      expect(parseRetrievalResponse(Buffer.from(xml), { sliceSize })).toEqual(whole)
    }
  })
})

describe("Chargeback API XML: the other answers", () => {
  it("reads chargebackUpdateResponse", () => {
    expect(parseUpdateResponse(`<chargebackUpdateResponse xmlns="${NS}"><transactionId>6997445609488924</transactionId></chargebackUpdateResponse>`)).toEqual({
      transactionId: "6997445609488924",
    })
  })

  it("reads chargebackDocumentUploadResponse, one documentId or several", () => {
    const one = `<chargebackDocumentUploadResponse xmlns="${NS}"><merchantId>m</merchantId><caseId>1</caseId><documentId>a.pdf</documentId><responseCode>000</responseCode><responseMessage>Success</responseMessage></chargebackDocumentUploadResponse>`
    expect(parseDocumentResponse(one)).toEqual({ merchantId: "m", caseId: "1", documentIds: ["a.pdf"], responseCode: "000", responseMessage: "Success" })
    const two = one.replace("<documentId>a.pdf</documentId>", "<documentId>a.pdf</documentId><documentId>b &amp; c.png</documentId>")
    expect(parseDocumentResponse(two).documentIds).toEqual(["a.pdf", "b & c.png"])
    protocolError(() => parseDocumentResponse(one.replace(/<responseCode>.*<\/responseCode>/, "")))
    protocolError(() => parseDocumentResponse(one.replace("<documentId>a.pdf</documentId>", "<documentId/>")))
  })

  it("reads the errors of an errorResponse, and nothing from a body that is not one", () => {
    expect(parseErrorResponse(errorXml("Bad Request. Error in request.", "the root element must be <chargebackUpdateRequest>"))).toEqual([
      "Bad Request. Error in request.",
      "the root element must be <chargebackUpdateRequest>",
    ])
    expect(parseErrorResponse('{"error":"Service unavailable"}')).toBeUndefined()
    expect(parseErrorResponse("<errorResponse><errors>")).toBeUndefined()
    expect(parseErrorResponse(undefined)).toBeUndefined()
  })

  it("builds chargebackUpdateRequest in the schema's order, escaping the note", () => {
    expect(buildUpdateRequest({ activityType: "ASSIGN_TO_USER", note: `"a" & <b>`, assignedTo: "user 1" })).toBe(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><chargebackUpdateRequest xmlns="${NS}">` +
        `<activityType>ASSIGN_TO_USER</activityType><assignedTo>user 1</assignedTo><note>&quot;a&quot; &amp; &lt;b&gt;</note></chargebackUpdateRequest>`
    )
  })
})
