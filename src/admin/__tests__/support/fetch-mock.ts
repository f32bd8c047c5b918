/**
 * A stub for `fetch`, the boundary the admin's SDK calls. Each route answers
 * a method and a path (the query string is matched separately by the specs
 * that care), and every call is recorded so a spec can assert what went over
 * the wire. A call no route expects fails loudly: its fetch rejects, and
 * `restore()` (each spec's afterEach) throws, so the test fails even where the
 * component caught the rejection and showed an error state.
 */
export type RecordedCall = {
  method: string
  url: URL
  body: unknown
  headers: Headers
  /** The `credentials` mode asked for: "include" is what sends the admin's session cookie. */
  credentials: RequestCredentials | undefined
}

/** `raw` is sent as is (a PDF, an image); `body` as JSON. */
type Reply = { status?: number; body?: unknown; raw?: BodyInit; headers?: Record<string, string> }
type Handler = (call: RecordedCall) => Reply | Promise<Reply>

export type FetchMock = {
  calls: RecordedCall[]
  on: (method: string, path: string | RegExp, handler: Handler | Reply) => FetchMock
  callsTo: (method: string, path: string | RegExp) => RecordedCall[]
  restore: () => void
}

function matches(pattern: string | RegExp, pathname: string): boolean {
  return typeof pattern === "string" ? pattern === pathname : pattern.test(pathname)
}

export function mockFetch(): FetchMock {
  const routes: { method: string; path: string | RegExp; handler: Handler }[] = []
  const calls: RecordedCall[] = []
  const unexpected: string[] = []
  const original = globalThis.fetch

  const stub = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase()
    const rawBody = init?.body
    let body: unknown = undefined
    if (typeof rawBody === "string") {
      try {
        body = JSON.parse(rawBody)
      } catch {
        body = rawBody
      }
    }
    const call: RecordedCall = { method, url, body, headers: new Headers(init?.headers), credentials: init?.credentials }
    calls.push(call)
    // Later registrations win, so a spec can override a default route.
    const route = [...routes].reverse().find((r) => r.method === method && matches(r.path, url.pathname))
    if (!route) {
      unexpected.push(`${method} ${url.pathname}${url.search}`)
      throw new Error(`Unexpected request: ${method} ${url.pathname}${url.search}`)
    }
    const reply = await route.handler(call)
    const status = reply.status ?? 200
    if (reply.raw !== undefined) {
      return new Response(reply.raw, { status, headers: reply.headers })
    }
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status,
      headers: { "content-type": "application/json", ...reply.headers },
    })
  }

  globalThis.fetch = stub as typeof fetch
  const api: FetchMock = {
    calls,
    on(method, path, handler) {
      routes.push({
        method: method.toUpperCase(),
        path,
        handler: typeof handler === "function" ? handler : () => handler,
      })
      return api
    },
    callsTo(method, path) {
      return calls.filter((call) => call.method === method.toUpperCase() && matches(path, call.url.pathname))
    },
    restore() {
      globalThis.fetch = original
      const seen = unexpected.splice(0)
      if (seen.length > 0) {
        throw new Error(`requests no route expected: ${seen.join(", ")}`)
      }
    },
  }
  return api
}
