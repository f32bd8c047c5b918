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

/** The Disputes DataTable's filters and sorting reach the chargeback list as these params; bad ones are a 400 naming the field. */
describe("GET /admin/servicescan/chargebacks filters and sorting", () => {
  it("takes statuses comma-separated, a due_by range and a sort", () => {
    const parsed = AdminListChargebacks.parse({
      status: "evidence_ready,won",
      due_after: "2025-04-01T00:00:00.000Z",
      due_before: "2025-05-01T00:00:00.000Z",
      order: "-due_by",
      q: "#1001",
    })
    expect(parsed).toMatchObject({ status: ["evidence_ready", "won"], order: "-due_by", q: "#1001" })
  })

  it.each([
    [{ status: "represented_twice" }, "status"],
    [{ due_after: "yesterday" }, "due_after"],
    [{ due_before: "2025-13-45" }, "due_before"],
    [{ order: "password" }, "order"],
    [{ q: "a\u0000b" }, "q"],
  ])("%j is refused, naming %s", (query, field) => {
    const issue = AdminListChargebacks.safeParse(query).error?.issues[0]
    expect(issue?.path[0]).toBe(field)
    if (field !== "status") {
      expect(issue?.message).toContain(field)
    }
  })
})
