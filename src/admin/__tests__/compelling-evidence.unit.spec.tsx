/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { screen, within } from "@testing-library/react"
import DisputeDetailPage from "../routes/disputes/[id]/page"
import type { CompellingEvidenceSummary } from "../../lib/compelling-evidence"
import { caseChargeback, CASE_ID } from "./support/fixtures"
import { mockFetch, type FetchMock } from "./support/fetch-mock"
import { installDomShims, renderAdmin } from "./support/render"

installDomShims()

const DETAIL = "/admin/servicescan/chargebacks/chbk_01"

let api: FetchMock
beforeEach(() => {
  api = mockFetch()
})
afterEach(() => {
  api.restore()
})

const visa104 = (summary: CompellingEvidenceSummary | null) =>
  caseChargeback({ reason_code: "10.4", reason_description: "Other Fraud - Card-Absent Environment", card_type: "VI" }, { reason_code: "10.4", compelling_evidence: summary })

async function openCase(summary: CompellingEvidenceSummary | null, language?: string) {
  api.on("GET", DETAIL, { body: { chargeback: visa104(summary) } })
  renderAdmin(<DisputeDetailPage />, { path: "/disputes/:id", url: "/disputes/chbk_01", language })
  await screen.findByTestId("dispute-case")
  return within(screen.getByTestId("dispute-case"))
}

describe("the case panel's Compelling Evidence 3.0 fact", () => {
  it("says a Visa 10.4 case qualifies, with how many prior transactions", async () => {
    const panel = await openCase({ applicable: true, qualifies: true, prior_count: 2, reason: null })
    const fact = panel.getByText("Visa Compelling Evidence 3.0").closest("div")!.querySelector("dd")!
    expect(fact).toHaveTextContent("CE 3.0: qualifies, 2 prior transactions")
    expect(panel.getByTestId("compelling-evidence")).not.toHaveTextContent("does not")
  })

  it("says why a case does not qualify", async () => {
    const panel = await openCase({ applicable: true, qualifies: false, prior_count: 0, reason: "too_few_priors" })
    expect(panel.getByTestId("compelling-evidence")).toHaveTextContent(
      "CE 3.0: does not qualify" + "fewer than 2 earlier transactions on the card were made 120 to 365 days before"
    )
  })

  it("names the matching rule when the priors match on too little", async () => {
    const panel = await openCase({ applicable: true, qualifies: false, prior_count: 0, reason: "too_few_matches" })
    expect(panel.getByTestId("compelling-evidence")).toHaveTextContent(/one of them the IP address or the device ID/)
  })

  it("shows nothing for a case CE 3.0 does not apply to, or from a backend that does not say", async () => {
    const panel = await openCase({ applicable: false, qualifies: false, prior_count: 0, reason: "not_visa_10_4" })
    expect(panel.queryByText("Visa Compelling Evidence 3.0")).not.toBeInTheDocument()
    expect(panel.getByText(CASE_ID, { exact: false })).toBeInTheDocument()
  })

  it("is absent when the response has no summary", async () => {
    const panel = await openCase(null)
    expect(panel.queryByTestId("compelling-evidence")).not.toBeInTheDocument()
  })

  it("speaks German", async () => {
    const panel = await openCase({ applicable: true, qualifies: true, prior_count: 2, reason: null }, "de")
    expect(panel.getByTestId("compelling-evidence")).toHaveTextContent("CE 3.0: erfüllt, 2 frühere Transaktionen")
  })

  it("says why not in German", async () => {
    const panel = await openCase({ applicable: true, qualifies: false, prior_count: 1, reason: "priors_disputed" }, "de")
    expect(panel.getByTestId("compelling-evidence")).toHaveTextContent("CE 3.0: nicht erfüllt")
    expect(panel.getByTestId("compelling-evidence")).toHaveTextContent("nie angefochten")
  })
})
