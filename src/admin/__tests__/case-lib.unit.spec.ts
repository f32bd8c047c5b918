import { decideResponse } from "../../modules/servicescan/lifecycle/dispute-case"
import { DISPUTE_RESPONSE_STATUSES } from "../../modules/servicescan/types"
import { evidenceState, responseAvailability } from "../lib/case-actions"
import {
  activityTypeLabel,
  autoRespondLabel,
  cardLabel,
  daysBetween,
  formatBytes,
  formatDay,
  formatMinorMoney,
  gatewayDisplayName,
  minorToMajor,
  queueView,
  replyByCountdown,
  responseStatusLabel,
  todayUtc,
} from "../lib/format"
import { normalizeHealth } from "../lib/health"
import { caseListParams, evidencePackUrl } from "../lib/queries"
import type { DisputeAction, DisputeCase } from "../lib/types"
import { validateOrderId } from "../lib/validation"
import { chargeback, disputeCase, proofRequest, VALID_SCAN } from "./support/fixtures"

describe("reply-by countdown", () => {
  it.each([
    ["2025-03-10", "2025-03-14", "4 days left", "grey"],
    ["2025-03-10", "2025-03-13", "3 days left", "orange"],
    ["2025-03-10", "2025-03-11", "1 day left", "orange"],
    ["2025-03-10", "2025-03-10", "due today", "red"],
    ["2025-03-10", "2025-03-09", "passed", "red"],
    ["2025-02-28", "2025-03-01", "1 day left", "orange"],
    ["2024-12-31", "2025-01-02", "2 days left", "orange"],
  ])("today %s, reply by %s: %s", (today, replyBy, label, color) => {
    expect(replyByCountdown(replyBy, today)).toMatchObject({ label, color })
  })

  it("has nothing to count without a day", () => {
    expect(replyByCountdown(null, "2025-03-10")).toBeNull()
    expect(replyByCountdown("14/03/2025", "2025-03-10")).toBeNull()
    expect(daysBetween("2025-03-10", "not a day")).toBeNull()
  })

  it("counts in UTC days, as the backend does", () => {
    // 23:30 UTC on the 10th is the 11th in Paris and still the 10th in UTC.
    expect(todayUtc(new Date("2025-03-10T23:30:00Z"))).toBe("2025-03-10")
  })

  it("formats a processor's day as that day in every time zone", () => {
    const utc = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeZone: "UTC" }).format(Date.UTC(2025, 2, 10))
    expect(formatDay("2025-03-10", "en-US")).toBe(utc)
    expect(formatDay("2025-03-10", "en-US")).toContain("10")
    expect(formatDay(null)).toBe("–")
  })
})

describe("minor units", () => {
  it.each([
    [1999, "usd", "19.99"],
    [5, "usd", "0.05"],
    [0, "eur", "0.00"],
    [-50, "eur", "-0.50"],
    [1999, "jpy", "1999"],
    [1234, "kwd", "1.234"],
    ["123456789012345678", "huf", "1234567890123456.78"],
  ])("%s %s is %s in major units, digit for digit", (minor, currency, major) => {
    expect(minorToMajor(minor, currency)).toBe(major)
  })

  it("refuses what is not a whole number of minor units", () => {
    expect(minorToMajor(1.5, "usd")).toBeNull()
    expect(minorToMajor("12.5", "usd")).toBeNull()
    expect(minorToMajor(Number.MAX_SAFE_INTEGER + 2, "usd")).toBeNull()
    expect(formatMinorMoney("abc", "usd")).toBe("–")
  })

  it("formats through the same money formatting as every amount", () => {
    expect(formatMinorMoney(4999, "EUR", "en-US")).toBe("€49.99")
    expect(formatMinorMoney(1250, "JPY", "en-US")).toBe("¥1,250")
    expect(formatMinorMoney(1234550, "HUF", "en-US")).toMatch(/12,345\.50/)
  })
})

describe("the processor's words", () => {
  it("puts Worldpay's activity types in plain words and keeps unknown ones as written", () => {
    expect(activityTypeLabel("Merchant Represent")).toBe("Evidence sent: chargeback represented")
    expect(activityTypeLabel("MERCHANT  ACCEPTS LIABILITY")).toBe("Liability accepted")
    expect(activityTypeLabel("Reply Period Expired")).toBe("Reply period expired without an answer")
    expect(activityTypeLabel("Case Lost")).toBe("Lost: decided for the cardholder")
    expect(activityTypeLabel("Issuer Recall")).toBe("Issuer Recall")
    expect(activityTypeLabel(" ")).toBe("Activity")
  })

  it("says whose move it is", () => {
    expect(queueView("Merchant", true, "worldpay")).toEqual({ label: "Waiting for you", processorQueue: "Merchant" })
    expect(queueView("Vantiv", false, "worldpay")).toEqual({ label: "With Worldpay", processorQueue: "Vantiv" })
    expect(queueView("Merchant Assumed", false, "worldpay").label).toBe("Closed: the chargeback stands against you")
    expect(queueView("Network Assumed", false, "worldpay").label).toBe("Closed: the card network bears it")
    expect(queueView(null, false, "worldpay")).toEqual({ label: "Unknown", processorQueue: null })
  })

  it("names the gateway, the card and the pack's size", () => {
    expect(gatewayDisplayName("worldpay")).toBe("Worldpay")
    expect(gatewayDisplayName("")).toBe("the processor")
    expect(cardLabel("MC", "4444")).toBe("Mastercard •••• 4444")
    expect(cardLabel("XX", null)).toBe("XX")
    expect(cardLabel(null, null)).toBe("–")
    expect(formatBytes(900)).toBe("900 B")
    expect(formatBytes(412_000)).toBe("402 KB")
    expect(formatBytes(2 * 1024 * 1024)).toBe("2.0 MB")
  })

  it("labels every answer status", () => {
    for (const status of DISPUTE_RESPONSE_STATUSES) {
      expect(responseStatusLabel(status).description).not.toBe("")
    }
    expect(responseStatusLabel("represented").label).toBe("Evidence sent")
    expect(responseStatusLabel("something_new").label).toBe("Something new")
  })

  it("says the auto-respond policy in plain words", () => {
    expect(autoRespondLabel("off")).toBe("Off: an admin answers each case")
    expect(autoRespondLabel("represent-valid")).toMatch(/^Sends the evidence when a scan is worth disputing/)
    expect(autoRespondLabel("represent-valid-accept-invalid")).toMatch(/accepts liability when every scan is likely true fraud$/)
  })
})

describe("when an answer is possible", () => {
  const TODAY = "2025-03-10"
  const days = { past: "2025-03-09", today: "2025-03-10", future: "2025-03-20", none: null }

  // Every state a case can be in, for both answers: the page allows exactly
  // what the backend's lifecycle would start (evidence being ready).
  const states = DISPUTE_RESPONSE_STATUSES.flatMap((response_status) =>
    (["matched", "unmatched"] as const).flatMap((status) =>
      Object.entries(days).flatMap(([when, reply_by]) =>
        [true, false].flatMap((awaiting_merchant) =>
          (["represent", "accept"] as DisputeAction[]).map((action) => ({
            response_status,
            status,
            when,
            reply_by,
            awaiting_merchant,
            action,
          }))
        )
      )
    )
  )

  it.each(states)(
    "$action with $response_status, $status, reply-by $when, awaiting $awaiting_merchant: as the backend decides",
    ({ response_status, status, reply_by, awaiting_merchant, action }) => {
      const state = disputeCase({ response_status, status, reply_by, awaiting_merchant, outcome: null })
      const backend = decideResponse(
        { status, response_status, reply_by, awaiting_merchant, outcome: null },
        { type: "start", action, today: TODAY }
      )
      const page = responseAvailability(state, action, { evidence: "ready", today: TODAY })
      expect(page.allowed).toBe(backend.ok)
      if (!page.allowed) {
        expect(page.reason).toMatch(/\.$/)
      }
    }
  )

  it("needs evidence worth disputing to represent, not to accept", () => {
    const state: DisputeCase = disputeCase({ reply_by: "2025-03-20" })
    expect(responseAvailability(state, "represent", { evidence: "pending", today: TODAY })).toEqual({
      allowed: false,
      reason: "The evidence is not ready: ServiceScan has not returned its verdict yet.",
      key: "evidencePending",
    })
    expect(responseAvailability(state, "represent", { evidence: "none", today: TODAY }).allowed).toBe(false)
    expect(responseAvailability(state, "accept", { evidence: "none", today: TODAY })).toEqual({ allowed: true })
  })

  it("reads the evidence from the proof requests, else from the status", () => {
    expect(evidenceState(chargeback())).toBe("ready")
    expect(
      evidenceState(chargeback({ proof_requests: [proofRequest({ status: "pending", scans: [{ scan_id: VALID_SCAN, ground_truth: null }] })] }))
    ).toBe("pending")
    expect(evidenceState(chargeback({ proof_requests: [proofRequest({ scans: [{ scan_id: VALID_SCAN, ground_truth: "fraud" }] })] }))).toBe(
      "none"
    )
    expect(evidenceState(chargeback({ proof_requests: [] }))).toBe("none")
    expect(evidenceState({ status: "evidence_ready", proof_requests: undefined })).toBe("ready")
    expect(evidenceState({ status: "evidence_pending", proof_requests: undefined })).toBe("pending")
  })
})

describe("assigning a case", () => {
  it.each([
    ["", "Enter the order's id (order_…)."],
    ["   ", "Enter the order's id (order_…)."],
    ["#1042", `"#1042" looks like the order's display number.`],
    ["1042", `"1042" looks like the order's display number.`],
    ["cart_01J", `"cart_01J" is not an order id.`],
    ["order_01J 2", `"order_01J 2" is not an order id.`],
  ])("refuses %j", (value, message) => {
    expect(validateOrderId(value)).toContain(message)
  })

  it("takes an order id, with spaces around it", () => {
    expect(validateOrderId(" order_01JABCDEFGHJKMNPQRSTVWXYZ0 ")).toBeNull()
  })
})

describe("requests", () => {
  it("lists cases with only the filters that are set", () => {
    expect(caseListParams({ status: "unmatched", q: "  " })).toEqual({ status: "unmatched", offset: 0, limit: 20 })
    expect(caseListParams({ q: " 3978 ", offset: 40, limit: 20 })).toEqual({ q: "3978", offset: 40, limit: 20 })
  })

  it("downloads the pack from the admin route", () => {
    expect(evidencePackUrl("chbk_01")).toBe("/admin/servicescan/chargebacks/chbk_01/evidence-pack")
  })
})

describe("health: the dispute gateway and the policy", () => {
  it("keeps only the gateway's name, never its URL or credentials", () => {
    const health = normalizeHealth({
      health: {
        dispute_gateway: { name: "worldpay", url: "https://services.vantivcnp.com", user: "u", password: "demo-password" },
        auto_respond: "represent-valid",
      },
    })
    expect(health.dispute_gateway).toEqual({ name: "worldpay" })
    expect(health.auto_respond).toBe("represent-valid")
    expect(JSON.stringify(health)).not.toContain("demo-password")
  })

  it("tells a gateway not configured from a backend that does not say", () => {
    expect(normalizeHealth({ health: { dispute_gateway: null } }).dispute_gateway).toBeNull()
    expect(normalizeHealth({ health: { settings: { dispute_gateway: null } } }).dispute_gateway).toBeNull()
    expect(normalizeHealth({ health: {} }).dispute_gateway).toBeUndefined()
    expect(normalizeHealth({ health: {} }).auto_respond).toBeNull()
  })
})
