import { buildEvidencePack } from "../build"
import { ce3AddressKey, evaluateCompellingEvidence, type Ce3Transaction } from "../../compelling-evidence"
import { makeInput, pdfText, TWO_MB, validScan, noiseJpeg } from "./fixtures"

/** The pack's Compelling Evidence 3.0 section, read back from the PDF. */
const options = { maxBytes: TWO_MB }
const DISPUTED_AT = "2025-02-01T12:00:00.000Z"
const address = { address_1: "12 Harbour Road", postal_code: "94107", city: "San Francisco", country_code: "us" }

const disputed: Ce3Transaction = {
  paymentId: "pay_now",
  orderId: "order_now",
  displayId: 42,
  date: DISPUTED_AT,
  amount: "120.00 USD",
  ipAddress: "203.0.113.7",
  deviceId: "dev-7f3a",
  customerAccount: "cus_01",
  shippingAddress: ce3AddressKey(address),
  shippingAddressText: "12 Harbour Road, 94107 San Francisco, US",
}
const prior = (n: number, days: number, overrides: Partial<Ce3Transaction> = {}): Ce3Transaction => ({
  ...disputed,
  paymentId: `pay_${n}`,
  orderId: `order_${n}`,
  displayId: n,
  amount: `${n}.50 USD`,
  date: new Date(Date.parse(DISPUTED_AT) - days * 86_400_000).toISOString(),
  ipAddress: "198.51.100.23",
  ...overrides,
})
const decide = (candidates: Ce3Transaction[], reasonCode = "10.4") =>
  evaluateCompellingEvidence({ reasonCode, cardType: "VI", disputed, savedCard: true, candidates })

describe("the Visa Compelling Evidence 3.0 section", () => {
  it("lists the qualifying priors with dates, amounts, order numbers and matching elements, before the order", async () => {
    const ce3 = decide([prior(7, 130), prior(3, 200)])
    const input = makeInput([validScan(1, noiseJpeg(64, 48))], { family: "fraud", compellingEvidence: ce3 })
    const text = pdfText((await buildEvidencePack(input, options)).pdf).all
    expect(text).toContain("Visa Compelling Evidence 3.0")
    expect(text).toContain("Qualifies: 2 prior undisputed transactions on the same card")
    expect(text).toContain("#7")
    expect(text).toContain("#3")
    expect(text).toContain("7.50 USD")
    expect(text).toContain("3.50 USD")
    expect(text).toContain("130 days before")
    expect(text).toContain("200 days before")
    expect(text).toContain("2024-09-24")
    expect(text).toContain("Device ID: dev-7f3a")
    expect(text).toContain("Customer account: cus_01")
    // The disputed transaction's IP is there for the acquirer; the priors' differ, so they match on device.
    expect(text).toContain("203.0.113.7")
    expect(text.indexOf("Visa Compelling Evidence 3.0", text.indexOf("Summary"))).toBeLessThan(text.indexOf("Order number"))
  })

  it("says why a case does not qualify", async () => {
    const ce3 = decide([prior(7, 100), prior(3, 400)])
    const text = pdfText((await buildEvidencePack(makeInput([], { family: "fraud", compellingEvidence: ce3 }), options)).pdf).all
    expect(text).toContain("Does not qualify")
    expect(text).toContain("Fewer than 2 earlier transactions on the same card were made 120 to 365 days before")
    expect(text).toContain("Earlier transactions on the same card found: 2; 120 to 365 days before: 0")
  })

  it("is absent for another reason, and for a pack of another family", async () => {
    const other = decide([prior(7, 130), prior(3, 200)], "10.3")
    expect(pdfText((await buildEvidencePack(makeInput([], { family: "fraud", compellingEvidence: other }), options)).pdf).all).not.toContain(
      "Compelling Evidence"
    )
    const visa = decide([prior(7, 130), prior(3, 200)])
    expect(
      pdfText((await buildEvidencePack(makeInput([], { family: "not_received", fulfillments: [], compellingEvidence: visa }), options)).pdf).all
    ).not.toContain("Compelling Evidence")
    expect(pdfText((await buildEvidencePack(makeInput([], { family: "fraud" }), options)).pdf).all).not.toContain("Compelling Evidence")
  })
})
