import { buildEvidencePack } from "../build"
import { makeInput, pdfText, TWO_MB, validScan, noiseJpeg } from "./fixtures"

const options = { maxBytes: TWO_MB }

describe("the pack leads with what wins the reason family", () => {
  it("not received: the fulfillments with carrier, tracking numbers and dates come before the order", async () => {
    const input = makeInput([validScan(1, noiseJpeg(64, 48))], {
      family: "not_received",
      fulfillments: [
        {
          id: "ful_01",
          carrier: "Parcel post (manual_manual)",
          trackingNumbers: ["1Z999AA10123456784", "TRK-SECOND-22"],
          packedAt: "2025-02-03T16:00:00.000Z",
          shippedAt: "2025-02-04T09:30:00.000Z",
          deliveredAt: "2025-02-06T14:12:00.000Z",
          items: ["Trail Helmet x 1"],
        },
      ],
    })
    const text = pdfText((await buildEvidencePack(input, options)).pdf).all
    expect(text).toContain("Reason family")
    expect(text).toContain("Not received")
    expect(text).toContain("Delivery of the order")
    expect(text).toContain("1Z999AA10123456784")
    expect(text).toContain("TRK-SECOND-22")
    expect(text).toContain("Parcel post (manual_manual)")
    expect(text).toContain("2025-02-06")
    expect(text.indexOf("1Z999AA10123456784")).toBeLessThan(text.indexOf("Order number"))
    // The card verification is still there, after.
    expect(text.indexOf("3. Card verification", text.indexOf("Order number"))).toBeGreaterThan(-1)
  })

  it("not received without a fulfillment says so", async () => {
    const text = pdfText((await buildEvidencePack(makeInput([], { family: "not_received", fulfillments: [] }), options)).pdf).all
    expect(text).toContain("Medusa holds no fulfillment of this order.")
  })

  it("not as described: the items with their descriptions at the time of the order, and returns", async () => {
    const base = makeInput([])
    const input = makeInput([], {
      family: "not_as_described",
      order: { ...base.order, items: [{ ...base.order.items[0], description: "MIPS liner, 310 g, EN 1078 certified" }, base.order.items[1]] },
      returns: [{ id: "return_01", status: "received", requestedAt: "2025-02-10T10:00:00.000Z", receivedAt: "2025-02-14T10:00:00.000Z", items: ["Trail Helmet x 1"] }],
    })
    const text = pdfText((await buildEvidencePack(input, options)).pdf).all
    expect(text).toContain("The items as sold, and returns")
    expect(text).toContain("MIPS liner, 310 g, EN 1078 certified")
    expect(text).toContain("No description recorded")
    expect(text).toContain("return_01")
    expect(text.indexOf("MIPS liner")).toBeLessThan(text.indexOf("Order number"))
  })

  it("credit not processed: the refunds lead", async () => {
    const input = makeInput([], { family: "credit_not_processed", refunds: [{ amount: "24.00 USD", createdAt: "2025-02-08T08:00:00.000Z", note: "Returned bottle cage" }] })
    const text = pdfText((await buildEvidencePack(input, options)).pdf).all
    expect(text).toContain("Refunds")
    expect(text).toContain("24.00 USD")
    expect(text).toContain("Returned bottle cage")
    expect(text.indexOf("Returned bottle cage")).toBeLessThan(text.indexOf("Order number"))
  })

  it("fraud and other lead with nothing new: the pack is the one it was, bar the family on the cover", async () => {
    for (const family of ["fraud", "other", undefined] as const) {
      const text = pdfText((await buildEvidencePack(makeInput([], { family }), options)).pdf).all
      expect(text).not.toContain("Delivery of the order")
      expect(text).not.toContain("The items as sold")
      expect(text).toContain("Contents: 1. The order")
      expect(text).toContain(family === "fraud" ? "Fraud: answered with the card scans" : "Other: answered with the order and the payment")
    }
  })
})
