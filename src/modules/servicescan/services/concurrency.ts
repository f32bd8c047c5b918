/**
 * Maps `items` through `fn` with at most `limit` calls in flight, keeping the
 * input order in the result. `shouldStop` is checked before each new call, so
 * a run can stop early (e.g. on an authentication error) without abandoning
 * calls already in flight; items never started answer `undefined`.
 */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  shouldStop: () => boolean = () => false
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array(items.length).fill(undefined)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length && !shouldStop()) {
      const index = next++
      results[index] = await fn(items[index], index)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  return results
}

/**
 * A limit shared by every caller: at most `limit` of the functions given to
 * the returned `run` are in flight at once, the others wait their turn in
 * order. `mapWithConcurrency` bounds one batch; this bounds them all, for
 * batches running side by side (the poll job's pages) that share one
 * promise to the service.
 */
export function createLimiter(limit: number): <R>(fn: () => Promise<R>) => Promise<R> {
  let active = 0
  const waiting: (() => void)[] = []
  return async <R>(fn: () => Promise<R>): Promise<R> => {
    if (active < limit) {
      active++
    } else {
      // Woken by a finishing call, which hands its slot over (`active` stays as it is).
      await new Promise<void>((resolve) => waiting.push(resolve))
    }
    try {
      return await fn()
    } finally {
      const nextInLine = waiting.shift()
      if (nextInLine) {
        nextInLine()
      } else {
        active--
      }
    }
  }
}
