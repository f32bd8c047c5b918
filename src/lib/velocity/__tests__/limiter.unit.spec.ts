import { createHash } from "node:crypto"
import { MemoryCachingProvider } from "@medusajs/caching/dist/providers/memory-cache"
import { secondsUntilAllowed, VelocityLimiter, VelocityStore } from "../limiter"
import {
  CachingVelocityStore,
  isCachingService,
  MemoryVelocityStore,
  processMemoryVelocityStore,
  velocityStoreFor,
} from "../stores"
import { CardSubjects, clientAddressKey, tooManyAttemptsMessage, velocitySubject } from "../subjects"

const HOUR = { max: 3, windowSeconds: 3600 }

/** A clock the spec moves by hand. */
function clock(start = Date.UTC(2026, 0, 1)) {
  let now = start
  return { now: () => now, advance: (seconds: number) => (now += seconds * 1000) }
}

describe("secondsUntilAllowed", () => {
  const now = 10_000_000
  it("is 0 under the limit, and counts only entries inside the window", () => {
    expect(secondsUntilAllowed([now - 1000, now - 2000], HOUR, now)).toBe(0)
    expect(secondsUntilAllowed([now - 3_600_001, now - 1000, now - 2000], HOUR, now)).toBe(0)
  })

  it("at the limit, is the time until enough entries leave the window (the oldest that must go decides)", () => {
    // Three in the window, max 3: the oldest (600 s ago) must leave, in 3000 s.
    expect(secondsUntilAllowed([now - 600_000, now - 60_000, now - 1000], HOUR, now)).toBe(3000)
    // Five in the window, max 3: the three oldest must leave; the third oldest (300 s ago) decides.
    expect(
      secondsUntilAllowed([now - 900_000, now - 600_000, now - 300_000, now - 1000, now - 500], HOUR, now)
    ).toBe(3300)
  })

  it("never answers 0 when refused", () => {
    expect(secondsUntilAllowed([now - 3_599_999, now - 1, now], HOUR, now)).toBe(1)
  })
})

describe("VelocityLimiter on the memory store", () => {
  it("reserves until the limit, refuses with Retry-After, and lets the subject in again once the window has moved", async () => {
    const time = clock()
    const limiter = new VelocityLimiter(new MemoryVelocityStore(time.now), { now: time.now })
    const checks = [{ subject: "ip:a", limit: HOUR }]
    for (let i = 0; i < 3; i++) {
      expect(await limiter.reserve(checks)).toHaveProperty("reservation")
      time.advance(60)
    }
    expect(await limiter.reserve(checks)).toEqual({ refusal: { subject: "ip:a", retryAfterSeconds: 3600 - 180 } })
    time.advance(3600 - 180)
    expect(await limiter.reserve(checks)).toHaveProperty("reservation")
  })

  it("a released reservation does not count: successes never use up the limit", async () => {
    const limiter = new VelocityLimiter(new MemoryVelocityStore())
    const checks = [{ subject: "cart:a", limit: HOUR }]
    for (let i = 0; i < 10; i++) {
      const outcome = await limiter.reserve(checks)
      if (!("reservation" in outcome)) throw new Error("refused")
      await outcome.reservation.release()
    }
    expect(await limiter.check(checks)).toBeNull()
  })

  it("refuses when any subject is over its limit, naming the one that must wait longest, and records nothing then", async () => {
    const time = clock()
    const store = new MemoryVelocityStore(time.now)
    const limiter = new VelocityLimiter(store, { now: time.now })
    await limiter.record({ subject: "cart:a", limit: { max: 1, windowSeconds: 60 } })
    await limiter.record({ subject: "customer:a", limit: { max: 1, windowSeconds: 600 } })
    const refused = await limiter.reserve([
      { subject: "ip:a", limit: HOUR },
      { subject: "cart:a", limit: { max: 1, windowSeconds: 60 } },
      { subject: "customer:a", limit: { max: 1, windowSeconds: 600 } },
    ])
    expect(refused).toEqual({ refusal: { subject: "customer:a", retryAfterSeconds: 600 } })
    expect(await store.list("ip:a")).toEqual([])
  })

  it("fails open, and says so, when the store cannot be read or written", async () => {
    const broken: VelocityStore = {
      list: async () => Promise.reject(new Error("cache down")),
      add: async () => Promise.reject(new Error("cache down")),
      remove: async () => Promise.reject(new Error("cache down")),
    }
    const errors: unknown[] = []
    const limiter = new VelocityLimiter(broken, { onStoreError: (error) => errors.push(error) })
    const outcome = await limiter.reserve([{ subject: "ip:a", limit: { max: 1, windowSeconds: 60 } }])
    expect(outcome).toHaveProperty("reservation")
    // The read, then the write: each failure is reported.
    expect(errors.map((e) => (e as Error).message)).toEqual(["cache down", "cache down"])
  })
})

describe("MemoryVelocityStore", () => {
  it("drops expired entries, and the least recently written subjects past its bound", async () => {
    const time = clock()
    const store = new MemoryVelocityStore(time.now, 2)
    await store.add("a", "1", time.now(), 10)
    time.advance(11)
    expect(await store.list("a")).toEqual([])
    await store.add("a", "2", time.now(), 60)
    await store.add("b", "1", time.now(), 60)
    await store.add("c", "1", time.now(), 60)
    expect(await store.list("a")).toEqual([])
    expect(await store.list("b")).toHaveLength(1)
    expect(await store.list("c")).toHaveLength(1)
  })

  it("is one per process, whichever copy of the code asks", () => {
    expect(processMemoryVelocityStore()).toBe(processMemoryVelocityStore())
  })
})

/**
 * Medusa's Caching Module forwards get, set and clear to its default provider
 * unchanged; this is its in-memory provider, Medusa's own code (the module
 * itself is booted in integration-tests/http/velocity-caching.spec.ts: its
 * hasher is loaded by a dynamic import the unit project cannot run). The
 * hasher here plays xxhash's part.
 */
describe("CachingVelocityStore on the Caching Module's in-memory provider", () => {
  const caching = new MemoryCachingProvider({ hasher: (key) => createHash("sha1").update(key).digest("hex") })

  it("is what velocityStoreFor picks when the module is registered, and process memory otherwise", () => {
    expect(isCachingService(caching)).toBe(true)
    expect(velocityStoreFor(caching, processMemoryVelocityStore)).toBeInstanceOf(CachingVelocityStore)
    expect(velocityStoreFor(undefined, processMemoryVelocityStore)).toBe(processMemoryVelocityStore())
  })

  it("lists, adds and removes a subject's entries by tag; two limiters on one module count together", async () => {
    const store = new CachingVelocityStore(caching)
    const subject = velocitySubject("ip", "203.0.113.9")
    // Two limiters on one module: two processes of a store sharing one Caching Module.
    const first = new VelocityLimiter(store)
    const second = new VelocityLimiter(new CachingVelocityStore(caching))
    const checks = [{ subject, limit: { max: 2, windowSeconds: 60 } }]
    const a = await first.reserve(checks)
    const b = await second.reserve(checks)
    expect(a).toHaveProperty("reservation")
    expect(b).toHaveProperty("reservation")
    expect(await store.list(subject)).toHaveLength(2)
    const refused = await first.reserve(checks)
    expect(refused).toEqual({ refusal: { subject, retryAfterSeconds: expect.any(Number) } })

    if (!("reservation" in b)) throw new Error("refused")
    await b.reservation.release()
    expect(await store.list(subject)).toHaveLength(1)
    expect(await second.reserve(checks)).toHaveProperty("reservation")
  })

  it("keeps other subjects apart", async () => {
    const store = new CachingVelocityStore(caching)
    await store.add("cart:x", "1", Date.now(), 60)
    expect(await store.list("cart:y")).toEqual([])
  })
})

describe("subjects", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    [" 203.0.113.7 ", "203.0.113.7"],
    ["2001:db8:85a3:1:1:8a2e:370:7334", "2001:db8:85a3:1::/64"],
    ["2001:0db8:85a3:0001:ffff::1", "2001:db8:85a3:1::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::ffff:1.2.3.4.5", undefined],
    ["not an address", undefined],
    ["", undefined],
    [undefined, undefined],
  ])("client address %p counts as %p", (ip, key) => {
    expect(clientAddressKey(ip)).toBe(key)
  })

  it("every address of one IPv6 /64 is one client", () => {
    expect(clientAddressKey("2001:db8:1:2:aaaa::1")).toBe(clientAddressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee"))
    expect(clientAddressKey("2001:db8:1:2::1")).not.toBe(clientAddressKey("2001:db8:1:3::1"))
  })

  it("are bounded and hold no raw value", () => {
    const long = "cart_".padEnd(10_000, "x")
    expect(velocitySubject("cart", long).length).toBeLessThan(50)
    expect(velocitySubject("customer", "cus_123")).not.toContain("cus_123")
  })

  it("a card's subject is keyed: equal tokens match, the token is not in it, and another key gives another subject", () => {
    const cards = new CardSubjects("a secret shared by every process")
    expect(cards.of("1111000276870123")).toBe(cards.of("1111000276870123"))
    expect(cards.of("1111000276870123")).not.toBe(cards.of("1111000276870124"))
    expect(cards.of("1111000276870123")).not.toContain("0123")
    expect(new CardSubjects("another secret").of("1111000276870123")).not.toBe(cards.of("1111000276870123"))
  })

  it("the refusal's sentence says only when to try again, never sooner than Retry-After", () => {
    expect(tooManyAttemptsMessage(1)).toBe("Too many payment attempts. Please try again in 1 minute.")
    expect(tooManyAttemptsMessage(61)).toBe("Too many payment attempts. Please try again in 2 minutes.")
    expect(tooManyAttemptsMessage(3600)).toBe("Too many payment attempts. Please try again in 60 minutes.")
  })
})
