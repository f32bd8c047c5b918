import { setupServer } from "msw/node"
import {
  authorizedPayment,
  capturedPayment,
  CnpRequestRecord,
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
