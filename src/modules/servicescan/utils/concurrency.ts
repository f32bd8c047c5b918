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
