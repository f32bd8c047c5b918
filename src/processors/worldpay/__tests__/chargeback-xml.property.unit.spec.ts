import fc from "fast-check"
import { DisputeGatewayProtocolError } from "../../types"
import { parseDocumentResponse, parseErrorResponse, parseRetrievalResponse, parseUpdateResponse } from "../chargeback-xml"
import { caseXml, escape, FULL_ACTIVITIES, FULL_CASE, retrievalXml } from "./chargeback-fixtures"

/**
 * The Chargeback API readers under arbitrary input: whatever the body, they
 * return a result or throw `DisputeGatewayProtocolError`, never anything else
 * (no TypeError from a missing field, no RangeError, no hang).
 */

const READERS: Record<string, (body: string) => unknown> = {
  retrieval: (body) => parseRetrievalResponse(body),
  "retrieval, 7-character slices": (body) => parseRetrievalResponse(body, { sliceSize: 7 }),
  "retrieval, bytes in 5-byte slices": (body) => parseRetrievalResponse(Buffer.from(body), { sliceSize: 5 }),
  update: parseUpdateResponse,
  document: parseDocumentResponse,
}

function onlyTypedErrors(read: (body: string) => unknown, body: string): void {
  try {
    read(body)
  } catch (error) {
    if (!(error instanceof DisputeGatewayProtocolError)) {
      throw error
    }
  }
}

const ELEMENT_NAMES = [
  "chargebackRetrievalResponse",
  "chargebackUpdateResponse",
  "chargebackDocumentUploadResponse",
  "errorResponse",
  "errors",
  "error",
  "transactionId",
  "chargebackCase",
  "caseId",
  "merchantId",
  "chargebackAmount",
  "chargebackCurrencyType",
  "currentQueue",
  "replyByDay",
  "representedAmount",
  "activity",
  "activityDate",
  "activityType",
  "settlementAmount",
  "notes",
  "documentId",
  "responseCode",
  "responseMessage",
  "ns2:chargebackCase",
  "x",
]

/** Pieces that XML readers trip over, to be strung together at random. */
const TOKENS = [
  ...ELEMENT_NAMES.flatMap((name) => [`<${name}>`, `</${name}>`, `<${name}/>`]),
  "<",
  ">",
  "</",
  "/>",
  "&amp;",
  "&#",
  "&#x110000;",
  "&#0;",
  "&unknown;",
  ";",
  "<!--",
  "-->",
  "<![CDATA[",
  "]]>",
  '<?xml version="1.0"?>',
  "<!DOCTYPE x>",
  " ",
  "\n",
  "1999",
  "-1",
  "2025-01-31",
  "USD",
  "Merchant",
  "000",
  "é",
  "\u0000",
  "\ud800",
]

const xmlish = fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((parts) => parts.join(""))

/** Well-formed trees of the API's element names (and others), with arbitrary text. */
const tree = fc.letrec<{ node: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string({ unit: "binary", maxLength: 20 }).map((text) => escape(text.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ""))),
    fc
      .tuple(fc.constantFrom(...ELEMENT_NAMES), fc.array(tie("node"), { maxLength: 5 }))
      .map(([name, children]) => (children.length === 0 ? `<${name}/>` : `<${name}>${children.join("")}</${name}>`))
  ),
})).node

const wellFormed = fc
  .tuple(fc.constantFrom(...ELEMENT_NAMES.filter((name) => name !== "x")), fc.array(tree, { maxLength: 6 }))
  .map(([root, children]) => `<?xml version="1.0" encoding="UTF-8"?><${root}>${children.join("")}</${root}>`)

describe("Chargeback API XML readers under arbitrary input", () => {
  it.each(Object.entries(READERS))("%s: arbitrary text never raises anything but a protocol error", (_name, read) => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 200 }), (body) => onlyTypedErrors(read, body)))
  })

  it.each(Object.entries(READERS))("%s: XML-looking junk never raises anything but a protocol error", (_name, read) => {
    fc.assert(fc.property(xmlish, (body) => onlyTypedErrors(read, body)))
  })

  it.each(Object.entries(READERS))("%s: well-formed documents of any shape never raise anything but a protocol error", (_name, read) => {
    fc.assert(fc.property(wellFormed, (body) => onlyTypedErrors(read, body)))
  })

  it("parseErrorResponse never throws", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "binary" }), xmlish, wellFormed), (body) => {
        const errors = parseErrorResponse(body)
        expect(errors === undefined || (Array.isArray(errors) && errors.every((e) => typeof e === "string"))).toBe(true)
      })
    )
  })

  it("a valid answer cut short anywhere is refused, however it is sliced", () => {
    const full = retrievalXml([caseXml(), caseXml({ ...FULL_CASE, caseId: "2" }, FULL_ACTIVITIES)])
    // Cuts right after a tag are the dangerous ones (after a case, the rest reads as a shorter answer).
    const afterTags = [...full.matchAll(/>/g)].map((match) => (match.index ?? 0) + 1).filter((end) => end < full.length)
    const cuts = fc.oneof(fc.integer({ min: 0, max: full.length - 1 }), fc.constantFrom(...afterTags))
    fc.assert(
      fc.property(cuts, fc.integer({ min: 1, max: 300 }), (cut, sliceSize) => {
        expect(() => parseRetrievalResponse(full.slice(0, cut), { sliceSize })).toThrow(DisputeGatewayProtocolError)
      })
    )
  })
})

/** Text XML can carry, as a case field: no control characters, and no CR (a conforming reader rewrites line ends). */
const fieldText = fc
  .string({ unit: "binary", maxLength: 30 })
  .map((text) => text.replace(/[^\t\n\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, ""))

describe("Chargeback API XML: cases written with arbitrary values read back the same", () => {
  it("whatever the text, amounts and slicing", () => {
    const kase = fc.record({
      caseId: fc.stringMatching(/^\d{1,19}$/),
      amount: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }).map((n) => n % 1e15),
      currency: fc.stringMatching(/^[A-Za-z]{3}$/),
      orderId: fieldText,
      reason: fieldText,
      queue: fc.constantFrom("Merchant", "Vantiv", "Merchant Assumed", "Network Assumed"),
      notes: fc.array(fc.tuple(fieldText, fc.integer({ min: -1e12, max: 1e12 })), { maxLength: 3 }),
    })
    fc.assert(
      fc.property(fc.array(kase, { maxLength: 4 }), fc.integer({ min: 1, max: 500 }), fc.boolean(), (cases, sliceSize, asBytes) => {
        const xml = retrievalXml(
          cases.map((c) =>
            caseXml(
              {
                caseId: c.caseId,
                orderId: c.orderId,
                chargebackAmount: String(c.amount),
                chargebackCurrencyType: c.currency,
                reasonCodeDescription: c.reason,
                currentQueue: c.queue,
              },
              c.notes.map(([notes, settlement]) => ({
                activityDate: "2025-01-31",
                activityType: "Add Note",
                notes,
                settlementAmount: String(settlement),
              }))
            )
          )
        )
        const read = parseRetrievalResponse(asBytes ? Buffer.from(xml) : xml, { sliceSize })
        const present = (text: string) => text.trim() || undefined
        expect(read.cases).toEqual(
          cases.map((c) =>
            expect.objectContaining({
              caseId: c.caseId,
              orderId: present(c.orderId),
              amountMinor: c.amount,
              currencyCode: c.currency.toUpperCase(),
              reasonDescription: present(c.reason),
              queue: c.queue,
              awaitingMerchant: c.queue === "Merchant",
              activities: c.notes.map(([notes, settlement]) =>
                expect.objectContaining({ notes: present(notes), settlementAmountMinor: settlement === 0 ? 0 : settlement })
              ),
            })
          )
        )
      })
    )
  })
})
