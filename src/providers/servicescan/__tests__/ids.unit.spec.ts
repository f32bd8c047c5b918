import { formCustomerId, hashId, processorIdFor } from "../ids"

describe("processorIdFor", () => {
  it("keeps a Medusa id's ULID without its leading 0 (25 characters, readable)", () => {
    expect(processorIdFor("payses_01JB8XKQ7YV2M3N4P5Q6R7S8T9")).toBe("1JB8XKQ7YV2M3N4P5Q6R7S8T9")
    expect(processorIdFor("ref_01JB8XKQ7YV2M3N4P5Q6R7S8R1")).toBe("1JB8XKQ7YV2M3N4P5Q6R7S8R1")
  })

  it("uses short safe keys as they are and hashes everything else to 25 characters", () => {
    expect(processorIdFor("order-42")).toBe("order-42")
    const hashed = processorIdFor("an idempotency key with spaces and more than 25 characters")
    expect(hashed).toMatch(/^[0-9A-HJKMNP-TV-Z]{25}$/)
    expect(processorIdFor("an idempotency key with spaces and more than 25 characters")).toBe(hashed)
    expect(processorIdFor("payses_11JB8XKQ7YV2M3N4P5Q6R7S8T9")).toHaveLength(25)
    expect(processorIdFor("payses_11JB8XKQ7YV2M3N4P5Q6R7S8T9")).not.toBe("1JB8XKQ7YV2M3N4P5Q6R7S8T9")
  })

  it("hashes different inputs to different ids", () => {
    const ids = new Set(Array.from({ length: 1000 }, (_, i) => hashId(`key-${i}`)))
    expect(ids.size).toBe(1000)
  })
})

describe("formCustomerId", () => {
  it("passes ids up to 50 characters and drops longer ones", () => {
    expect(formCustomerId("cus_01JB8XKQ7YV2M3N4P5Q6R7S8AA")).toBe("cus_01JB8XKQ7YV2M3N4P5Q6R7S8AA")
    expect(formCustomerId("x".repeat(51))).toBeUndefined()
    expect(formCustomerId(undefined)).toBeUndefined()
  })
})
