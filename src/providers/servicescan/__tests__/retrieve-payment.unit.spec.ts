import { setupServer } from "msw/node"
import {
  capturedPayment,
  createProvider,
  expectNoSecrets,
} from "./helpers"
import { listen } from "./msw"

// No handlers: retrievePayment answers from stored data.
const server = setupServer()
listen(server)

describe("retrievePayment", () => {
  it("returns the stored payment, validated, with no call", async () => {
    const { provider, logger } = createProvider()
    const data = capturedPayment()
    const result = await provider.retrievePayment({ data: { ...data } })
    expect(result).toEqual({ data })
    expectNoSecrets(result, logger.text())
  })

  it("returns session data as it is", async () => {
    const { provider } = createProvider()
    await expect(provider.retrievePayment({ data: { form_id: "x" } })).resolves.toEqual({ data: { form_id: "x" } })
  })
})
