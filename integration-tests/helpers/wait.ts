/**
 * Reads until `done` holds or `timeoutMs` has passed, every 100 ms; answers the last read either
 * way, so the caller's assertion on it says what was still missing.
 */
export async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > until) {
      return value
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
