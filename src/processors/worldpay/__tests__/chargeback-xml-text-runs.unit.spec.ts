import { charactersSearched } from "../../../lib/__tests__/support/characters-searched"
import { MAX_XML_TEXT_RUN } from "../../../lib/xml-text-run"
import { DisputeGatewayProtocolError } from "../../types"
import { parseDocumentResponse, parseRetrievalResponse } from "../chargeback-xml"
import { caseXml, FULL_ACTIVITIES, FULL_CASE, NS, retrievalXml } from "./chargeback-fixtures"

/**
 * A case list with one long text run between two tags used to be quadratic:
 * the reader searched its whole unread text again for every slice (8 MB took
 * 1.6 s, 24 MB 11.3 s, on the event loop). Now every slice is searched once,
 * and a run longer than MAX_XML_TEXT_RUN is refused. The work is counted in
 * characters searched, not timed: linear work triples when the answer does.
 */
const MB = 1024 * 1024

const inEnvelope = (length: number) =>
  `<?xml version="1.0"?><chargebackRetrievalResponse xmlns="${NS}"><transactionId>${"7".repeat(length)}</transactionId></chargebackRetrievalResponse>`
const inNote = (length: number) => retrievalXml([caseXml(FULL_CASE, [{ ...FULL_ACTIVITIES[0], notes: "n".repeat(length) }])])

function refusal(run: () => unknown): DisputeGatewayProtocolError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(DisputeGatewayProtocolError)
    return error as DisputeGatewayProtocolError
  }
  throw new Error("expected a DisputeGatewayProtocolError")
}

describe("Chargeback API XML: one long text run", () => {
  it.each([
    ["between two tags of the envelope", inEnvelope],
    ["in a case's note", inNote],
  ])("%s: refused, with work linear in its length (8 MB vs 24 MB)", (_where, document) => {
    const work = [8 * MB, 24 * MB].map((length) => {
      const xml = document(length)
      let error: DisputeGatewayProtocolError | undefined
      const searched = charactersSearched(() => {
        error = refusal(() => parseRetrievalResponse(xml))
      })
      expect(error?.message).toMatch(new RegExp(`a text run of more than ${MAX_XML_TEXT_RUN} characters`))
      return searched
    })
    // Tripling the answer triples linear work; quadratic work grows ninefold.
    expect(work[1] / work[0]).toBeLessThan(4)
  })

  it("a run split over many slices, or arriving as bytes, is refused the same way", () => {
    const xml = inEnvelope(MAX_XML_TEXT_RUN + 1)
    expect(refusal(() => parseRetrievalResponse(xml, { sliceSize: 1000 })).message).toMatch(/a text run of more than/)
    expect(refusal(() => parseRetrievalResponse(new TextEncoder().encode(xml), { sliceSize: 777 })).message).toMatch(/a text run of more than/)
  })

  it("the bound is generous: a note of 60,000 characters (Worldpay allows 4,000) reads whole; one run over the bound does not", () => {
    const [kase] = parseRetrievalResponse(inNote(60_000)).cases
    expect(kase.activities[0].notes).toHaveLength(60_000)
    // `<notes>` and its text are one run.
    expect(parseRetrievalResponse(inNote(MAX_XML_TEXT_RUN - "<notes>".length)).cases[0].activities[0].notes).toHaveLength(
      MAX_XML_TEXT_RUN - "<notes>".length
    )
    expect(refusal(() => parseRetrievalResponse(inNote(MAX_XML_TEXT_RUN - "<notes>".length + 1))).message).toMatch(
      new RegExp(`a text run of more than ${MAX_XML_TEXT_RUN} characters`)
    )
  })

  it("a busy day stays linear: 2 MB vs 6 MB of cases, each with a 4,000-character note, read whole", () => {
    const one = caseXml(FULL_CASE, [{ ...FULL_ACTIVITIES[0], notes: "n".repeat(4000) }])
    const work = [2 * MB, 6 * MB].map((size) => {
      const cases = Array.from({ length: Math.round(size / one.length) }, () => one)
      let read = 0
      const searched = charactersSearched(() => {
        read = parseRetrievalResponse(retrievalXml(cases)).cases.length
      })
      expect(read).toBe(cases.length)
      return searched
    })
    expect(work[1] / work[0]).toBeLessThan(4)
  })

  it("every other answer is bounded too", () => {
    const xml = `<chargebackDocumentUploadResponse xmlns="${NS}"><responseCode>000</responseCode><responseMessage>${"m".repeat(MAX_XML_TEXT_RUN)}</responseMessage></chargebackDocumentUploadResponse>`
    expect(refusal(() => parseDocumentResponse(xml)).message).toMatch(/a text run of more than/)
  })
})
