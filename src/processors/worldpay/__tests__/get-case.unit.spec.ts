import { HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { HttpConnectionError } from "../../../lib/http"
import { DisputeGatewayProtocolError } from "../../types"
import {
  BASE,
  BASIC,
  CASE_ID,
  caseXml,
  caught,
  errorXml,
  FULL_CASE,
  FULL_RECORD,
  gateway,
  listen,
  MEDIA_TYPE,
  retrievalXml,
  Seen,
  worldpay,
  xmlAnswer,
} from "./chargeback-fixtures"

const server = setupServer()
listen(server)

describe("WorldpayDisputeGateway.getCase", () => {
  it("GETs chargebacks/<caseId> and reads the case", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(retrievalXml([caseXml()]))))
    await expect(gateway().instance.getCase(CASE_ID)).resolves.toEqual(FULL_RECORD)
    expect(seen.map((request) => [request.method, request.url.toString()])).toEqual([["GET", `${BASE}/chargebacks/${CASE_ID}`]])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("accept")).toBe(MEDIA_TYPE)
  })

  it("answers null for Worldpay's 404 'Could not find requested object.'", async () => {
    server.use(worldpay([], () => xmlAnswer(errorXml("Could not find requested object."), 404)))
    await expect(gateway().instance.getCase("123")).resolves.toBeNull()
  })

  it("answers null for another merchant's case when a merchantId is configured", async () => {
    server.use(worldpay([], () => xmlAnswer(retrievalXml([caseXml({ ...FULL_CASE, merchantId: "other" })]))))
    await expect(gateway({ merchantId: "1288791" }).instance.getCase(CASE_ID)).resolves.toBeNull()
  })

  it("refuses an answer about another case", async () => {
    server.use(worldpay([], () => xmlAnswer(retrievalXml([caseXml({ ...FULL_CASE, caseId: "1" })]))))
    const error = await caught(gateway().instance.getCase(CASE_ID))
    expect(error).toBeInstanceOf(DisputeGatewayProtocolError)
    expect(error.message).toBe(`Worldpay's Chargeback API answered case ${CASE_ID} with case 1`)
  })

  it("retries a dropped connection, and surfaces it once the retries are spent", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => HttpResponse.error()))
    const error = await caught(gateway({ maxRetries: 2 }).instance.getCase(CASE_ID))
    expect(error).toBeInstanceOf(HttpConnectionError)
    expect(seen).toHaveLength(3)
  })

  it.each(["", "abc", "12/../34", "1".repeat(20), " 123"])("refuses the case id %j before sending anything", async (caseId) => {
    await expect(gateway().instance.getCase(caseId)).rejects.toThrow(TypeError)
  })
})
