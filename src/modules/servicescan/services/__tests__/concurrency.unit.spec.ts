import { createLimiter, mapWithConcurrency } from "../concurrency"

describe("mapWithConcurrency", () => {
  it("keeps order and never runs more than the limit at once", async () => {
    let running = 0
    let peak = 0
    const result = await mapWithConcurrency([5, 1, 4, 2, 3], 2, async (n) => {
      running++
      peak = Math.max(peak, running)
      await new Promise((resolve) => setTimeout(resolve, n))
      running--
      return n * 10
    })
    expect(result).toEqual([50, 10, 40, 20, 30])
    expect(peak).toBe(2)
  })

  it("starts nothing new once told to stop, and finishes what is in flight", async () => {
    const started: number[] = []
    let stop = false
    const result = await mapWithConcurrency(
      [1, 2, 3, 4, 5, 6],
      2,
      async (n) => {
        started.push(n)
        if (n === 2) {
          stop = true
        }
        return n
      },
      () => stop
    )
    expect(started).toEqual([1, 2])
    expect(result).toEqual([1, 2, undefined, undefined, undefined, undefined])
  })
})

describe("createLimiter", () => {
  it("bounds batches running side by side together, in order, and frees a slot when a call throws", async () => {
    const limited = createLimiter(3)
    let running = 0
    let peak = 0
    const order: string[] = []
    const call = (name: string, ms: number, fail = false) =>
      limited(async () => {
        running++
        peak = Math.max(peak, running)
        order.push(name)
        await new Promise((resolve) => setTimeout(resolve, ms))
        running--
        if (fail) {
          throw new Error(`${name} failed`)
        }
        return name
      })
    // Two batches of four, each allowing four at once on its own (as two pages of the poll job do).
    const [a, b] = await Promise.all([
      mapWithConcurrency(["a1", "a2", "a3", "a4"], 4, (name) => call(name, 5, name === "a1").catch((error: Error) => error.message)),
      mapWithConcurrency(["b1", "b2", "b3", "b4"], 4, (name) => call(name, 5)),
    ])
    expect(peak).toBe(3)
    expect(a).toEqual(["a1 failed", "a2", "a3", "a4"])
    expect(b).toEqual(["b1", "b2", "b3", "b4"])
    // The first three asked started first; the others in the order they asked.
    expect(order).toEqual(["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"])
    // Every slot was given back: three more run at once straight away.
    running = 0
    peak = 0
    await Promise.all(["c1", "c2", "c3"].map((name) => call(name, 5)))
    expect(peak).toBe(3)
  })
})
