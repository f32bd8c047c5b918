import { setupServer } from "msw/node"
import { DisputeGatewayProtocolError, DisputeGatewayRefusal } from "../../types"
import { BASE, BASIC, CASE_ID, caught, documentXml, gateway, listen, MEDIA_TYPE, Seen, worldpay, xmlAnswer } from "./chargeback-fixtures"

const server = setupServer()
listen(server)

describe("WorldpayDisputeGateway.listDocuments", () => {
  it("GETs services/chargebacks/list/<caseId> and reads the ids in upload order", async () => {
    const seen: Seen[] = []
    server.use(
      worldpay(seen, () =>
        xmlAnswer(documentXml({ code: "000", message: "Success", documentIds: ["evidence.pdf", "scan 2 (front).jpg"] }))
      )
    )
    await expect(gateway().instance.listDocuments(CASE_ID)).resolves.toEqual(["evidence.pdf", "scan 2 (front).jpg"])
    expect(seen.map((request) => [request.method, request.url.toString()])).toEqual([
      ["GET", `${BASE}/services/chargebacks/list/${CASE_ID}`],
    ])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("accept")).toBe(MEDIA_TYPE)
  })

  it("reads a case without documents as an empty list", async () => {
    server.use(worldpay([], () => xmlAnswer(documentXml({ code: "000", message: "Success" }))))
    await expect(gateway().instance.listDocuments(CASE_ID)).resolves.toEqual([])
  })

  it("refuses with Worldpay's code 003 for an unknown case", async () => {
    server.use(worldpay([], () => xmlAnswer(documentXml({ code: "003", message: "Case Not Found" }))))
    const error = await caught(gateway().instance.listDocuments(CASE_ID))
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code: "003", gateway: "worldpay" })
    expect(error.message).toBe(`Worldpay refused to list the documents of case ${CASE_ID}: 003 Case Not Found`)
  })

  it("refuses an answer without a response code", async () => {
    server.use(worldpay([], () => xmlAnswer(`<chargebackDocumentUploadResponse><caseId>1</caseId></chargebackDocumentUploadResponse>`)))
    await expect(gateway().instance.listDocuments(CASE_ID)).rejects.toBeInstanceOf(DisputeGatewayProtocolError)
  })
})
