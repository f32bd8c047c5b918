import { HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { DisputeGatewayRefusal } from "../../types"
import { BASE, BASIC, CASE_ID, caught, documentXml, gateway, listen, MEDIA_TYPE, Seen, worldpay, xmlAnswer } from "./chargeback-fixtures"

const server = setupServer()
listen(server)

const PDF = new Uint8Array(Buffer.from("%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"))
const file = { bytes: PDF, contentType: "application/pdf" }
const wire = (seen: Seen[]) => seen.map((request) => `${request.method} ${request.url.toString()}`)

describe("WorldpayDisputeGateway.putDocument", () => {
  it("POSTs the file to services/chargebacks/upload/<caseId>/<documentId> with its own content type", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(documentXml({ code: "000", message: "Success", documentIds: ["evidence.pdf"] }))))
    await gateway().instance.putDocument(CASE_ID, "evidence.pdf", file)
    expect(wire(seen)).toEqual([`POST ${BASE}/services/chargebacks/upload/${CASE_ID}/evidence.pdf`])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("content-type")).toBe("application/pdf")
    expect(seen[0].headers.get("accept")).toBe(MEDIA_TYPE)
    expect(seen[0].body.equals(Buffer.from(PDF))).toBe(true)
  })

  it("escapes a document id with spaces in the path", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(documentXml({ code: "000", message: "Success" }))))
    await gateway().instance.putDocument(CASE_ID, "scan 2 (front).jpg", { bytes: PDF, contentType: "image/jpeg" })
    expect(seen[0].url.pathname).toBe(`/services/chargebacks/upload/${CASE_ID}/scan%202%20(front).jpg`)
  })

  it("replaces the content when the id is taken (005): PUT services/chargebacks/replace/… with the same bytes", async () => {
    const seen: Seen[] = []
    server.use(
      worldpay(seen, (request) =>
        xmlAnswer(
          request.method === "POST"
            ? documentXml({ code: "005", message: "Document already exists", documentIds: ["evidence.pdf"] })
            : documentXml({ code: "000", message: "Success", documentIds: ["evidence.pdf"] })
        )
      )
    )
    await gateway().instance.putDocument(CASE_ID, "evidence.pdf", file)
    expect(wire(seen)).toEqual([
      `POST ${BASE}/services/chargebacks/upload/${CASE_ID}/evidence.pdf`,
      `PUT ${BASE}/services/chargebacks/replace/${CASE_ID}/evidence.pdf`,
    ])
    expect(seen[1].headers.get("content-type")).toBe("application/pdf")
    expect(seen[1].headers.get("authorization")).toBe(BASIC)
    expect(seen[1].body.equals(Buffer.from(PDF))).toBe(true)
  })

  it.each([
    ["003", "Case Not Found"],
    ["004", "Case Not In Merchant Queue"],
    ["008", "Max Document Limit Per Case Reached"],
    ["010", "Case not in valid cycle"],
    ["012", "Filesize exceeds limit of 2MB"],
    ["013", "Invalid File Content"],
  ])("refuses with Worldpay's code %s (%s)", async (code, message) => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(documentXml({ code, message, documentIds: ["evidence.pdf"] }))))
    const error = await caught(gateway().instance.putDocument(CASE_ID, "evidence.pdf", file))
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code, gateway: "worldpay" })
    expect(error.message).toBe(`Worldpay refused to upload evidence.pdf for case ${CASE_ID}: ${code} ${message}`)
    expect(seen).toHaveLength(1)
  })

  it("refuses with the replace's code when the replace is refused (009, 004)", async () => {
    for (const code of ["009", "004"]) {
      server.use(
        worldpay([], (request) =>
          xmlAnswer(request.method === "POST" ? documentXml({ code: "005", message: "Document already exists" }) : documentXml({ code }))
        )
      )
      const error = await caught(gateway().instance.putDocument(CASE_ID, "evidence.pdf", file))
      expect(error).toBeInstanceOf(DisputeGatewayRefusal)
      expect(error).toMatchObject({ code })
      expect(error.message).toBe(`Worldpay refused to replace evidence.pdf for case ${CASE_ID}: ${code}`)
    }
  })

  it("refuses a file over maxDocumentBytes with code 012 without sending it", async () => {
    const error = await caught(
      gateway({ maxDocumentBytes: 1_000 }).instance.putDocument(CASE_ID, "big.pdf", { bytes: new Uint8Array(1_001), contentType: "application/pdf" })
    )
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code: "012" })
    expect(error.message).toBe(`Worldpay refuses documents over 1000 bytes (code 012); big.pdf for case ${CASE_ID} has 1001, not sent`)
  })

  it("takes exactly maxDocumentBytes", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(documentXml({ code: "000" }))))
    await gateway({ maxDocumentBytes: 1_000 }).instance.putDocument(CASE_ID, "a.pdf", { bytes: new Uint8Array(1_000), contentType: "application/pdf" })
    expect(seen[0].body.length).toBe(1_000)
  })

  it("repeats an upload whose answer was lost: the repeat meets 005 and replaces with the same bytes", async () => {
    const seen: Seen[] = []
    server.use(
      worldpay(seen, (request) => {
        if (seen.length === 1) {
          // Processed, then the connection died before the answer.
          return HttpResponse.error()
        }
        return xmlAnswer(request.method === "POST" ? documentXml({ code: "005" }) : documentXml({ code: "000" }))
      })
    )
    const { instance, retries } = gateway({ maxRetries: 2 })
    await instance.putDocument(CASE_ID, "evidence.pdf", file)
    expect(wire(seen)).toEqual([
      `POST ${BASE}/services/chargebacks/upload/${CASE_ID}/evidence.pdf`,
      `POST ${BASE}/services/chargebacks/upload/${CASE_ID}/evidence.pdf`,
      `PUT ${BASE}/services/chargebacks/replace/${CASE_ID}/evidence.pdf`,
    ])
    expect(retries).toHaveLength(1)
  })

  it("repeats a replace after a 503", async () => {
    const seen: Seen[] = []
    server.use(
      worldpay(seen, (request) => {
        if (request.method === "POST") {
          return xmlAnswer(documentXml({ code: "005" }))
        }
        return seen.length === 2 ? HttpResponse.json({ error: "Service unavailable" }, { status: 503 }) : xmlAnswer(documentXml({ code: "000" }))
      })
    )
    await gateway({ maxRetries: 1 }).instance.putDocument(CASE_ID, "evidence.pdf", file)
    expect(seen.map((request) => request.method)).toEqual(["POST", "PUT", "PUT"])
  })

  it.each([
    ["an empty id", "", file],
    ["a path in the id", "../x.pdf", file],
    ["a dot id", "..", file],
    ["a 101-character id", "a".repeat(101), file],
    ["a header in the content type", "a.pdf", { bytes: PDF, contentType: "application/pdf\r\nx-evil: 1" }],
    ["bytes that are not bytes", "a.pdf", { bytes: "%PDF" as unknown as Uint8Array, contentType: "application/pdf" }],
  ])("refuses %s before sending anything", async (_label, documentId, input) => {
    await expect(gateway().instance.putDocument(CASE_ID, documentId, input)).rejects.toThrow(TypeError)
  })
})
