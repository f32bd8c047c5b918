import { setupServer } from "msw/node"
import {
  authorizedPayment,
  capturedPayment,
  CnpRequestRecord,
  cnpResponse,
  createProvider,
  logEntries,
  SESSION_ID,
  submittedSession,
} from "./helpers"
import { cnpHandler, listen } from "./msw"

const server = setupServer()
listen(server)

describe("deletePayment", () => {
  it("has nothing to do for a pending session (no network call)", async () => {
    const { provider } = createProvider()
    const data = await submittedSession(provider)
    await expect(provider.deletePayment({ data, context: { idempotency_key: SESSION_ID } })).resolves.toEqual({ data })
  })

  it("releases an authorization left on a session whose order was never created", async () => {
    const cnp: CnpRequestRecord[] = []
    server.use(cnpHandler(cnp, () => cnpResponse("authReversal")))
    const { provider } = createProvider()
    const result = await provider.deletePayment({ data: authorizedPayment(), context: {} })
    expect(cnp.map((r) => r.type)).toEqual(["authReversal"])
    expect(result.data).toMatchObject({ status: "canceled" })
  })

  it("never touches a captured payment", async () => {
    const { provider } = createProvider()
    const data = capturedPayment()
    await expect(provider.deletePayment({ data, context: {} })).resolves.toEqual({ data })
  })

  it("does not block the shopper when the release fails; the merchant gets a log line", async () => {
    server.use(cnpHandler([], () => cnpResponse("authReversal", { response: "360", message: "No transaction found" })))
    const { provider, logger } = createProvider()
    const data = authorizedPayment()
    await expect(provider.deletePayment({ data, context: {} })).resolves.toEqual({ data })
    expect(logEntries(logger)).toEqual([
      expect.objectContaining({ operation: "delete", event: "failed", processor_code: "360" }),
    ])
  })
})
