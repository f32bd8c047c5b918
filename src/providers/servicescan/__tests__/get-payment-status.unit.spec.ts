import { setupServer } from "msw/node"
import {
  authorizedPayment,
  capturedPayment,
  createProvider,
  submittedSession,
} from "./helpers"
import { listen } from "./msw"

// No handlers: the status comes from stored data (cnpAPI has no cheap status lookup).
const server = setupServer()
listen(server)

describe("getPaymentStatus", () => {
  it.each([
    ["authorized", authorizedPayment()],
    ["captured", capturedPayment()],
    ["canceled", authorizedPayment({ status: "canceled" })],
  ])("is %s from the stored data, with no call", async (status, data) => {
    const { provider } = createProvider()
    await expect(provider.getPaymentStatus({ data })).resolves.toEqual({ status, data })
  })

  it("is pending for a session, submitted or not", async () => {
    const { provider } = createProvider()
    const data = await submittedSession(provider)
    await expect(provider.getPaymentStatus({ data })).resolves.toEqual({ status: "pending", data })
    await expect(provider.getPaymentStatus({ data: {} })).resolves.toMatchObject({ status: "pending" })
  })
})
