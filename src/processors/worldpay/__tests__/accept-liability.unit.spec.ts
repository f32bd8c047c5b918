import { setupServer } from "msw/node"
import { DisputeGatewayRefusal } from "../../types"
import { BASE, BASIC, CASE_ID, caught, errorXml, gateway, listen, MEDIA_TYPE, NS, Seen, updateXml, worldpay, xmlAnswer } from "./chargeback-fixtures"

const server = setupServer()
listen(server)

describe("WorldpayDisputeGateway.acceptLiability", () => {
  it("PUTs chargebacks/<caseId> with MERCHANT_ACCEPTS_LIABILITY and the note", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(updateXml("1234"))))
    await expect(gateway().instance.acceptLiability(CASE_ID, { note: "Scan shows true fraud" })).resolves.toEqual({ transactionId: "1234" })
    expect(seen.map((request) => `${request.method} ${request.url.toString()}`)).toEqual([`PUT ${BASE}/chargebacks/${CASE_ID}`])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("content-type")).toBe(`${MEDIA_TYPE}; charset=utf-8`)
    expect(seen[0].body.toString("utf8")).toBe(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><chargebackUpdateRequest xmlns="${NS}">` +
        `<activityType>MERCHANT_ACCEPTS_LIABILITY</activityType><note>Scan shows true fraud</note></chargebackUpdateRequest>`
    )
  })

  it("reads an answer without a transaction id as an empty result", async () => {
    server.use(worldpay([], () => xmlAnswer(`<chargebackUpdateResponse xmlns="${NS}"/>`)))
    await expect(gateway().instance.acceptLiability(CASE_ID, { note: "x" })).resolves.toEqual({})
  })

  it("maps 400 'Cannot perform activity' (a case already answered) to a refusal", async () => {
    const text = `Cannot perform activity <Merchant Accepts Liability> for case <${CASE_ID}> in queue <Merchant Assumed>`
    server.use(worldpay([], () => xmlAnswer(errorXml(text), 400)))
    const error = await caught(gateway().instance.acceptLiability(CASE_ID, { note: "x" }))
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code: "400" })
    expect(error.message).toContain(text)
  })
})
