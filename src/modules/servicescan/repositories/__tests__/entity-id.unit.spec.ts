import { newEntityId } from "../entity-id"

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/

function decodeTime(id: string): number {
  return [...id.split("_")[1].slice(0, 10)].reduce((ms, char) => ms * 32 + "0123456789ABCDEFGHJKMNPQRSTVWXYZ".indexOf(char), 0)
}

describe("ids of rows inserted in bulk", () => {
  it("look like the DML's: the prefix, then a ULID whose time is now", () => {
    const before = Date.now()
    const id = newEntityId("chbk")
    const after = Date.now()
    expect(id.startsWith("chbk_")).toBe(true)
    expect(id.slice(5)).toMatch(ULID)
    expect(decodeTime(id)).toBeGreaterThanOrEqual(before)
    expect(decodeTime(id)).toBeLessThanOrEqual(after)
  })

  it("are unique across many pool refills, and uniformly random after the time", () => {
    const ids = Array.from({ length: 50_000 }, () => newEntityId("ssev"))
    expect(new Set(ids).size).toBe(ids.length)
    const counts = new Map<string, number>()
    for (const id of ids) {
      const char = id[id.length - 1]
      counts.set(char, (counts.get(char) ?? 0) + 1)
    }
    // 32 symbols, about 1,562 each: a symbol never drawn, or one twice as common, would mean a biased draw.
    expect(counts.size).toBe(32)
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(1_200)
      expect(count).toBeLessThan(1_950)
    }
  })

  it("sort by the time they were made, as Medusa's do", async () => {
    const first = newEntityId("sspr")
    await new Promise((resolve) => setTimeout(resolve, 3))
    expect(newEntityId("sspr") > first).toBe(true)
  })
})
