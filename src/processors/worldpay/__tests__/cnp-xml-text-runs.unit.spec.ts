import { charactersSearched } from "../../../lib/__tests__/support/characters-searched"
import { MAX_XML_TEXT_RUN } from "../../../lib/xml-text-run"
import { parseCnpResponse } from "../cnp-xml"
import { CnpParseError } from "../errors"

/**
 * A cnpAPI answer with one long text run is refused before fast-xml-parser
 * builds it (character by character, at a cost per character that grows
 * with the run), with work linear in the answer's length.
 */
const MB = 1024 * 1024
const answer = (message: string) =>
  `<cnpOnlineResponse version="12.30" xmlns="http://www.vantivcnp.com/schema" response="0" message="Valid Format">` +
  `<authorizationResponse id="a1" reportGroup="rg"><cnpTxnId>84568456</cnpTxnId><orderId>o1</orderId><response>000</response><message>${message}</message></authorizationResponse>` +
  `</cnpOnlineResponse>`

function refusal(run: () => unknown): CnpParseError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(CnpParseError)
    return error as CnpParseError
  }
  throw new Error("expected a CnpParseError")
}

describe("cnpAPI XML: one long text run", () => {
  it("8 MB and 24 MB in one <message>: refused naming the bound, with linear work", () => {
    const work = [8 * MB, 24 * MB].map((length) => {
      const xml = answer("x".repeat(length))
      let message = ""
      const searched = charactersSearched(() => {
        message = refusal(() => parseCnpResponse(xml)).message
      })
      expect(message).toMatch(new RegExp(`a text run of more than ${MAX_XML_TEXT_RUN} characters`))
      return searched
    })
    expect(work[1] / work[0]).toBeLessThan(4)
  })

  it("a message up to the bound reads as before", () => {
    const length = MAX_XML_TEXT_RUN - "<message>".length
    expect(parseCnpResponse(answer("y".repeat(length))).transaction).toMatchObject({ response: "000", message: "y".repeat(length) })
    expect(refusal(() => parseCnpResponse(answer("y".repeat(length + 1)))).message).toMatch(/a text run of more than/)
  })
})
