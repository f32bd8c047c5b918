import { HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { HttpConnectionError, HttpStatusError } from "../../../lib/http"
import { DisputeGatewayConfigurationError, DisputeGatewayProtocolError, DisputeGatewayRefusal } from "../../types"
import { BASE, BASIC, CASE_ID, caught, errorXml, expectNoSecret, gateway, listen, MEDIA_TYPE, NS, Seen, updateXml, worldpay, xmlAnswer } from "./chargeback-fixtures"

const server = setupServer()
listen(server)

const HEAD = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`

describe("WorldpayDisputeGateway.represent", () => {
  it("PUTs chargebacks/<caseId> with a chargebackUpdateRequest: MERCHANT_REPRESENT, the note, the represented amount", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(updateXml("6997445609488924"))))
    const result = await gateway().instance.represent(CASE_ID, { note: "Card scan <valid> & signed", amountMinor: 1500 })
    expect(result).toEqual({ transactionId: "6997445609488924" })
    expect(seen.map((request) => `${request.method} ${request.url.toString()}`)).toEqual([`PUT ${BASE}/chargebacks/${CASE_ID}`])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("content-type")).toBe(`${MEDIA_TYPE}; charset=utf-8`)
    expect(seen[0].headers.get("accept")).toBe(MEDIA_TYPE)
    expect(seen[0].body.toString("utf8")).toBe(
      `${HEAD}<chargebackUpdateRequest xmlns="${NS}"><activityType>MERCHANT_REPRESENT</activityType>` +
        `<note>Card scan &lt;valid&gt; &amp; signed</note><representedAmount>1500</representedAmount></chargebackUpdateRequest>`
    )
  })

  it("leaves representedAmount out when the whole amount is contested", async () => {
    const seen: Seen[] = []
    server.use(worldpay(seen, () => xmlAnswer(updateXml())))
    await gateway().instance.represent(CASE_ID, { note: "Evidence attached" })
    expect(seen[0].body.toString("utf8")).toBe(
      `${HEAD}<chargebackUpdateRequest xmlns="${NS}"><activityType>MERCHANT_REPRESENT</activityType><note>Evidence attached</note></chargebackUpdateRequest>`
    )
  })

  it("maps 400 'Cannot perform activity' to a refusal with Worldpay's text", async () => {
    const text = `Cannot perform activity <Merchant Represent> for case <${CASE_ID}> in queue <Vantiv>`
    server.use(worldpay([], () => xmlAnswer(errorXml(text), 400)))
    const error = await caught(gateway().instance.represent(CASE_ID, { note: "again" }))
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code: "400", gateway: "worldpay" })
    expect(error.message).toBe(`Worldpay refused sending MERCHANT_REPRESENT for case ${CASE_ID}: ${text}`)
    expect(error.cause).toBeInstanceOf(HttpStatusError)
  })

  it("maps 404 to a refusal (code 404): Worldpay does not know the case", async () => {
    server.use(worldpay([], () => xmlAnswer(errorXml("Could not find requested object."), 404)))
    const error = await caught(gateway().instance.represent(CASE_ID, { note: "x" }))
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code: "404" })
    expect(error.message).toBe(
      `Worldpay does not know case ${CASE_ID} (HTTP 404 while sending MERCHANT_REPRESENT for case ${CASE_ID}): Could not find requested object.`
    )
  })

  it("maps 401 to a configuration error without the credentials", async () => {
    server.use(worldpay([], () => xmlAnswer(errorXml("You are not authorized to access this resource. Please check your credentials."), 401)))
    const error = await caught(gateway().instance.represent(CASE_ID, { note: "x" }))
    expect(error).toBeInstanceOf(DisputeGatewayConfigurationError)
    expectNoSecret(error)
  })

  it("never repeats the update: a 503 and a lost answer surface after one request", async () => {
    for (const answer of [() => HttpResponse.json({ error: "Service unavailable" }, { status: 503 }), () => HttpResponse.error()]) {
      const seen: Seen[] = []
      server.use(worldpay(seen, answer))
      const { instance, retries } = gateway({ maxRetries: 3 })
      const error = await caught(instance.represent(CASE_ID, { note: "x" }))
      expect(error instanceof HttpStatusError || error instanceof HttpConnectionError).toBe(true)
      expect(seen).toHaveLength(1)
      expect(retries).toHaveLength(0)
      expectNoSecret(error)
    }
  })

  it("refuses an answer it cannot read", async () => {
    server.use(worldpay([], () => xmlAnswer("<chargebackUpdateResponse><transactionId>1</transactionId>")))
    await expect(gateway().instance.represent(CASE_ID, { note: "x" })).rejects.toBeInstanceOf(DisputeGatewayProtocolError)
  })

  it.each([
    ["an empty note", { note: " " }],
    ["a note over 4000 characters", { note: "n".repeat(4001) }],
    ["a zero amount", { note: "x", amountMinor: 0 }],
    ["a fractional amount", { note: "x", amountMinor: 12.5 }],
  ])("refuses %s before sending anything", async (_label, input) => {
    await expect(gateway().instance.represent(CASE_ID, input)).rejects.toThrow(TypeError)
  })
})
