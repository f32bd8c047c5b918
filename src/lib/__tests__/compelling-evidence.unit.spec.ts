import {
  ce3AddressKey,
  ce3DaysBetween,
  Ce3Input,
  Ce3Transaction,
  CE3_REASON_TEXT,
  CE3_REASONS,
  evaluateCompellingEvidence,
  isCe3Applicable,
  summarizeCompellingEvidence,
} from "../compelling-evidence"

/**
 * Visa CE 3.0's rules at each boundary: the 120–365 day window, two matching
 * elements with one of them IP or device, undisputed priors, two of them, and
 * a saved card to find them by.
 */
const DISPUTED_AT = "2026-11-28T10:00:00.000Z"
const ADDRESS = ce3AddressKey({ address_1: "1 Main St", postal_code: "10001", city: "New York", country_code: "us" })

const daysBefore = (days: number) => new Date(Date.parse(DISPUTED_AT) - days * 24 * 60 * 60 * 1000).toISOString()

const disputed: Ce3Transaction = {
  paymentId: "pay_disputed",
  orderId: "order_disputed",
  displayId: 3,
  date: DISPUTED_AT,
  amount: "$10.00",
  ipAddress: "203.0.113.7",
  deviceId: "dev-1",
  customerAccount: "cus_1",
  shippingAddress: ADDRESS,
}

let seq = 0
const prior = (days: number, overrides: Partial<Ce3Transaction> = {}): Ce3Transaction => {
  seq++
  return { ...disputed, paymentId: `pay_${seq}`, orderId: `order_${seq}`, displayId: seq, date: daysBefore(days), ...overrides }
}

const input = (candidates: Ce3Transaction[], overrides: Partial<Ce3Input> = {}): Ce3Input => ({
  reasonCode: "10.4",
  cardType: "VI",
  disputed,
  savedCard: true,
  candidates,
  ...overrides,
})

describe("evaluateCompellingEvidence", () => {
  it("qualifies with two undisputed priors 130 and 200 days before, same device id, listing both with what matched", () => {
    const result = evaluateCompellingEvidence(input([prior(200, { ipAddress: null }), prior(130, { ipAddress: "198.51.100.1" })]))
    expect(result).toMatchObject({ applicable: true, qualifies: true, reason: null })
    expect(result.priors.map((p) => p.daysBefore)).toEqual([130, 200])
    expect(result.priors[0].matched).toEqual(["device_id", "customer_account", "shipping_address"])
    expect(result.priors[0].values.device_id).toBe("dev-1")
    expect(summarizeCompellingEvidence(result)).toEqual({ applicable: true, qualifies: true, prior_count: 2, reason: null })
  })

  it.each([
    [119, false],
    [120, true],
    [365, true],
    [366, false],
  ])("a prior %i days before counts: %s", (days, counts) => {
    const result = evaluateCompellingEvidence(input([prior(days), prior(200)]))
    expect(result.qualifies).toBe(counts)
    expect(result.reason).toBe(counts ? null : "too_few_priors")
    expect(result.counts.inWindow).toBe(counts ? 2 : 1)
  })

  it("counts calendar days in UTC, not 24-hour spans: late on day 120 before is still 120", () => {
    expect(ce3DaysBetween("2026-07-31T23:59:00Z", "2026-11-28T00:01:00Z")).toBe(120)
    expect(ce3DaysBetween("2026-08-01T00:00:00Z", "2026-11-28T23:59:00Z")).toBe(119)
  })

  it("priors at 100 and 400 days: too few in the window", () => {
    const result = evaluateCompellingEvidence(input([prior(100), prior(400)]))
    expect(result).toMatchObject({ qualifies: false, reason: "too_few_priors", counts: { onCard: 2, inWindow: 0 } })
  })

  it("one prior only does not qualify", () => {
    expect(evaluateCompellingEvidence(input([prior(150)])).reason).toBe("too_few_priors")
  })

  it("a disputed prior does not count", () => {
    const result = evaluateCompellingEvidence(input([prior(150), prior(200, { disputed: true })]))
    expect(result).toMatchObject({ qualifies: false, reason: "priors_disputed", counts: { inWindow: 2, undisputed: 1 } })
  })

  it("a third undisputed prior makes up for a disputed one", () => {
    expect(evaluateCompellingEvidence(input([prior(150), prior(200, { disputed: true }), prior(300)])).qualifies).toBe(true)
  })

  it("one matching element is not enough (device id only)", () => {
    const only = { ipAddress: "198.51.100.9", customerAccount: "cus_other", shippingAddress: null }
    const result = evaluateCompellingEvidence(input([prior(150, only), prior(200, only)]))
    expect(result).toMatchObject({ qualifies: false, reason: "too_few_matches", counts: { undisputed: 2, matching: 0 } })
  })

  it("two elements without the IP or the device (customer account and shipping address) do not qualify", () => {
    const weak = { ipAddress: "198.51.100.9", deviceId: "dev-other" }
    const result = evaluateCompellingEvidence(input([prior(150, weak), prior(200, weak)]))
    expect(result).toMatchObject({ qualifies: false, reason: "too_few_matches" })
  })

  it("IP address and device id alone qualify", () => {
    const strong = { customerAccount: null, shippingAddress: null }
    const result = evaluateCompellingEvidence(input([prior(150, strong), prior(200, strong)]))
    expect(result.qualifies).toBe(true)
    expect(result.priors[0].matched).toEqual(["ip_address", "device_id"])
  })

  it("a value missing on both sides is no match", () => {
    const blank = { ipAddress: null, deviceId: null }
    const result = evaluateCompellingEvidence(input([prior(150, blank), prior(200, blank)], { disputed: { ...disputed, ipAddress: null } }))
    expect(result.reason).toBe("too_few_matches")
  })

  it("no saved card: nothing to find priors by", () => {
    expect(evaluateCompellingEvidence(input([prior(150), prior(200)], { savedCard: false })).reason).toBe("no_saved_card")
    expect(evaluateCompellingEvidence(input([], { disputed: null })).reason).toBe("no_saved_card")
  })

  it("no IP and no device recorded for the disputed checkout", () => {
    const result = evaluateCompellingEvidence(input([prior(150), prior(200)], { disputed: { ...disputed, ipAddress: null, deviceId: " " } }))
    expect(result.reason).toBe("no_signals")
  })

  it("the disputed payment (or its order) is never its own prior", () => {
    const result = evaluateCompellingEvidence(input([prior(150), { ...disputed, date: daysBefore(200) }, prior(200, { orderId: "order_disputed" })]))
    expect(result).toMatchObject({ reason: "too_few_priors", counts: { onCard: 1 } })
  })

  it.each([
    ["13.1", "VI", false],
    ["10.4", "MC", false],
    ["4837", "MC", false],
    ["10.4", null, true],
    ["10.4", "visa", true],
    [" 10.4 ", "Visa", true],
    [null, "VI", false],
  ])("applies to reason %s on card type %s: %s", (reasonCode, cardType, applies) => {
    expect(isCe3Applicable(reasonCode, cardType)).toBe(applies)
    const result = evaluateCompellingEvidence(input([prior(150), prior(200)], { reasonCode, cardType }))
    expect(result.applicable).toBe(applies)
    expect(result.qualifies).toBe(applies)
    if (!applies) expect(result.reason).toBe("not_visa_10_4")
  })

  it("compares shipping addresses by street, postal code, city and country, ignoring case and punctuation", () => {
    expect(ce3AddressKey({ address_1: "1, Main St.", postal_code: "10001", city: "NEW YORK", country_code: "US" })).toBe(ADDRESS)
    expect(ce3AddressKey({ address_1: "2 Main St", postal_code: "10001", city: "New York", country_code: "us" })).not.toBe(ADDRESS)
    expect(ce3AddressKey({ address_1: "  ", city: "New York" })).toBeNull()
    expect(ce3AddressKey(null)).toBeNull()
  })

  it("words every reason", () => {
    for (const reason of CE3_REASONS) expect(CE3_REASON_TEXT[reason]).toMatch(/\.$/)
  })
})
