import { readFileSync } from "node:fs"
import { join } from "node:path"
import {
  CHARGEBACK_STATUS_MEANINGS,
  DISPUTE_CASE_OUTCOME_MEANINGS,
  DISPUTE_CASE_STATUS_MEANINGS,
  DISPUTE_RESPONSE_STATUS_MEANINGS,
  PROOF_REQUEST_STATUS_MEANINGS,
} from "../../modules/servicescan/lifecycle/status-meanings"
import {
  CHARGEBACK_STATUSES,
  DISPUTE_CASE_OUTCOMES,
  DISPUTE_CASE_STATUSES,
  DISPUTE_RESPONSE_STATUSES,
  PROOF_REQUEST_STATUSES,
} from "../../modules/servicescan/types"
import { caseOutcomeLabel, chargebackStatusLabel, proofRequestStatusLabel, responseStatusLabel } from "../lib/format"

/**
 * What a status means is written once, in the module
 * (lifecycle/status-meanings.ts): the admin shows those words under its
 * badges, and docs/statuses.md lists them beside the admin's badge. Both are
 * held to the module here, so neither can drift from what the lifecycles do.
 */
const GROUPS = [
  { name: "chargeback", statuses: CHARGEBACK_STATUSES, meanings: CHARGEBACK_STATUS_MEANINGS, label: chargebackStatusLabel },
  { name: "proof-request", statuses: PROOF_REQUEST_STATUSES, meanings: PROOF_REQUEST_STATUS_MEANINGS, label: proofRequestStatusLabel },
  { name: "dispute-case", statuses: DISPUTE_CASE_STATUSES, meanings: DISPUTE_CASE_STATUS_MEANINGS, label: undefined },
  { name: "response", statuses: DISPUTE_RESPONSE_STATUSES, meanings: DISPUTE_RESPONSE_STATUS_MEANINGS, label: responseStatusLabel },
  { name: "case-outcome", statuses: DISPUTE_CASE_OUTCOMES, meanings: DISPUTE_CASE_OUTCOME_MEANINGS, label: caseOutcomeLabel },
] as const

const doc = readFileSync(join(__dirname, "..", "..", "..", "docs", "statuses.md"), "utf8")

/** The rows of the table between `<!-- statuses:<name> -->` and `<!-- /statuses:<name> -->`, by status. */
function table(name: string): Map<string, string[]> {
  const start = doc.indexOf(`<!-- statuses:${name} -->`)
  const end = doc.indexOf(`<!-- /statuses:${name} -->`)
  const rows = new Map<string, string[]>()
  if (start === -1 || end < start) {
    return rows
  }
  for (const line of doc.slice(start, end).split("\n")) {
    const cells = line.split("|").slice(1, -1).map((cell) => cell.trim())
    const status = /^`([a-z_]+)`$/.exec(cells[0] ?? "")?.[1]
    if (status) {
      rows.set(status, cells.slice(1))
    }
  }
  return rows
}

describe.each(GROUPS)("$name statuses", ({ name, statuses, meanings, label }) => {
  it("each status the module stores has one meaning, and nothing else does", () => {
    expect(Object.keys(meanings).sort()).toEqual([...statuses].sort())
    for (const status of statuses) {
      expect(meanings[status as keyof typeof meanings]).toMatch(/^[A-Z].*\.$/)
    }
  })

  if (label) {
    it("the admin shows the module's meaning under each badge", () => {
      for (const status of statuses) {
        expect(`${status}: ${label(status).description}`).toBe(`${status}: ${meanings[status as keyof typeof meanings]}`)
      }
    })
  }

  it("docs/statuses.md lists each status with the admin's badge and the module's meaning", () => {
    const rows = table(name)
    expect([...rows.keys()].sort()).toEqual([...statuses].sort())
    for (const status of statuses) {
      const expected = label
        ? [label(status).label, meanings[status as keyof typeof meanings]]
        : [meanings[status as keyof typeof meanings]]
      expect(`${status}: ${rows.get(status)?.join(" | ")}`).toBe(`${status}: ${expected.join(" | ")}`)
    }
  })
})

it("never tells a merchant that a lost submission waits for a person: the lifecycle sends it again", () => {
  expect(proofRequestStatusLabel("submitting").description).not.toMatch(/not re-sent/)
  expect(proofRequestStatusLabel("submitting").description).toMatch(/sent again by itself after a wait/)
})
