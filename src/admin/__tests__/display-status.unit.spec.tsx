/**
 * @jest-environment ./src/admin/__tests__/support/jsdom-env.js
 */
import "@testing-library/jest-dom"
import { render, screen } from "@testing-library/react"
import { ChargebackStatusBadge } from "../components/status-badges"
import { de } from "../i18n/de"
import { en } from "../i18n/en"
import resources, { I18N_NAMESPACE } from "../i18n"
import { chargebackStatusLabel, responseStatusLabel } from "../lib/format"
import { CASE_DRIVEN_STATUSES, chargebackDisplayStatus, chargebackDisplayView } from "../lib/status-meanings"
import { CHARGEBACK_STATUSES, DISPUTE_RESPONSE_STATUSES } from "../lib/types"
import { DISPUTE_RESPONSE_STATUS_MEANINGS } from "../../modules/servicescan/lifecycle/status-meanings"
import { createTestI18n } from "./support/render"
import { disputeCase } from "./support/fixtures"

const withCase = (status: string, response_status: string, outcome: "won" | "lost" | null = null) => ({
  status,
  dispute_case: disputeCase({ response_status, outcome }),
})

describe("a chargeback's shown status follows its case", () => {
  it.each([
    // [chargeback status, case answer, network decision, shown]
    ["evidence_ready", "none", null, "evidence_ready"],
    ["evidence_ready", "representing", null, "representing"],
    ["evidence_ready", "represented", null, "represented"],
    ["no_evidence", "accepting", null, "accepting"],
    ["no_evidence", "liability_accepted", null, "liability_accepted"],
    ["evidence_ready", "expired", null, "expired"],
    // The network decided; the chargeback has not caught up yet.
    ["evidence_ready", "represented", "won", "won"],
    ["evidence_ready", "represented", "lost", "lost"],
    // The chargeback's own final status wins over the case's.
    ["won", "represented", null, "won"],
    ["closed", "liability_accepted", null, "closed"],
    ["lost", "represented", "won", "lost"],
  ] as const)("%s with a case %s, decided %s: %s", (status, response, outcome, shown) => {
    expect(chargebackDisplayStatus(withCase(status, response, outcome))).toBe(shown)
  })

  it("without a case it is the chargeback's own status", () => {
    for (const status of CHARGEBACK_STATUSES) {
      expect(chargebackDisplayStatus({ status, dispute_case: null })).toBe(status)
      expect(chargebackDisplayStatus({ status })).toBe(status)
    }
  })

  it("a case-driven status says what the case panel says, in the module's words", () => {
    for (const status of CASE_DRIVEN_STATUSES) {
      const view = chargebackDisplayView(withCase("evidence_ready", status))
      expect(view.status).toBe(status)
      expect(view.description).toBe(DISPUTE_RESPONSE_STATUS_MEANINGS[status])
      // Every answer but "represented" has the case panel's own word; "Represented" is what the list says of a chargeback.
      expect(DISPUTE_RESPONSE_STATUSES).toContain(status)
      if (status !== "represented") {
        expect(view.label).toBe(responseStatusLabel(status).label)
      }
    }
    expect(chargebackDisplayView(withCase("evidence_ready", "represented")).label).toBe("Represented")
  })
})

describe("the admin's translations", () => {
  const keys = (value: object, prefix = ""): string[] =>
    Object.entries(value).flatMap(([key, child]) =>
      typeof child === "string" ? [`${prefix}${key}`] : keys(child as object, `${prefix}${key}.`)
    )

  it("registers English and German under the plugin's namespace, for Medusa's admin build to merge", () => {
    expect(Object.keys(resources).sort()).toEqual(["de", "en"])
    expect(resources.en[I18N_NAMESPACE]).toBe(en)
    expect(resources.de[I18N_NAMESPACE]).toBe(de)
  })

  it("has every English key in German, each one translated or deliberately the same", () => {
    expect(keys(de).sort()).toEqual(keys(en).sort())
    const same = keys(en).filter((key) => key.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], de) === key.split(".").reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], en))
    // In the Disputes pages' sections, only names and symbols stay as they are: the product's name, "Status", a dash.
    const sections = ["menu.", "common.", "disputes.", "list.", "status.", "due.", "chargeback.", "order."]
    expect(same.filter((key) => sections.some((section) => key.startsWith(section))).sort()).toEqual([
      "common.none",
      "list.columns.status",
      "list.evidence.notLoaded",
      "list.filters.status",
      "menu.settings",
    ])
  })

  it("names every status English knows by the badge tables' words", () => {
    for (const status of CHARGEBACK_STATUSES) {
      expect(en.status.chargeback[status]).toBe(chargebackStatusLabel(status).label)
    }
    for (const status of CASE_DRIVEN_STATUSES) {
      expect(en.status.chargeback[status]).toBe(chargebackDisplayView(withCase("open", status)).label)
    }
  })

  it.each([
    ["en", "Represented"],
    ["de", "Widersprochen"],
  ])("the badge reads the status in the admin's language (%s)", (language, word) => {
    createTestI18n(language)
    render(<ChargebackStatusBadge chargeback={withCase("evidence_ready", "represented")} />)
    expect(screen.getByText(word)).toHaveAttribute("data-status", "represented")
  })
})
