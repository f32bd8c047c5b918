import type { setupServer } from "msw/node"

/**
 * Starts an MSW server for a spec file. A request no handler expected fails
 * the test that made it, even where the code under test catches the error MSW
 * gives it (a quiet release of a partial approval, a client retrying and then
 * answering with its own error): `onUnhandledRequest: "error"` alone only
 * fails the request, which such code turns into a pass.
 */
export function listenStrictly(server: ReturnType<typeof setupServer>): void {
  const unexpected: string[] = []
  beforeAll(() =>
    server.listen({
      onUnhandledRequest: (request, print) => {
        unexpected.push(`${request.method} ${request.url}`)
        print.error()
      },
    })
  )
  afterEach(() => {
    server.resetHandlers()
    const seen = unexpected.splice(0)
    if (seen.length > 0) {
      throw new Error(`requests no handler expected: ${seen.join(", ")}`)
    }
  })
  afterAll(() => server.close())
}
