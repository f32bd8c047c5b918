import type { setupServer } from "msw/node"
import { setHttpDispatcher } from "../../http"
import { UndiciOverFetch } from "./undici-over-fetch"

/**
 * Starts an MSW server for a spec file. A request no handler expected fails
 * the test that made it, even where the code under test catches the error MSW
 * gives it (a quiet release of a partial approval, a client retrying and then
 * answering with its own error): `onUnhandledRequest: "error"` alone only
 * fails the request, which such code turns into a pass.
 *
 * While it listens, the HTTP core sends through the global fetch, the one
 * thing MSW intercepts (see `UndiciOverFetch`); loopback stays real.
 */
export function listenStrictly(server: ReturnType<typeof setupServer>): void {
  const unexpected: string[] = []
  const dispatcher = new UndiciOverFetch()
  beforeAll(() => {
    server.listen({
      onUnhandledRequest: (request, print) => {
        unexpected.push(`${request.method} ${request.url}`)
        print.error()
      },
    })
    setHttpDispatcher(dispatcher)
  })
  afterEach(() => {
    server.resetHandlers()
    const seen = unexpected.splice(0)
    if (seen.length > 0) {
      throw new Error(`requests no handler expected: ${seen.join(", ")}`)
    }
  })
  afterAll(async () => {
    setHttpDispatcher(undefined)
    server.close()
    await dispatcher.close()
  })
}
