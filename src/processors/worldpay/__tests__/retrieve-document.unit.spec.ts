import { HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { DisputeGatewayRefusal } from "../../types"
import { BASE, BASIC, CASE_ID, caught, documentXml, gateway, listen, Seen, worldpay, xmlAnswer } from "./chargeback-fixtures"

const server = setupServer()
listen(server)

describe("WorldpayDisputeGateway.retrieveDocument", () => {
  it("GETs services/chargebacks/retrieve/<caseId>/<documentId> and returns the file with its type", async () => {
    const seen: Seen[] = []
    const tiff = Buffer.from([0x49, 0x49, 0x2a, 0x00, 1, 2, 3])
    server.use(
      worldpay(seen, () => new HttpResponse(tiff, { headers: { "content-type": "image/tiff", "content-disposition": 'attachment; filename="a.tif"' } }))
    )
    const document = await gateway().instance.retrieveDocument(CASE_ID, "a.tif")
    expect(seen.map((request) => `${request.method} ${request.url.toString()}`)).toEqual([
      `GET ${BASE}/services/chargebacks/retrieve/${CASE_ID}/a.tif`,
    ])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(document?.contentType).toBe("image/tiff")
    expect(Buffer.from(document?.bytes ?? []).equals(tiff)).toBe(true)
  })

  it("answers null for a document the case does not have (009)", async () => {
    server.use(worldpay([], () => xmlAnswer(documentXml({ code: "009", message: "Document Not Found" }))))
    await expect(gateway().instance.retrieveDocument(CASE_ID, "nope.pdf")).resolves.toBeNull()
  })

  it("refuses with code 003 for an unknown case", async () => {
    server.use(worldpay([], () => xmlAnswer(documentXml({ code: "003", message: "Case Not Found" }))))
    const error = await caught(gateway().instance.retrieveDocument(CASE_ID, "a.pdf"))
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code: "003" })
  })
})
