import { createServer } from "node:net"
import { HttpClient, ServiceScanConnectionError } from ".."

/** Real sockets, no MSW: what a refused connection looks like to a caller. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("HttpClient over a real socket", () => {
  it("names the socket error of a refused connection, and keeps the key out of it", async () => {
    const port = await closedPort()
    const client = new HttpClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: "sk_secret_value", maxRetries: 0 })
    const error = await client.request({ method: "GET", path: "/disputes/proof/x" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServiceScanConnectionError)
    expect((error as Error).message).toBe(
      `Could not reach GET http://127.0.0.1:${port}/disputes/proof/x: ECONNREFUSED connect ECONNREFUSED 127.0.0.1:${port}`
    )
    expect((error as Error).message).not.toContain("sk_secret_value")
  })
})
