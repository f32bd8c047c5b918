import { HttpResponse } from "msw"
import { HttpStatusError, UnreadableResponseError } from "../../../lib/http"
import { DisputeGatewayConfigurationError, DisputeGatewayProtocolError, DisputeGatewayRefusal } from "../../types"
import {
  BASIC,
  caseXml,
  caught,
  errorXml,
  expectNoSecret,
  FULL_CASE,
  FULL_RECORD,
  gateway,
  localWorldpay,
  MEDIA_TYPE,
  retrievalXml,
  Seen,
  xmlAnswer,
} from "./chargeback-fixtures"

const local = localWorldpay()

describe("WorldpayDisputeGateway.listCasesByActivityDate", () => {
  it("GETs chargebacks?date= with Basic auth and the Chargeback API media type, and reads every case", async () => {
    const seen: Seen[] = []
    const second = caseXml({ ...FULL_CASE, caseId: "397892775807", currentQueue: "Merchant" }, [
      { activityDate: "2025-01-31", activityType: "Assign To Merchant", fromQueue: "Vantiv", toQueue: "Merchant" },
    ])
    local.use(seen, () => xmlAnswer(retrievalXml([caseXml(), second])))

    const cases = await gateway({ url: local.base }).instance.listCasesByActivityDate("2025-01-31")

    expect(seen).toHaveLength(1)
    expect(seen[0].method).toBe("GET")
    expect(`${seen[0].url.origin}${seen[0].url.pathname}`).toBe(`${local.base}/chargebacks`)
    expect([...seen[0].url.searchParams]).toEqual([["date", "2025-01-31"]])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("accept")).toBe(MEDIA_TYPE)
    expect(seen[0].body.length).toBe(0)
    expect(cases).toEqual([
      FULL_RECORD,
      expect.objectContaining({ caseId: "397892775807", queue: "Merchant", awaitingMerchant: true, activities: [expect.objectContaining({ type: "Assign To Merchant" })] }),
    ])
  })

  it("reads a day without cases as an empty list", async () => {
    local.use([], () => xmlAnswer(retrievalXml([])))
    await expect(gateway({ url: local.base }).instance.listCasesByActivityDate("2025-02-01")).resolves.toEqual([])
  })

  it("keeps only the configured merchant's cases when the credentials open several", async () => {
    local.use([], () =>
        xmlAnswer(
          retrievalXml([
            caseXml({ ...FULL_CASE, caseId: "1", merchantId: "1288791" }),
            caseXml({ ...FULL_CASE, caseId: "2", merchantId: "9999999" }),
            caseXml({ ...FULL_CASE, caseId: "3", merchantId: undefined }),
          ])
        )
      )
    const cases = await gateway({ url: local.base, merchantId: "1288791" }).instance.listCasesByActivityDate("2025-01-31")
    expect(cases.map((kase) => kase.caseId)).toEqual(["1", "3"])
  })

  it("compares merchant ids as the number the Chargeback API sends (an xs:long), not as text", async () => {
    local.use([], () =>
      xmlAnswer(
        retrievalXml([
          caseXml({ ...FULL_CASE, caseId: "1", merchantId: "01288791" }),
          caseXml({ ...FULL_CASE, caseId: "2", merchantId: "+1288791" }),
          caseXml({ ...FULL_CASE, caseId: "3", merchantId: "12887910" }),
          caseXml({ ...FULL_CASE, caseId: "4", merchantId: "1288791" }),
        ])
      )
    )
    const cases = await gateway({ url: local.base, merchantId: "1288791" }).instance.listCasesByActivityDate("2025-01-31")
    expect(cases.map((kase) => kase.caseId)).toEqual(["1", "2", "4"])
  })

  it("retries a 503 and a reset connection (a read), and the retry events carry no credentials", async () => {
    const seen: Seen[] = []
    local.use(seen, () => {
        if (seen.length === 1) {
          return HttpResponse.json({ error: "Service unavailable" }, { status: 503 })
        }
        if (seen.length === 2) {
          return HttpResponse.error()
        }
        return xmlAnswer(retrievalXml([caseXml()]))
      })
    const { instance, retries } = gateway({ url: local.base, maxRetries: 2 })
    await expect(instance.listCasesByActivityDate("2025-01-31")).resolves.toHaveLength(1)
    expect(seen).toHaveLength(3)
    expect(retries.map((event) => event.attempt)).toEqual([1, 2])
    expect(retries[0].request).toEqual({ method: "GET", url: `${local.base}/chargebacks?date=2025-01-31` })
    expect(retries.map((event) => event.reason)).toEqual([
      `GET ${local.base}/chargebacks?date=2025-01-31 answered 503: Service unavailable`,
      `Could not reach GET ${local.base}/chargebacks?date=2025-01-31: read ECONNRESET`,
    ])
    expectNoSecret(retries)
  })

  it("refuses a malformed day before sending anything", async () => {
    const { instance } = gateway({ url: local.base })
    for (const day of ["2025-1-31", "2025-13-01", "31/01/2025", "", "2025-01-31&actionable=true"]) {
      await expect(instance.listCasesByActivityDate(day)).rejects.toThrow(TypeError)
    }
  })

  it("maps 401 to a configuration error that names what to check and not the credentials", async () => {
    local.use([], () =>
        xmlAnswer(errorXml("You are not authorized to access this resource. Please check your credentials."), 401, {
          "www-authenticate": 'Basic realm="Chargeback API"',
        })
      )
    const error = await caught(gateway({ url: local.base }).instance.listCasesByActivityDate("2025-01-31"))
    expect(error).toBeInstanceOf(DisputeGatewayConfigurationError)
    expect(error).toMatchObject({ gateway: "worldpay", status: 401 })
    expect(error.message).toBe(
      "Worldpay's Chargeback API refused the credentials while retrieving cases (date=2025-01-31) (HTTP 401): " +
        "check the dispute gateway's user and password (the merchant's cnpAPI credentials) and that Worldpay enabled the Chargeback API for them"
    )
    expect(error.message).not.toContain("cbk-user")
    expectNoSecret(error)
  })

  it("maps a 400 to a refusal carrying Worldpay's errors", async () => {
    local.use([], () =>
        xmlAnswer(errorXml("Bad Request. Error in request. Poorly formatted header/xml or cannot perform activity."), 400)
      )
    const error = await caught(gateway({ url: local.base }).instance.listCasesByActivityDate("2025-01-31"))
    expect(error).toBeInstanceOf(DisputeGatewayRefusal)
    expect(error).toMatchObject({ code: "400" })
    expect(error.message).toContain("Poorly formatted header/xml")
  })

  it("keeps a 500 the HTTP core's error after the retries", async () => {
    const seen: Seen[] = []
    local.use(seen, () => new HttpResponse("oops", { status: 500 }))
    const error = await caught(gateway({ url: local.base, maxRetries: 1 }).instance.listCasesByActivityDate("2025-01-31"))
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(seen).toHaveLength(2)
    expectNoSecret(error)
  })

  it.each([
    ["HTML from a proxy", "<html><body>Bad gateway</body></html>"],
    ["a truncated answer", retrievalXml([caseXml(), caseXml()]).slice(0, -400)],
    ["another document", "<chargebackUpdateResponse><transactionId>1</transactionId></chargebackUpdateResponse>"],
    ["a case without an amount", retrievalXml([caseXml({ ...FULL_CASE, chargebackAmount: undefined })])],
    ["a decimal amount", retrievalXml([caseXml({ ...FULL_CASE, chargebackAmount: "19.99" })])],
  ])("answers %s with a protocol error", async (_label, body) => {
    local.use([], () => xmlAnswer(body))
    const error = await caught(gateway({ url: local.base }).instance.listCasesByActivityDate("2025-01-31"))
    expect(error).toBeInstanceOf(DisputeGatewayProtocolError)
    expect(error).toMatchObject({ gateway: "worldpay" })
  })

  it("refuses an answer over maxRetrievalBytes without reading it whole", async () => {
    const body = retrievalXml(Array.from({ length: 50 }, () => caseXml()))
    local.use([], () => xmlAnswer(body))
    const error = await caught(gateway({ url: local.base, maxRetrievalBytes: 10_000 }).instance.listCasesByActivityDate("2025-01-31"))
    expect(error).toBeInstanceOf(UnreadableResponseError)
    expect(error.message).toBe("The answer is larger than 10000 bytes")
  })
})
