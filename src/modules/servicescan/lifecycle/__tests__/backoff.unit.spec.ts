import { pollDelayMs, retryDelayMs } from "../backoff"

describe("retryDelayMs", () => {
  it("doubles per attempt from the base, with equal jitter, up to the cap", () => {
    const low = () => 0
    const high = () => 1
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1_000, 1_000_000, low))).toEqual([500, 1_000, 2_000, 4_000])
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1_000, 1_000_000, high))).toEqual([1_000, 2_000, 4_000, 8_000])
    expect(retryDelayMs(30, 1_000, 10_000, high)).toBe(10_000)
    expect(retryDelayMs(1_000, 1_000, 10_000, low)).toBe(5_000)
  })

  it("never comes back immediately", () => {
    for (let i = 0; i < 100; i++) {
      expect(retryDelayMs(1, 60_000, 3_600_000)).toBeGreaterThanOrEqual(30_000)
    }
  })
})

describe("pollDelayMs", () => {
  it("spreads the interval by ±10%", () => {
    expect(pollDelayMs(10_000, () => 0)).toBe(9_000)
    expect(pollDelayMs(10_000, () => 1)).toBe(11_000)
  })
})
