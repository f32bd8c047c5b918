import { MedusaError } from "@medusajs/framework/utils"
import { HttpResponse } from "msw"
import { setupServer } from "msw/node"
import {
  authorizedPayment,
  capturedPayment,
  CnpRequestRecord,
  cnpQueryResponse,
  cnpResponse,
  createProvider,
  expectNoSecrets,
  SESSION_ID,
  SESSION_REQUEST_ID,
  submittedSession,
} from "./helpers"
import { cnpHandler, exchangeHandler, listen } from "./msw"

const server = setupServer()
listen(server)

describe("cancelPayment", () => {
  it("releases an authorization with cnpAPI authReversal and records it", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("authReversal", { cnpTxnId: "84000000000000003" })))
    const { provider, logger } = createProvider()

    const result = await provider.cancelPayment({
      data: authorizedPayment(),
      context: { idempotency_key: "pay_01JB8XKQ7YV2M3N4P5Q6R7S8P1" },
    })

    expect(cnp.map((r) => [r.type, r.txn])).toEqual([
      [
        "authReversal",
        { "@_id": SESSION_REQUEST_ID, "@_reportGroup": "Default Report Group", cnpTxnId: "84000000000000001" },
      ],
    ])
    expect(result.data).toMatchObject({
      status: "canceled",
      cancellation: {
        kind: "authorization",
        cnp_txn_id: "84000000000000003",
        request_id: SESSION_REQUEST_ID,
        processor_response: { code: "000", message: "Approved" },
      },
    })
    expectNoSecrets(result, logger.text())
  })

  it("sends the same request id from Medusa's compensation, which passes no idempotency key", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("authReversal")))
    const { provider } = createProvider()
    await provider.cancelPayment({ data: authorizedPayment(), context: {} })
    await provider.cancelPayment({ data: authorizedPayment(), context: { idempotency_key: "pay_x" } })
    expect(cnp.map((r) => r.txn["@_id"])).toEqual([SESSION_REQUEST_ID, SESSION_REQUEST_ID])
  })

  it("voids a same-day sale (automatic capture)", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("void")))
    const { provider } = createProvider()
    const sale = capturedPayment({
      capture_mode: "automatic",
      cnp_txn_id: "5550001",
      captures: [{ cnp_txn_id: "5550001", amount_minor: 1050, request_id: SESSION_REQUEST_ID, captured_at: "t" }],
    })
    const result = await provider.cancelPayment({ data: sale, context: {} })
    expect(cnp.map((r) => [r.type, r.txn.cnpTxnId])).toEqual([["void", "5550001"]])
    expect(result.data).toMatchObject({ status: "canceled", cancellation: { kind: "capture" } })
  })

  it("refuses to call a captured authorization (111) released, and says how to record the capture", async () => {
    server.use(
      cnpHandler([], () => cnpResponse("authReversal", { response: "111", message: "Authorization amount has already been depleted" }))
    )
    const { provider } = createProvider()
    await expect(provider.cancelPayment({ data: authorizedPayment(), context: {} })).rejects.toMatchObject({
      type: MedusaError.Types.NOT_ALLOWED,
      message:
        "Worldpay did not cancel the payment (111 Authorization amount has already been depleted). The processor already captured this authorization, so it cannot be released: capture the payment in Medusa to record that capture, then refund it.",
      processorResponse: { code: "111" },
    })
  })

  it.each([
    ["306", "Authorization no longer available"],
    ["361", "Authorization no longer available"],
  ])("counts %s (already released) as success", async (code, message) => {
    server.use(cnpHandler([], () => cnpResponse("authReversal", { response: code, message })))
    const { provider } = createProvider()
    const result = await provider.cancelPayment({ data: authorizedPayment(), context: {} })
    expect(result.data).toMatchObject({
      status: "canceled",
      cancellation: { processor_response: { code, message } },
    })
  })

  it("does not count a settled capture (362) as voided", async () => {
    server.use(
      cnpHandler([], () => cnpResponse("void", { response: "362", message: "Transaction Not Voided - Already Settled" }))
    )
    const { provider } = createProvider()
    await expect(provider.cancelPayment({ data: capturedPayment(), context: {} })).rejects.toMatchObject({
      type: MedusaError.Types.NOT_ALLOWED,
      processorResponse: { code: "362" },
    })
  })

  it("does nothing for a session that was never authorized, or a payment already canceled", async () => {
    const { provider } = createProvider()
    const pending = { form_id: "3f1c2b9e-7a4d-4c21-9b8e-0d5f6a7b8c9d", currency_code: "usd" }
    await expect(provider.cancelPayment({ data: pending, context: {} })).resolves.toEqual({ data: pending })
    const canceled = authorizedPayment({ status: "canceled" })
    await expect(provider.cancelPayment({ data: canceled, context: {} })).resolves.toEqual({ data: canceled })
  })

  it("a released session cannot be authorized again with the processor's stale duplicate approval", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(
      exchangeHandler([]),
      cnpHandler(cnp, (request) =>
        request.type === "queryTransaction"
          ? // The processor's own records: the authorization was reversed under the same request id.
            cnpQueryResponse(request.txn.origActionType === "AR" ? [{ type: "authReversal" }] : [])
          : cnpResponse(request.type, { duplicate: request.type === "authorization" && cnp.length > 2 })
      )
    )
    const { provider } = createProvider()
    const data = await submittedSession(provider)
    const authorized = await provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
    // Medusa's compensation: the Payment could not be created, the authorization is released,
    // and the session keeps its pre-authorization data.
    await provider.cancelPayment({ data: authorized.data, context: {} })
    await expect(
      provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })
    ).rejects.toMatchObject({
      type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
      message: "Your payment form expired. Please enter your card details again.",
    })
    // Asked, not remembered: another process (a second server, a worker) gets the same answer.
    expect(cnp.map((r) => r.type)).toEqual(["authorization", "authReversal", "authorization", "queryTransaction"])
    expect(cnp[3].txn).toMatchObject({ origId: SESSION_REQUEST_ID, origActionType: "AR" })
  })

  it("a duplicate approval the processor never released goes ahead (a retry after a lost answer)", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(
      exchangeHandler([]),
      cnpHandler(cnp, (request) =>
        request.type === "queryTransaction" ? cnpQueryResponse([]) : cnpResponse(request.type, { duplicate: true })
      )
    )
    const { provider } = createProvider()
    const data = await submittedSession(provider)
    await expect(provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })).resolves.toMatchObject({
      status: "authorized",
    })
    expect(cnp.map((r) => r.type)).toEqual(["authorization", "queryTransaction"])
  })

  it("cannot tell whether a duplicate approval was released: unknown (409), never a second charge", async () => {
    server.use(
      exchangeHandler([]),
      cnpHandler([], (request) =>
        request.type === "queryTransaction"
          ? new HttpResponse("busy", { status: 503 })
          : cnpResponse(request.type, { duplicate: true })
      )
    )
    const { provider } = createProvider({ maxRetries: 0 })
    const data = await submittedSession(provider)
    await expect(provider.authorizePayment({ data, context: { idempotency_key: SESSION_ID } })).rejects.toMatchObject({
      type: MedusaError.Types.CONFLICT,
    })
  })
})
