import { setupServer } from "msw/node"
import {
  createProvider,
} from "./helpers"
import { listen } from "./msw"

const server = setupServer()
listen(server)

describe("getWebhookActionAndData", () => {
  it("answers not_supported: the service sends no webhooks", async () => {
    const { provider } = createProvider()
    await expect(
      provider.getWebhookActionAndData({ data: { anything: 1 }, rawData: "{}", headers: {} })
    ).resolves.toEqual({ action: "not_supported" })
  })
})
