import { http, HttpResponse } from "msw"
import { setupServer } from "msw/node"
import { HttpStatusError } from "../../../lib/http"
import { GatewayConfigurationError, GatewayProtocolError } from "../../types"
import { WorldpayGateway } from "../payment-gateway"
import { classifyResponseCode } from "../response-codes"
import { parseCnpResponse } from "../cnp-xml"
import { listenStrictly as listen } from "../../../lib/__tests__/support/msw-listen"
import {
  CNP_PASSWORD,
  CNP_URL,
  CNP_USER,
  cnpHandler,
  CnpRequestRecord,
  cnpResponse,
  MERCHANT_ID,
  TOKEN,
} from "./cnp-fixtures"

const server = setupServer()
listen(server)

const gateway = (overrides: Partial<ConstructorParameters<typeof WorldpayGateway>[0]> = {}) =>
  new WorldpayGateway({ url: CNP_URL, merchantId: MERCHANT_ID, user: CNP_USER, password: CNP_PASSWORD, maxRetries: 0, ...overrides })

describe("WorldpayGateway wire format", () => {
  it("escapes credentials and writes the configured version and report group", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp))
    await gateway({ reportGroup: "EU <Shop>", version: "12.38" }).authorize({
      requestId: "r1",
      orderId: "o1",
      amount: 0,
      currencyCode: "usd",
      token: TOKEN,
    })
    expect(cnp[0].raw).toContain("<password>cnp-PASSWORD-secret-42&lt;&amp;&gt;</password>")
    expect(cnp[0].root["@_version"]).toBe("12.38")
    expect(cnp[0].txn["@_reportGroup"]).toBe("EU <Shop>")
    expect(cnp[0].txn.amount).toBe("0")
    expect(cnp[0].txn["@_customerId"]).toBeUndefined()
  })

  it("writes a partial capture with partial=\"true\" and its amount", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("capture")))
    await gateway().capture({ requestId: "c1", transactionId: "123", amount: 400 })
    expect(cnp[0].raw).toMatch(/<capture id="c1" reportGroup="Default Report Group" partial="true">/)
    expect(cnp[0].txn).toMatchObject({ cnpTxnId: "123", amount: "400" })
  })

  it.each([
    ["refund", "credit", { requestId: "x", transactionId: "9", amount: 125, currencyCode: "kwd" }, { cnpTxnId: "9", amount: "125" }],
    ["cancel", "authReversal", { requestId: "x", transactionId: "9", target: "authorization" }, { cnpTxnId: "9" }],
    ["cancel", "void", { requestId: "x", transactionId: "9", target: "capture" }, { cnpTxnId: "9" }],
  ] as const)("%s sends <%s>", async (method, type, request, fields) => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse(type)))
    const result = await (gateway()[method] as (r: typeof request) => Promise<unknown>)(request)
    expect(cnp[0].type).toBe(type)
    expect(cnp[0].txn).toEqual({ "@_id": "x", "@_reportGroup": "Default Report Group", ...fields })
    expect(result).toMatchObject({ outcome: "approved" })
  })

  it("reads card details when the merchant profile returns them", async () => {
    server.use(
      cnpHandler([], () =>
        cnpResponse("authorization", {
          extra: { accountInformation: { type: "MC", number: "XXXXXXXXXXXX4444" } },
        })
      )
    )
    const result = await gateway().authorize({ requestId: "r", orderId: "o", amount: 1, currencyCode: "usd", token: TOKEN })
    expect(result.card).toEqual({ last4: "4444", type: "MC" })
  })

  it("reads the older litleOnlineResponse dialect", () => {
    const parsed = parseCnpResponse(
      '<litleOnlineResponse version="8.10" xmlns="http://www.litle.com/schema" response="0" message="Valid Format">' +
        "<saleResponse id=\"a\"><litleTxnId>42</litleTxnId><response>000</response><message>Approved</message></saleResponse>" +
        "</litleOnlineResponse>"
    )
    expect(parsed.transaction).toMatchObject({ type: "sale", cnpTxnId: "42", response: "000" })
  })

  it("refuses documents with a DOCTYPE and non-XML bodies as protocol errors", async () => {
    server.use(cnpHandler([], () => '<!DOCTYPE x [<!ENTITY a "b">]><cnpOnlineResponse response="0"/>'))
    await expect(
      gateway().authorize({ requestId: "r", orderId: "o", amount: 1, currencyCode: "usd", token: TOKEN })
    ).rejects.toBeInstanceOf(GatewayProtocolError)
    server.use(cnpHandler([], () => cnpResponse("capture")))
    await expect(
      gateway().authorize({ requestId: "r", orderId: "o", amount: 1, currencyCode: "usd", token: TOKEN })
    ).rejects.toThrow(/without a <authorizationResponse>/)
  })

  it("maps an envelope refusal to GatewayConfigurationError and an HTTP error to the typed HTTP error", async () => {
    server.use(cnpHandler([], () => cnpResponse("authorization", {}, { response: "1", message: "Error validating xml data against the schema" })))
    await expect(
      gateway().authorize({ requestId: "r", orderId: "o", amount: 1, currencyCode: "usd", token: TOKEN })
    ).rejects.toBeInstanceOf(GatewayConfigurationError)
    server.use(http.post(CNP_URL, () => new HttpResponse("Bad Gateway", { status: 502 })))
    await expect(
      gateway().authorize({ requestId: "r", orderId: "o", amount: 1, currencyCode: "usd", token: TOKEN })
    ).rejects.toBeInstanceOf(HttpStatusError)
  })
})

describe("classifyResponseCode", () => {
  it.each([
    ["authorization", "000", "approved", undefined],
    ["authorization", "010", "declined", "partial_approval"],
    ["authorization", "110", "declined", "insufficient_funds"],
    ["authorization", "120", "declined", "call_issuer"],
    ["authorization", "301", "declined", "invalid_card_number"],
    ["authorization", "305", "declined", "expired_card"],
    ["authorization", "304", "declined", "restricted_card"],
    ["authorization", "349", "declined", "do_not_honor"],
    ["authorization", "352", "declined", "invalid_cvv"],
    ["authorization", "101", "declined", "issuer_unavailable"],
    ["authorization", "822", "declined", "invalid_token"],
    ["authorization", "878", "declined", "expired_token"],
    ["authorization", "111", "declined", "already_captured"],
    ["capture", "111", "already_done", undefined],
    ["capture", "306", "declined", "authorization_unavailable"],
    ["authReversal", "111", "declined", "already_captured"],
    ["authReversal", "306", "already_done", undefined],
    ["authReversal", "361", "already_done", undefined],
    ["void", "362", "declined", "already_settled"],
    ["credit", "365", "declined", "exceeds_captured_amount"],
  ] as const)("%s %s is %s (%s)", (type, code, outcome, reason) => {
    expect(classifyResponseCode(type, code)).toEqual(reason ? { outcome, reason } : { outcome })
  })
})
