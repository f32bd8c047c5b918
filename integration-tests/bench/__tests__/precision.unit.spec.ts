import { meanDifference, medianExcessInterval, medianRatioInterval, percentile, ratioStandardError } from "../precision"

describe("ratioStandardError", () => {
  it("is the delta method's first-order error of a ratio of means", () => {
    // Numerator: mean 2, sample SD √2, so relative spread 1/√2 over 2 values; denominator exact.
    expect(ratioStandardError([1, 3], [2, 2])).toBeCloseTo(Math.sqrt(0.5 / 2), 12)
    // Both spread, each with relative spread 1/√2 over 2 values: ratio 2 × sqrt(0.5/2 + 0.5/2).
    expect(ratioStandardError([1, 3], [0.5, 1.5])).toBeCloseTo(2 * Math.sqrt(0.25 + 0.25), 12)
  })

  it("is zero when every measurement of both kinds is the same", () => {
    expect(ratioStandardError([3, 3, 3], [1.5, 1.5])).toBe(0)
  })

  it("shrinks as one over the square root of the measurements made", () => {
    const few = ratioStandardError([90, 110, 95, 105], [100, 100, 100, 100])
    const repeat = (values: number[]) => Array.from({ length: 16 }, () => values).flat()
    const many = ratioStandardError(repeat([90, 110, 95, 105]), repeat([100, 100, 100, 100]))
    // The same deviations 16 times over: sample variance (16·S/63 against S/3) over 64 values against 4.
    expect(many / few).toBeCloseTo(Math.sqrt((16 / 63 / 64) / (1 / 3 / 4)), 12)
  })

  it("refuses fewer than two measurements of a kind", () => {
    expect(() => ratioStandardError([1], [1, 2])).toThrow(RangeError)
    expect(() => ratioStandardError([1, 2], [])).toThrow(RangeError)
  })
})

describe("percentile", () => {
  it("is the nearest rank, as the benches report it", () => {
    const values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    expect(percentile(values, 50)).toBe(5)
    expect(percentile(values, 95)).toBe(10)
    expect(percentile(values, 0)).toBe(1)
    expect(percentile([7], 50)).toBe(7)
  })
})

describe("medianRatioInterval", () => {
  const slower = Array.from({ length: 40 }, (_, i) => 240 + ((i * 37) % 60))
  const faster = Array.from({ length: 40 }, (_, i) => 220 + ((i * 23) % 60))
  const p50 = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50)

  it("holds the point estimate, and prints the same interval for the same samples", () => {
    const interval = medianRatioInterval(slower, faster)
    const estimate = p50(slower) / p50(faster)
    expect(interval.low).toBeLessThanOrEqual(estimate)
    expect(interval.high).toBeGreaterThanOrEqual(estimate)
    expect(interval.high).toBeGreaterThan(interval.low)
    expect(medianRatioInterval(slower, faster)).toEqual(interval)
  })

  it("is a point when the samples do not vary", () => {
    expect(medianRatioInterval([300, 300, 300], [250, 250])).toEqual({ low: 1.2, high: 1.2 })
  })

  it("narrows with more samples of the same spread", () => {
    const wide = medianRatioInterval(slower.slice(0, 10), faster.slice(0, 10))
    const repeat = (values: number[]) => Array.from({ length: 10 }, () => values).flat()
    const narrow = medianRatioInterval(repeat(slower.slice(0, 10)), repeat(faster.slice(0, 10)))
    expect(narrow.high - narrow.low).toBeLessThan((wide.high - wide.low) / 2)
  })

  it("refuses an empty kind", () => {
    expect(() => medianRatioInterval([], [1])).toThrow(RangeError)
  })
})

describe("meanDifference", () => {
  it("is the mean of the pairs' differences with 1.96 standard errors of it", () => {
    // Differences 0.5 and 1.5: mean 1, sample variance 0.5 over 2 pairs.
    const { difference, halfWidth } = meanDifference([1, 3], [0.5, 1.5])
    expect(difference).toBeCloseTo(1, 12)
    expect(halfWidth).toBeCloseTo(1.96 * Math.sqrt(0.5 / 2), 12)
  })

  it("cancels a drift that both kinds of a pair share", () => {
    // The load climbs by 100 a pair; ServiceScan is always 5 more than the system provider beside it.
    const system = Array.from({ length: 10 }, (_, i) => 300 + 100 * i)
    const { difference, halfWidth } = meanDifference(system.map((value) => value + 5), system)
    expect(difference).toBeCloseTo(5, 12)
    expect(halfWidth).toBe(0)
  })

  it("narrows as one over the square root of the pairs, and says how many pairs a width needs", () => {
    const few = meanDifference([9, 11], [4, 4])
    const repeat = (values: number[]) => Array.from({ length: 50 }, () => values).flat()
    const many = meanDifference(repeat([9, 11]), repeat([4, 4]))
    expect(many.halfWidth).toBeLessThan(few.halfWidth / 5)
    // Differences 5 and 7 (sd √2): ±1 needs (1.96 √2)² = 7.68, so 8 pairs.
    expect(few.pairsFor(1)).toBe(8)
  })

  it("refuses unpaired samples and fewer than two pairs", () => {
    expect(() => meanDifference([1], [1])).toThrow(RangeError)
    expect(() => meanDifference([1, 2, 3], [1, 2])).toThrow(RangeError)
  })
})

describe("medianExcessInterval", () => {
  it("is the minuend's median less the subtrahend's and each part's", () => {
    const result = medianExcessInterval([310, 300, 305], [290, 295, 292], [[3, 2, 4], [5, 5, 6]])
    // 305 − 292 − 3 − 5
    expect(result.value).toBe(5)
    expect(result.low).toBeLessThanOrEqual(result.value)
    expect(result.high).toBeGreaterThanOrEqual(result.value)
  })

  it("has no width when every list is constant, and prints the same interval for the same samples", () => {
    expect(medianExcessInterval([10, 10], [4, 4], [[1, 1]])).toEqual({ value: 5, low: 5, high: 5 })
    const samples: [number[], number[], number[][]] = [[12, 15, 11, 19], [8, 9, 7, 10], [[1, 2, 1]]]
    expect(medianExcessInterval(...samples)).toEqual(medianExcessInterval(...samples))
  })

  it("refuses an empty list", () => {
    expect(() => medianExcessInterval([1], [1], [[]])).toThrow(RangeError)
  })
})
