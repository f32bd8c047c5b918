import { PDFDocument } from "pdf-lib"
import { buildEvidencePack } from ".."
import { VERDICT_WORDING } from "../document"
import {
  TWO_MB,
  embeddedImages,
  gradientJpeg,
  invalidScan,
  makeInput,
  noisePng,
  pdfText,
  scanId,
  validScan,
  withComment,
} from "./fixtures"

// The contents of a pack that fits as it is: what an analyst reads, and the
// images exactly as ServiceScan served them.
describe("buildEvidencePack: contents", () => {
  const jpegs = [gradientJpeg(640, 400), withComment(gradientJpeg(640, 400), "second"), gradientJpeg(800, 500)]
  const input = makeInput([validScan(1, jpegs[0]), invalidScan(2), validScan(3, jpegs[1]), { ...validScan(4, jpegs[2]), fromOrder: "1001" }])
  let result: Awaited<ReturnType<typeof buildEvidencePack>>
  let text: ReturnType<typeof pdfText>

  beforeAll(async () => {
    result = await buildEvidencePack(input, { maxBytes: TWO_MB })
    text = pdfText(result.pdf)
  })

  it("is a PDF within the limit whose page count matches what PDF.js reads", () => {
    expect(Buffer.from(result.pdf.subarray(0, 5)).toString("latin1")).toBe("%PDF-")
    expect(result.bytes).toBe(result.pdf.byteLength)
    expect(result.bytes).toBeLessThanOrEqual(TWO_MB)
    expect(text.pages).toBe(result.pages)
    expect(result.downscaled).toBe(false)
  })

  it("names the case, the chargeback and the order on its first page", () => {
    const cover = text.text[0]
    expect(cover).toContain("Chargeback evidence: case 216000001")
    expect(cover).toContain("Worldpay case 216000001")
    expect(cover).toContain("First Chargeback")
    expect(cover).toContain("4837 - No Cardholder Authorization")
    expect(cover).toContain("Reply by 2025-03-15")
    expect(cover).toContain("74523456789012345678901")
    expect(cover).toContain("#1042, placed 2025-02-03 15:04:05 UTC")
    expect(cover).toContain("3 scans judged valid")
    expect(cover).toContain("1 scan judged invalid: likely true fraud")
  })

  it("shows the order: items, totals, customer and addresses", () => {
    for (const expected of [
      "Order number #1042",
      "order_01JNORDER",
      "Dana Whitfield",
      "dana@example.com",
      "Trail Helmet M / Slate HEL-TR-M 1 89.00 USD 89.00 USD",
      "Bottle Cage CAGE-01 2 12.50 USD 25.00 USD",
      "Subtotal 114.00 USD",
      "Shipping 10.00 USD",
      "Order total 124.00 USD",
      "12 Orchard Lane",
      "62701 Springfield IL",
      "Phone +1 217 555 0142",
      "The order was shipped to the billing address.",
    ]) {
      expect(text.all).toContain(expected)
    }
  })

  it("shows the payment: processor ids, card type and last four, authorization and capture times", () => {
    for (const expected of [
      "Processor transaction id 82924701437133501",
      "Authorization code A1B2C3",
      "Card Visa (VI) ending in 1111",
      "Authorized 2025-02-03 15:04:07 UTC",
      "Captured 2025-02-04 09:00:00 UTC",
    ]) {
      expect(text.all).toContain(expected)
    }
  })

  it("lists the proof request and each scan with its verdict", () => {
    expect(text.all).toContain("Proof request (ServiceScan id pr_9f8e7d6c)")
    expect(text.all).toContain("Submitted 2025-03-01 11:00:00 UTC")
    expect(text.all).toContain(`${scanId(1)} this order ${VERDICT_WORDING.valid}`)
    expect(text.all).toContain(`${scanId(3)} this order ${VERDICT_WORDING.valid}`)
    expect(text.all).toContain(`${scanId(4)} order #1001 (saved card) ${VERDICT_WORDING.valid}`)
    expect(text.all).toContain(`${scanId(2)} this order ${VERDICT_WORDING.invalid} (ServiceScan's word: "fraud".)`)
    expect(text.all).toContain(`The scan judged invalid (likely true fraud) has no image`)
  })

  it("embeds each valid scan's JPEG unchanged, once, on a page of its own section", async () => {
    const images = await embeddedImages(result.pdf)
    expect(images).toHaveLength(3)
    for (const jpeg of jpegs) {
      const matches = images.filter((image) => Buffer.compare(Buffer.from(image.bytes), Buffer.from(jpeg)) === 0)
      expect(matches).toHaveLength(1)
      expect(matches[0].filter).toBe("DCTDecode")
    }
    expect(images.map(({ width, height }) => `${width}x${height}`).sort()).toEqual(["640x400", "640x400", "800x500"])
    expect(result.images).toEqual(
      [1, 3, 4].map((n, index) => ({
        scanId: scanId(n),
        originalBytes: jpegs[index].byteLength,
        embeddedBytes: jpegs[index].byteLength,
        downscaled: false,
        originalSize: index === 2 ? { width: 800, height: 500 } : { width: 640, height: 400 },
        embeddedSize: index === 2 ? { width: 800, height: 500 } : { width: 640, height: 400 },
      }))
    )
    // Each image under its own scan's title, with the note that it is unchanged.
    for (const n of [1, 3, 4]) {
      const page = text.text.find((pageText) => pageText.includes(`Scan ${scanId(n)} Valid: a good candidate`))
      expect(page).toBeDefined()
    }
    expect(text.all).toContain(`The image as ServiceScan kept it, unchanged: 640x400 px`)
    expect(text.all).not.toContain("Reduced from")
  })

  it("sets the PDF's metadata from the input, not from the clock", async () => {
    const doc = await PDFDocument.load(result.pdf, { updateMetadata: false })
    expect(doc.getCreationDate()?.toISOString()).toBe("2025-03-01T12:00:00.000Z")
    expect(doc.getModificationDate()?.toISOString()).toBe("2025-03-01T12:00:00.000Z")
    expect(doc.getTitle()).toBe("Chargeback evidence: case 216000001")
    expect(doc.getAuthor()).toBe("Orchard Cycles")
  })

  it("is byte-for-byte the same when generated again from the same input", async () => {
    const again = await buildEvidencePack(makeInput(input.proofRequests[0].scans), { maxBytes: TWO_MB })
    expect(Buffer.compare(Buffer.from(again.pdf), Buffer.from(result.pdf))).toBe(0)
    const later = await buildEvidencePack({ ...input, generatedAt: new Date("2025-03-02T12:00:00.000Z") }, { maxBytes: TWO_MB })
    expect(Buffer.compare(Buffer.from(later.pdf), Buffer.from(result.pdf))).not.toBe(0)
  })
})

describe("buildEvidencePack: what it never shows, and what it says when something is missing", () => {
  it("shows no more than the last four digits, even when given a whole card number", async () => {
    const input = makeInput([invalidScan(1)])
    input.payment = { ...input.payment, cardType: "MC", last4: "5454 5454 5454 5454" }
    const { pdf } = await buildEvidencePack(input, { maxBytes: TWO_MB })
    const { all } = pdfText(pdf)
    expect(all).toContain("Mastercard (MC) ending in 5454")
    expect(all).not.toMatch(/5454\s?5454/)
  })

  it("says so when a valid scan has no image, or an image it cannot read, and reports it", async () => {
    const truncated = gradientJpeg(64, 64).subarray(0, 12)
    const input = makeInput([
      validScan(1, null),
      validScan(2, new TextEncoder().encode("<html>Not Found</html>"), "image/jpeg"),
      validScan(3, truncated),
    ])
    const result = await buildEvidencePack(input, { maxBytes: TWO_MB })
    const { all } = pdfText(result.pdf)
    expect(all).toContain(`Scan ${scanId(1)} ${VERDICT_WORDING.valid} Scanned at checkout of this order. Its image was not available`)
    expect(all).toContain(`Scan ${scanId(2)} ${VERDICT_WORDING.valid} Scanned at checkout of this order. Its image could not be included: not a JPEG or PNG image.`)
    expect(all).toContain(`Its image could not be included: malformed JPEG`)
    expect(await embeddedImages(result.pdf)).toHaveLength(0)
    expect(result.images.map((image) => [image.scanId, image.embeddedBytes, image.problem])).toEqual([
      [scanId(2), 0, "not a JPEG or PNG image"],
      [scanId(3), 0, expect.stringContaining("malformed JPEG")],
    ])
  })

  it("says when no proof request was made, and when no scan was judged valid", async () => {
    const none = await buildEvidencePack(makeInput([], { proofRequests: [] }), { maxBytes: TWO_MB })
    const noneText = pdfText(none.pdf).all
    expect(noneText).toContain("No card scan was submitted to ServiceScan for this order.")
    expect(noneText).toContain("No proof request was made for this order.")
    expect(noneText).toContain("No scan was judged valid, so there is no image to show.")
  })

  it("embeds a PNG as a PNG (lossless) when it fits", async () => {
    const png = noisePng(60, 40)
    const result = await buildEvidencePack(makeInput([validScan(1, png, "image/png")]), { maxBytes: TWO_MB })
    const images = await embeddedImages(result.pdf)
    // pdf-lib stores PNG pixels deflated, with no alpha here (every pixel is opaque).
    expect(images).toEqual([expect.objectContaining({ width: 60, height: 40, filter: "FlateDecode" })])
    expect(result.images[0]).toMatchObject({ downscaled: false, originalBytes: png.byteLength, embeddedSize: { width: 60, height: 40 } })
    expect(pdfText(result.pdf).all).toContain("unchanged: 60x40 px")
  })
})

describe("buildEvidencePack: pagination", () => {
  it("runs a long item list over several pages, repeating the table header on each", async () => {
    const items = Array.from({ length: 180 }, (_, index) => ({
      title: `Spoke ${String(index + 1).padStart(3, "0")}`,
      variant: index % 3 === 0 ? "Stainless, 292 mm, with a longer variant name that wraps onto a second line" : null,
      sku: `SPK-${index + 1}`,
      quantity: (index % 4) + 1,
      unitPrice: "0.90 USD",
      total: `${(((index % 4) + 1) * 0.9).toFixed(2)} USD`,
    }))
    const input = makeInput([validScan(1, gradientJpeg(320, 200))])
    input.order = { ...input.order, items }
    const result = await buildEvidencePack(input, { maxBytes: TWO_MB })
    const { text, pages, all } = pdfText(result.pdf)
    expect(pages).toBeGreaterThanOrEqual(5)
    // Every item, in order.
    let position = -1
    for (const item of items) {
      const next = all.indexOf(`${item.title} `, position + 1)
      expect(next).toBeGreaterThan(position)
      position = next
    }
    const pagesWithItems = text.filter((page) => /Spoke \d{3}/.test(page))
    expect(pagesWithItems.length).toBeGreaterThanOrEqual(4)
    for (const page of pagesWithItems) expect(page).toMatch(/Item SKU Qty Unit price Total/)
    // Every page carries its running header and "Page n of N".
    text.forEach((page, index) => {
      expect(page).toContain(`Page ${index + 1} of ${pages}`)
      expect(page).toContain("Evidence for Worldpay chargeback case 216000001")
    })
  })

  it("runs many scans and proof requests over several pages, each image once", async () => {
    const jpeg = gradientJpeg(400, 250)
    const first = Array.from({ length: 30 }, (_, index) =>
      index % 3 === 0 ? validScan(index + 1, withComment(jpeg, `scan ${index + 1}`)) : invalidScan(index + 1)
    )
    // A second proof request resends some of the same scans: their images appear once.
    const input = makeInput(first)
    input.proofRequests.push({
      remoteId: "pr_second",
      status: "complete",
      submittedAt: "2025-03-02T11:00:00.000Z",
      completedAt: "2025-03-02T11:20:00.000Z",
      scans: [first[0], first[3], invalidScan(31)],
    })
    const result = await buildEvidencePack(input, { maxBytes: TWO_MB })
    const { all, pages } = pdfText(result.pdf)
    expect(pages).toBeGreaterThanOrEqual(6)
    for (let n = 1; n <= 31; n++) expect(all).toContain(scanId(n))
    expect(all).toContain("Proof request 2 (ServiceScan id pr_second)")
    const images = await embeddedImages(result.pdf)
    expect(images).toHaveLength(10)
    expect(result.images.map((image) => image.scanId)).toEqual(first.filter((scan) => scan.verdict === "valid").map((scan) => scan.scanId))
    // Two scans to a page at most, so each sits with its title and caption.
    const perPage = new Map<number, number>()
    for (const image of images) perPage.set(image.page, (perPage.get(image.page) ?? 0) + 1)
    expect(Math.max(...perPage.values())).toBeLessThanOrEqual(2)
  })
})
