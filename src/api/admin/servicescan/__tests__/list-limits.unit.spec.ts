import { AdminListDisputeCases } from "../cases/validators"
import { AdminListChargebacks, MAX_LIST_LIMIT } from "../validators"

/**
 * Both admin lists have a largest page: a `limit` over it is a 400 naming
 * `limit` (validateAndTransformQuery answers a schema issue that way), not
 * one query for every row of the table.
 */
describe.each([
  ["GET /admin/servicescan/cases", AdminListDisputeCases],
  ["GET /admin/servicescan/chargebacks", AdminListChargebacks],
])("%s", (_route, schema) => {
  it(`takes a limit up to ${MAX_LIST_LIMIT}, 20 by default`, () => {
    expect(schema.parse({}).limit).toBe(20)
    expect(schema.parse({ limit: String(MAX_LIST_LIMIT) }).limit).toBe(MAX_LIST_LIMIT)
  })

  it.each(["101", "100000", "1e9", "-1", "0", "ten"])("limit=%s is refused, naming limit", (limit) => {
    const result = schema.safeParse({ limit })
    expect(result.success).toBe(false)
    expect(result.error?.issues[0]).toMatchObject({ path: ["limit"], message: `limit must be an integer from 1 to ${MAX_LIST_LIMIT}` })
  })

  it("offset is a whole number too", () => {
    expect(schema.safeParse({ offset: "-5" }).error?.issues[0]).toMatchObject({ path: ["offset"] })
  })
})
