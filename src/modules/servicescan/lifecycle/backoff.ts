/**
 * Delay before the next call after `attempts` failures in a row: exponential
 * from `baseMs`, capped, with "equal jitter" (half fixed, half random) so that
 * many proof requests failing together do not all come back at once, yet none
 * comes back immediately.
 */
export function retryDelayMs(attempts: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.min(attempts - 1, 30))
  const ceiling = Math.min(capMs, baseMs * 2 ** exponent)
  return Math.round(ceiling / 2 + random() * (ceiling / 2))
}

/** The regular poll interval, spread by ±10% so requests created together drift apart. */
export function pollDelayMs(intervalMs: number, random: () => number = Math.random): number {
  return Math.round(intervalMs * (0.9 + random() * 0.2))
}
