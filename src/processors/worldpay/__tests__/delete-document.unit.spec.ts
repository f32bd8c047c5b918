import { HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { DisputeGatewayRefusal } from "../../types"
import { BASE, BASIC, CASE_ID, caught, documentXml, gateway, listen, MEDIA_TYPE, Seen, worldpay, xmlAnswer } from "./chargeback-fixtures"

const server = setupServer()
listen(server)

describe("WorldpayDisputeGateway.deleteDocument", () => {
  it("DELETEs services/chargebacks/delete/<caseId>/<documentId>", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(documentXml({ code: "000", message: "Success", documentIds: ["evidence.pdf"] }))))
    await gateway().instance.deleteDocument(CASE_ID, "evidence.pdf")
    expect(seen.map((request) => `${request.method} ${request.url.toString()}`)).toEqual([
      `DELETE ${BASE}/services/chargebacks/delete/${CASE_ID}/evidence.pdf`,
    ])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("accept")).toBe(MEDIA_TYPE)
    expect(seen[0].body.length).toBe(0)
  })

  it("counts a document that is not there (009) as deleted", async () => {
    server.use(worldpay([], () => xmlAnswer(documentXml({ code: "009", message: "Document Not Found" }))))
    await expect(gateway().instance.deleteDocument(CASE_ID, "gone.pdf")).resolves.toBeUndefined()
  })

  it("repeats a delete whose answer was lost; the repeat's 009 is success", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => (seen.length === 1 ? HttpResponse.error() : xmlAnswer(documentXml({ code: "009" })))))
    await gateway({ maxRetries: 1 }).instance.deleteDocument(CASE_ID, "evidence.pdf")
    expect(seen.map((request) => request.method)).toEqual(["DELETE", "DELETE"])
  })

  it.each([
    ["003", "Case Not Found"],
    ["004", "Case Not In Merchant Queue"],
    ["010", "Case not in valid cycle"],
  ])("refuses with Worldpay's code %s", async (code, message) => {
    server.use(worldpay([], () => xmlAnswer(documentXml({ code, message }))))
    const error = await caught(gateway().instance.deleteDocument(CASE_ID, "evidence.pdf"))
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code })
    expect(error.message).toBe(`Worldpay refused to delete evidence.pdf of case ${CASE_ID}: ${code} ${message}`)
  })
})
