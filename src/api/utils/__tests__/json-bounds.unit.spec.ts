import { jsonBoundsProblem } from "../json-bounds"

const BOUNDS = { maxDepth: 3, maxBytes: 1024 }

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  for (let i = 0; i < levels; i++) {
    value = { a: value }
  }
  return value
}

describe("jsonBoundsProblem", () => {
  it("accepts flat and moderately nested JSON", () => {
    expect(jsonBoundsProblem("metadata", { a: 1, b: "x", c: [true, null, { d: 2 }] }, BOUNDS)).toBeNull()
    expect(jsonBoundsProblem("metadata", nested(3), BOUNDS)).toBeNull()
  })

  it("refuses depth beyond the bound, without recursing however deep the value", () => {
    expect(jsonBoundsProblem("metadata", nested(4), BOUNDS)).toBe("metadata is nested too deeply (at most 3 levels)")
    // Far beyond any call stack: the check walks with its own stack.
    expect(jsonBoundsProblem("metadata", nested(200_000), BOUNDS)).toMatch(/nested too deeply/)
    let array: unknown[] = []
    for (let i = 0; i < 200_000; i++) {
      array = [array]
    }
    expect(jsonBoundsProblem("data", { x: array }, BOUNDS)).toMatch(/^data is nested too deeply/)
  })

  it("refuses NUL in values and keys, naming where", () => {
    expect(jsonBoundsProblem("metadata", { note: "a\u0000b" }, BOUNDS)).toBe("metadata.note must not contain NUL characters (\\u0000)")
    expect(jsonBoundsProblem("data", { list: ["ok", "\u0000"] }, BOUNDS)).toBe("data.list[1] must not contain NUL characters (\\u0000)")
    expect(jsonBoundsProblem("metadata", { ["k\u0000"]: 1 }, BOUNDS)).toBe("metadata must not have keys containing NUL characters (\\u0000)")
  })

  it("refuses unpaired surrogates (jsonb cannot hold them), accepts paired ones", () => {
    expect(jsonBoundsProblem("data", { ["\ud800"]: "" }, BOUNDS)).toBe("data must not have keys with unpaired surrogates (invalid Unicode)")
    expect(jsonBoundsProblem("data", { a: "x\udc00" }, BOUNDS)).toBe("data.a must be valid Unicode (it has an unpaired surrogate)")
    expect(jsonBoundsProblem("data", { a: "😀", ["😀"]: 1 }, BOUNDS)).toBeNull()
  })

  it("refuses values larger than the bound, counting UTF-8 bytes", () => {
    expect(jsonBoundsProblem("metadata", { s: "x".repeat(2000) }, BOUNDS)).toBe("metadata is too large (at most 1 KB)")
    expect(jsonBoundsProblem("metadata", { s: "é".repeat(600) }, BOUNDS)).toMatch(/too large/)
    expect(jsonBoundsProblem("metadata", { s: "x".repeat(900) }, BOUNDS)).toBeNull()
  })

  it("refuses what JSON cannot carry", () => {
    expect(jsonBoundsProblem("metadata", { n: Number.NaN }, BOUNDS)).toBe("metadata.n must be a finite number")
    expect(jsonBoundsProblem("metadata", { f: () => 1 }, BOUNDS)).toBe("metadata.f must be JSON")
  })
})
