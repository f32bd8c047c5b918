import { Agent, Dispatcher } from "undici"

/**
 * An undici dispatcher that sends each request through the global `fetch`,
 * which MSW intercepts: MSW has no interceptor for undici's own dispatchers
 * (checked with msw 2.15: `undici.request`, `stream` and `fetch` all went to
 * the network; only the global fetch was answered). The HTTP core sends
 * through it while a spec's MSW server listens (`listenStrictly`), so
 * wire-level specs keep asserting what went over the wire.
 *
 * Requests to loopback go to a real pool instead: a spec's own server on
 * 127.0.0.1 is a real one, and MSW only ever stands in for remote hosts.
 *
 * MSW has no sockets: the request counts as connected once an answer came
 * (undici's `onConnect`), so a failure MSW makes (`HttpResponse.error()`) or a
 * deadline that passes while a handler waits reads as "before connecting", as
 * it did under MSW's node:http interceptor.
 */
export class UndiciOverFetch extends Dispatcher {
  private readonly loopback = new Agent()

  dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
    const url = new URL(options.path, options.origin)
    if (/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(url.hostname)) {
      return this.loopback.dispatch(options, handler)
    }
    void this.send(url, options, handler)
    return true
  }

  async close(): Promise<void> {
    await this.loopback.close()
  }

  async destroy(): Promise<void> {
    await this.loopback.destroy()
  }

  private async send(url: URL, options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): Promise<void> {
    const controller = new AbortController()
    let aborted: Error | undefined
    const abort = (error?: Error) => {
      aborted ??= error ?? new Error("aborted")
      controller.abort(aborted)
    }
    let response: Response
    try {
      response = await fetch(url, {
        method: options.method,
        headers: headerRecord(options.headers),
        body: typeof options.body === "string" || Buffer.isBuffer(options.body) ? options.body : undefined,
        // undici's dispatch never follows a redirect: neither does this.
        redirect: "manual",
        signal: controller.signal,
      })
    } catch (error) {
      handler.onError?.(error as Error)
      return
    }
    handler.onConnect?.(abort)
    if (aborted) {
      await response.body?.cancel().catch(() => undefined)
      handler.onError?.(aborted)
      return
    }
    let resumed: (() => void) | undefined
    const resume = () => {
      const next = resumed
      resumed = undefined
      next?.()
    }
    const raw: Buffer[] = []
    response.headers.forEach((value, name) => raw.push(Buffer.from(name, "latin1"), Buffer.from(value, "latin1")))
    try {
      handler.onHeaders?.(response.status, raw, resume, response.statusText)
      const reader = response.body?.getReader()
      for (;;) {
        if (aborted) {
          throw aborted
        }
        const chunk = await reader?.read()
        if (!chunk || chunk.done) {
          break
        }
        if (aborted) {
          throw aborted
        }
        if (handler.onData?.(Buffer.from(chunk.value)) === false) {
          await new Promise<void>((resolve) => {
            resumed = resolve
            // An abort while paused must not leave this waiting forever.
            controller.signal.addEventListener("abort", () => resolve(), { once: true })
          })
        }
      }
    } catch (error) {
      handler.onError?.(aborted ?? (error as Error))
      return
    }
    if (aborted) {
      handler.onError?.(aborted)
      return
    }
    handler.onComplete?.([])
  }
}

function headerRecord(headers: Dispatcher.DispatchOptions["headers"]): Record<string, string> {
  const record: Record<string, string> = {}
  if (headers && !Array.isArray(headers) && !(Symbol.iterator in headers)) {
    for (const [name, value] of Object.entries(headers)) {
      if (value !== undefined) {
        record[name] = Array.isArray(value) ? value.join(", ") : String(value)
      }
    }
  }
  return record
}
