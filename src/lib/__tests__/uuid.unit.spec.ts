import { isUuidV4, UUID } from "../uuid"

describe("UUID checks", () => {
  it("takes only version 4 with the RFC 4122 variant as a scan id", () => {
    expect(isUuidV4("3f2b8c1e-5d4a-4b6c-9e7f-0a1b2c3d4e5f")).toBe(true)
    expect(isUuidV4("3F2B8C1E-5D4A-4B6C-9E7F-0A1B2C3D4E5F")).toBe(true)
    expect(isUuidV4("3f2b8c1e-5d4a-1b6c-9e7f-0a1b2c3d4e5f")).toBe(false) // version 1
    expect(isUuidV4("3f2b8c1e-5d4a-4b6c-7e7f-0a1b2c3d4e5f")).toBe(false) // NCS variant
    expect(isUuidV4(" 3f2b8c1e-5d4a-4b6c-9e7f-0a1b2c3d4e5f")).toBe(false)
    expect(isUuidV4(42)).toBe(false)
  })

  it("takes any version as a form id", () => {
    expect(UUID.test("3f2b8c1e-5d4a-1b6c-9e7f-0a1b2c3d4e5f")).toBe(true)
    expect(UUID.test("3f2b8c1e5d4a1b6c9e7f0a1b2c3d4e5f")).toBe(false)
  })
})
