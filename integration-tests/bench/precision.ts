/**
 * How precise a bench's ratio is, from the repeated measurements it was made of. The benches
 * print these beside their figures so that a pass or a miss by less than the figure's own
 * uncertainty reads as what it is. Nothing here changes a figure or a verdict.
 */

import { random } from "../helpers/random"

export function sum(values: number[]): number {
  return values.reduce((total, value) => total + value, 0)
}

function mean(values: number[]): number {
  return sum(values) / values.length
}

/** The sample standard deviation over the mean. */
function relativeSpread(values: number[]): number {
  const m = mean(values)
  const variance = sum(values.map((value) => (value - m) ** 2)) / (values.length - 1)
  return Math.sqrt(variance) / m
}

/**
 * One standard error of `mean(numerator) / mean(denominator)`, where each list holds one kind's
 * repeated measurements (a batch's or a round's wall time), to first order (the delta method).
 * The two kinds are treated as independent; drift within the run counts as spread, so the
 * figure errs on the wide side.
 */
export function ratioStandardError(numerator: number[], denominator: number[]): number {
  if (numerator.length < 2 || denominator.length < 2) {
    throw new RangeError("a standard error needs at least two measurements of each kind")
  }
  const ratio = mean(numerator) / mean(denominator)
  return (
    ratio *
    Math.sqrt(relativeSpread(numerator) ** 2 / numerator.length + relativeSpread(denominator) ** 2 / denominator.length)
  )
}

/** The p-th percentile of ascending values, nearest rank (as the benches report their p50). */
export function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
  return sorted[index]
}

/**
 * A 95 % percentile-bootstrap interval of `p50(numerator) / p50(denominator)`: each kind's
 * samples are drawn again with replacement, `resamples` times, and the middle 95 % of the
 * ratios so made is the interval. Seeded, so the same samples always print the same interval.
 */
export function medianRatioInterval(
  numerator: number[],
  denominator: number[],
  resamples = 2000,
  seed = 1
): { low: number; high: number } {
  if (numerator.length === 0 || denominator.length === 0) {
    throw new RangeError("an interval needs samples of both kinds")
  }
  const draw = random(seed)
  const median = (values: number[]) => {
    const drawn = values.map(() => values[Math.floor(draw() * values.length)])
    return percentile(drawn.sort((a, b) => a - b), 50)
  }
  const ratios = Array.from({ length: resamples }, () => median(numerator) / median(denominator)).sort((a, b) => a - b)
  return { low: percentile(ratios, 2.5), high: percentile(ratios, 97.5) }
}

/**
 * `mean(a) − mean(b)` with a 95 % normal interval (1.96 standard errors, the two kinds
 * independent). Used for the CPU time a completion with ServiceScan adds over one with Medusa's
 * system provider: means, not medians, since CPU adds up over orders and the mean is what bounds
 * a store's throughput.
 */
export function meanDifference(a: number[], b: number[]): { difference: number; halfWidth: number } {
  if (a.length < 2 || b.length < 2) throw new RangeError("a difference of means needs at least two of each kind")
  const variance = (values: number[]) => {
    const m = mean(values)
    return sum(values.map((value) => (value - m) ** 2)) / (values.length - 1)
  }
  return {
    difference: mean(a) - mean(b),
    halfWidth: 1.96 * Math.sqrt(variance(a) / a.length + variance(b) / b.length),
  }
}

/**
 * `p50(minuend) − p50(subtrahend) − Σ p50(each of parts)` with a 95 % percentile-bootstrap
 * interval: every list is drawn again with replacement, `resamples` times. The added wall time
 * of a completion beyond the remote calls it makes (the calls' own medians, as the service saw
 * them). Seeded, so the same samples always print the same interval.
 */
export function medianExcessInterval(
  minuend: number[],
  subtrahend: number[],
  parts: number[][],
  resamples = 2000,
  seed = 1
): { value: number; low: number; high: number } {
  if (minuend.length === 0 || subtrahend.length === 0 || parts.some((part) => part.length === 0)) {
    throw new RangeError("an interval needs samples of every kind")
  }
  const p50 = (values: number[]) => percentile([...values].sort((x, y) => x - y), 50)
  const excess = (median: (values: number[]) => number) =>
    median(minuend) - median(subtrahend) - sum(parts.map((part) => median(part)))
  const draw = random(seed)
  const resampled = (values: number[]) => p50(values.map(() => values[Math.floor(draw() * values.length)]))
  const values = Array.from({ length: resamples }, () => excess(resampled)).sort((x, y) => x - y)
  return { value: excess(p50), low: percentile(values, 2.5), high: percentile(values, 97.5) }
}
