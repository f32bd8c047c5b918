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
  logEntries,
  SESSION_ID,
  SESSION_REQUEST_ID,
  submittedSession,
} from "./helpers"
import { cnpHandler, listen } from "./msw"

const server = setupServer()
listen(server)

describe("deletePayment", () => {
  it("has nothing to do for a session whose form was never submitted (no network call)", async () => {
    const { provider } = createProvider()
    const { data } = await provider.initiatePayment({
      amount: 10,
      currency_code: "usd",
      data: {},
      context: { idempotency_key: SESSION_ID },
    })
    await expect(provider.deletePayment({ data, context: {} })).resolves.toEqual({ data })
  })

  it("asks the processor about a submitted session; nothing authorized under its request id: nothing to release", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpQueryResponse([])))
    const { provider } = createProvider()
    const data = await submittedSession(provider)
    await expect(provider.deletePayment({ data, context: {} })).resolves.toEqual({ data })
    expect(cnp.map((r) => [r.type, r.txn.origId, r.txn.origActionType])).toEqual([
      ["queryTransaction", SESSION_REQUEST_ID, "A"],
    ])
    // A query is a read: its own id is fresh, never the original's (duplicate detection must not answer it).
    expect(cnp[0].txn["@_id"]).not.toBe(SESSION_REQUEST_ID)
  })

  it("releases an authorization whose answer was lost, on a session that never completed", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(
      cnpHandler(cnp, (request) =>
        request.type === "queryTransaction"
          ? cnpQueryResponse(request.txn.origActionType === "A" ? [{ type: "authorization", cnpTxnId: "84000000000000777" }] : [])
          : cnpResponse(request.type, { cnpTxnId: "84000000000000778" })
      )
    )
    const { provider, logger } = createProvider()
    const data = await submittedSession(provider)
    await expect(provider.deletePayment({ data, context: {} })).resolves.toEqual({ data })
    expect(cnp.map((r) => [r.type, r.txn.origActionType ?? r.txn.cnpTxnId])).toEqual([
      ["queryTransaction", "A"],
      ["queryTransaction", "AR"],
      ["authReversal", "84000000000000777"],
    ])
    expect(cnp[2].txn["@_id"]).toBe(SESSION_REQUEST_ID)
    expect(logEntries(logger)).toContainEqual(
      expect.objectContaining({ operation: "delete", event: "orphan_released", request_id: SESSION_REQUEST_ID })
    )
  })

  it("leaves an authorization the processor already released alone", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(
      cnpHandler(cnp, (request) =>
        cnpQueryResponse([{ type: request.txn.origActionType === "A" ? "authorization" : "authReversal" }])
      )
    )
    const { provider } = createProvider()
    await provider.deletePayment({ data: await submittedSession(provider), context: {} })
    expect(cnp.map((r) => r.type)).toEqual(["queryTransaction", "queryTransaction"])
  })

  it("throws when the processor cannot be asked, so Medusa keeps the session for the reconciliation job", async () => {
    server.use(cnpHandler([], () => new HttpResponse("down", { status: 503 })))
    const { provider } = createProvider({ maxRetries: 0 })
    const data = await submittedSession(provider)
    await expect(provider.deletePayment({ data, context: {} })).rejects.toMatchObject({
      type: MedusaError.Types.UNEXPECTED_STATE,
    })
  })

  it("never releases an authorization: the session may belong to an order already placed", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp))
    const { provider, logger } = createProvider()
    const data = authorizedPayment()
    await expect(provider.deletePayment({ data, context: {} })).resolves.toEqual({ data })
    expect(cnp).toEqual([])
    expect(logEntries(logger)).toEqual([
      expect.objectContaining({ operation: "delete", event: "authorization_kept", request_id: data.request_id }),
    ])
  })

  it("never touches a captured payment", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp))
    const { provider } = createProvider()
    const data = capturedPayment()
    await expect(provider.deletePayment({ data, context: {} })).resolves.toEqual({ data })
    expect(cnp).toEqual([])
  })
})
