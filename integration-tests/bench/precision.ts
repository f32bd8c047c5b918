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
 * `mean(a) − mean(b)` over pairs measured side by side (`a[i]` and `b[i]` one after the other),
 * with a 95 % normal interval from the spread of the pairs' differences (1.96 standard errors).
 * Used for the CPU time a completion with ServiceScan adds over one with Medusa's system
 * provider: means, not medians, since CPU adds up over orders and the mean is what bounds a
 * store's throughput. Paired, because the machine's load drifts: two completions made a second
 * apart share it, and their difference cancels it (measured on the shared machine: the paired
 * spread was 78 ms where the unpaired one was about 127). `pairsFor(h)` is how many pairs of the
 * same spread would narrow the interval to ±h.
 */
export function meanDifference(
  a: number[],
  b: number[]
): { difference: number; halfWidth: number; pairsFor: (halfWidth: number) => number } {
  if (a.length !== b.length) throw new RangeError("a paired difference needs as many of each kind")
  if (a.length < 2) throw new RangeError("a difference of means needs at least two pairs")
  const differences = a.map((value, i) => value - b[i])
  const m = mean(differences)
  const sd = Math.sqrt(sum(differences.map((value) => (value - m) ** 2)) / (differences.length - 1))
  return {
    difference: m,
    halfWidth: (1.96 * sd) / Math.sqrt(differences.length),
    pairsFor: (halfWidth) => Math.ceil(((1.96 * sd) / halfWidth) ** 2),
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
