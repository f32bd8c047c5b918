import { DisputeGatewayConfigurationError } from "../../types"
import { BASIC, caseXml, caught, errorXml, FULL_CASE, gateway, localWorldpay, MEDIA_TYPE, retrievalXml, Seen, xmlAnswer } from "./chargeback-fixtures"

const local = localWorldpay()

describe("WorldpayDisputeGateway.listActionableCases", () => {
  it("GETs chargebacks?actionable=true and reads the cases waiting for the merchant", async () => {
    const seen: Seen[] = []
    local.use(seen, () =>
        xmlAnswer(
          retrievalXml([
            caseXml({ ...FULL_CASE, currentQueue: "Merchant", representedAmount: undefined, representedCurrencyType: undefined }, [
              { activityDate: "2025-01-31", activityType: "Assign To Merchant", fromQueue: "Vantiv", toQueue: "Merchant", settlementAmount: "1999", settlementCurrencyType: "USD" },
            ]),
          ])
        )
      )
    const cases = await gateway({ url: local.base }).instance.listActionableCases()
    expect(seen.map((request) => [request.method, request.url.toString()])).toEqual([["GET", `${local.base}/chargebacks?actionable=true`]])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("accept")).toBe(MEDIA_TYPE)
    expect(cases).toEqual([
      expect.objectContaining({ caseId: FULL_CASE.caseId, queue: "Merchant", awaitingMerchant: true, representedAmountMinor: undefined }),
    ])
  })

  it("maps 403 to a configuration error", async () => {
    local.use([], () => xmlAnswer(errorXml("Forbidden"), 403))
    const error = await caught(gateway({ url: local.base }).instance.listActionableCases())
    expect(error).toBeInstanceOf(DisputeGatewayConfigurationError)
    expect(error).toMatchObject({ status: 403 })
  })
})
