import { setupServer } from "msw/node"
import { DisputeGatewayConfigurationError } from "../../errors"
import { BASE, BASIC, caseXml, caught, errorXml, FULL_CASE, gateway, listen, MEDIA_TYPE, retrievalXml, Seen, worldpay, xmlAnswer } from "./helpers"

const server = setupServer()
listen(server)

describe("WorldpayDisputeGateway.listActionableCases", () => {
  it("GETs chargebacks?actionable=true and reads the cases waiting for the merchant", async () => {
    const seen: Seen[] = []
    server.use(
      worldpay(seen, () =>
        xmlAnswer(
          retrievalXml([
            caseXml({ ...FULL_CASE, currentQueue: "Merchant", representedAmount: undefined, representedCurrencyType: undefined }, [
              { activityDate: "2025-01-31", activityType: "Assign To Merchant", fromQueue: "Vantiv", toQueue: "Merchant", settlementAmount: "1999", settlementCurrencyType: "USD" },
            ]),
          ])
        )
      )
    )
    const cases = await gateway().instance.listActionableCases()
    expect(seen.map((request) => [request.method, request.url.toString()])).toEqual([["GET", `${BASE}/chargebacks?actionable=true`]])
    expect(seen[0].headers.get("authorization")).toBe(BASIC)
    expect(seen[0].headers.get("accept")).toBe(MEDIA_TYPE)
    expect(cases).toEqual([
      expect.objectContaining({ caseId: FULL_CASE.caseId, queue: "Merchant", awaitingMerchant: true, representedAmountMinor: undefined }),
    ])
  })

  it("maps 403 to a configuration error", async () => {
    server.use(worldpay([], () => xmlAnswer(errorXml("Forbidden"), 403)))
    const error = await caught(gateway().instance.listActionableCases())
    expect(error).toBeInstanceOf(DisputeGatewayConfigurationError)
    expect(error).toMatchObject({ status: 403 })
  })
})
