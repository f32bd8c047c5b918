import { Chargeback, ProofRequest } from "../../models"
import { sqlNames } from "../names"
import { PROOF_REQUEST } from "../proof-request"

describe("sqlNames", () => {
  it("takes the table name from the model and quotes the columns", () => {
    expect(sqlNames(Chargeback, ["id", "status"])).toEqual({
      table: '"servicescan_chargeback"',
      col: { id: '"id"', status: '"status"' },
    })
  })

  it("accepts a belongsTo relation's column and the implicit timestamps", () => {
    expect(sqlNames(ProofRequest, ["chargeback_id", "updated_at", "deleted_at"]).col).toEqual({
      chargeback_id: '"chargeback_id"',
      updated_at: '"updated_at"',
      deleted_at: '"deleted_at"',
    })
  })

  it("fails when a statement names a column the model does not have", () => {
    expect(() => sqlNames(ProofRequest, ["next_poll"])).toThrow(
      'servicescan_proof_request has no column "next_poll": the module\'s SQL and its model disagree'
    )
  })

  it("every column the proof request statements use exists in the model", () => {
    expect(PROOF_REQUEST.table).toBe('"servicescan_proof_request"')
    expect(Object.keys(PROOF_REQUEST.col)).toEqual(expect.arrayContaining(["in_flight_until", "submissions", "other_remote_ids"]))
  })
})
