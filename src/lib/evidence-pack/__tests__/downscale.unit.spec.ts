import jpeg from "jpeg-js"
import { EvidencePackInputError, EvidencePackTooLargeError, buildEvidencePack } from ".."
import { REDUCTION_LEVELS } from "../images"
import { TWO_MB, embeddedImages, gradientJpeg, makeInput, noiseJpeg, noisePng, pdfText, scanId, validScan, withComment } from "./fixtures"

// Large, detailed images (noise is the worst case for JPEG) that together are
// far over the processor's limit: the pack must shrink them, say so, and still fit.
describe("buildEvidencePack: fitting the processor's limit", () => {
  // About 3.6 MB each: three of them are five times Worldpay's 2 MB.
  const large = noiseJpeg(1600, 1200, 7, 90)
  const scans = [1, 2, 3].map((n) => validScan(n, withComment(large, `scan ${n}`)))
  let result: Awaited<ReturnType<typeof buildEvidencePack>>

  beforeAll(async () => {
    expect(large.byteLength).toBeGreaterThan(3 * 1024 * 1024)
    result = await buildEvidencePack(makeInput(scans), { maxBytes: TWO_MB })
  }, 120_000)

  it("fits within maxBytes with every valid scan's image still in it", async () => {
    expect(result.bytes).toBeLessThanOrEqual(TWO_MB)
    expect(result.pdf.byteLength).toBe(result.bytes)
    const images = await embeddedImages(result.pdf)
    expect(images).toHaveLength(3)
    expect(result.downscaled).toBe(true)
    expect(result.images.map((image) => image.scanId)).toEqual([scanId(1), scanId(2), scanId(3)])
    for (const report of result.images) {
      expect(report.downscaled).toBe(true)
      expect(report.originalSize).toEqual({ width: 1600, height: 1200 })
      expect(report.embeddedBytes).toBeLessThan(report.originalBytes)
      // Reduced, with the aspect ratio kept, to one of the ladder's steps and not below its smallest.
      const size = report.embeddedSize
      if (!size) throw new Error("expected an embedded size")
      expect(Math.abs(size.width / size.height - 4 / 3)).toBeLessThan(0.01)
      expect(REDUCTION_LEVELS.map((level) => Math.min(level.maxEdge, 1600))).toContain(size.width)
      // The embedded stream is the re-encoded JPEG, and it decodes to the reported size.
      const embedded = images.find((image) => image.bytes.byteLength === report.embeddedBytes)
      if (!embedded) throw new Error(`no embedded image of ${report.embeddedBytes} bytes`)
      expect(embedded.filter).toBe("DCTDecode")
      expect([embedded.width, embedded.height]).toEqual([size.width, size.height])
      const decoded = jpeg.decode(embedded.bytes, { useTArray: true })
      expect([decoded.width, decoded.height]).toEqual([size.width, size.height])
    }
  })

  it("says under each image that it was reduced, from what to what, and why", () => {
    const { all } = pdfText(result.pdf)
    for (const report of result.images) {
      const size = report.embeddedSize
      if (!size) throw new Error("expected an embedded size")
      expect(all).toMatch(
        new RegExp(
          `Scan ${report.scanId} .*?Reduced from 1600x1200 px, 3\\.\\d MB \\(JPEG\\) to ${size.width}x${size.height} px, ` +
            `[\\d,]+ kB \\(JPEG quality \\d+\\), to fit the processor's 2 MB per-document limit\\.`
        )
      )
    }
  })

  it("shares the room fairly and uses it: equal images get the same step, and the pack is not shrunk far below the limit", () => {
    const sizes = result.images.map((image) => `${image.embeddedSize?.width}x${image.embeddedSize?.height}`)
    expect(new Set(sizes).size).toBe(1)
    expect(result.bytes).toBeGreaterThan(TWO_MB / 2)
  })
})

describe("buildEvidencePack: reductions are deterministic", () => {
  it("gives the same bytes twice when it had to reduce images", async () => {
    const scans = [1, 2].map((n) => validScan(n, noiseJpeg(800, 600, n, 90)))
    const options = { maxBytes: 500_000 }
    const first = await buildEvidencePack(makeInput(scans), options)
    const second = await buildEvidencePack(makeInput(scans), options)
    expect(first.downscaled).toBe(true)
    expect(first.bytes).toBeLessThanOrEqual(500_000)
    expect(Buffer.compare(Buffer.from(first.pdf), Buffer.from(second.pdf))).toBe(0)
    // The limit as a person reads it, when it is not a round number of megabytes.
    expect(pdfText(first.pdf).all).toContain("to fit the processor's 488 kB per-document limit.")
  }, 60_000)

  it("reduces a PNG to a JPEG when it has to, and says it was a PNG", async () => {
    const png = noisePng(500, 400, 3)
    const textOnly = await buildEvidencePack(makeInput([]), { maxBytes: TWO_MB })
    const maxBytes = textOnly.bytes + 120_000
    expect(png.byteLength).toBeGreaterThan(maxBytes)
    const result = await buildEvidencePack(makeInput([validScan(1, png, "image/png")]), { maxBytes })
    expect(result.bytes).toBeLessThanOrEqual(maxBytes)
    const [image] = await embeddedImages(result.pdf)
    expect(image.filter).toBe("DCTDecode")
    expect(result.images[0]).toMatchObject({ downscaled: true, originalSize: { width: 500, height: 400 } })
    expect(pdfText(result.pdf).all).toMatch(/Reduced from 500x400 px, [\d,]+ kB \(PNG\) to \d+x\d+ px/)
  }, 60_000)
})

describe("buildEvidencePack: an image too large that cannot be decoded", () => {
  it("is left out with a note, and the rest of the pack still fits", async () => {
    // A sound header (4000x3000, so pdf-lib would embed it as it is) over 940 kB of comments: no image data.
    const parts = [Buffer.from([0xff, 0xd8]), Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, 0x0b, 0xb8, 0x0f, 0xa0, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])]
    for (let i = 0; i < 16; i++) parts.push(Buffer.from([0xff, 0xfe, 0xea, 0x62]), Buffer.alloc(60_000, 0x41 + i))
    parts.push(Buffer.from([0xff, 0xd9]))
    const broken = new Uint8Array(Buffer.concat(parts))
    const good = gradientJpeg(320, 200)
    const textOnly = await buildEvidencePack(makeInput([]), { maxBytes: TWO_MB })
    const maxBytes = textOnly.bytes + 200_000
    const result = await buildEvidencePack(makeInput([validScan(1, broken), validScan(2, good)]), { maxBytes })
    expect(result.bytes).toBeLessThanOrEqual(maxBytes)
    expect(result.images).toEqual([
      expect.objectContaining({ scanId: scanId(1), embeddedBytes: 0, problem: "the JPEG data could not be decoded, so it could not be reduced to fit" }),
      expect.objectContaining({ scanId: scanId(2), embeddedBytes: good.byteLength, downscaled: false }),
    ])
    const images = await embeddedImages(result.pdf)
    expect(images.map((image) => Buffer.compare(Buffer.from(image.bytes), Buffer.from(good)))).toEqual([0])
    expect(pdfText(result.pdf).all).toContain(
      `Scan ${scanId(1)} Valid: a good candidate for a dispute. The card was physically present and scanned. Scanned at checkout of this order. ` +
        "Its image could not be included: the JPEG data could not be decoded, so it could not be reduced to fit."
    )
  })
})

describe("buildEvidencePack: when it cannot fit", () => {
  it("throws EvidencePackTooLargeError when even the smallest images do not fit", async () => {
    const textOnly = await buildEvidencePack(makeInput([]), { maxBytes: TWO_MB })
    // Room for the text, but not for a noisy image even at the smallest step.
    const maxBytes = textOnly.bytes + 4_000
    const attempt = buildEvidencePack(makeInput([validScan(1, noiseJpeg(800, 600, 5, 90))]), { maxBytes })
    await expect(attempt).rejects.toBeInstanceOf(EvidencePackTooLargeError)
    const error = await attempt.catch((caught: unknown) => caught)
    if (!(error instanceof EvidencePackTooLargeError)) throw new Error("expected EvidencePackTooLargeError")
    expect(error.maxBytes).toBe(maxBytes)
    expect(error.imageCount).toBe(1)
    expect(error.smallestBytes).toBeGreaterThan(maxBytes)
    const smallest = REDUCTION_LEVELS[REDUCTION_LEVELS.length - 1]
    expect(error.message).toContain(`reduced to at most ${smallest.maxEdge} px (JPEG quality ${smallest.quality})`)
    expect(error.message).toContain(`(${maxBytes.toLocaleString("en-US")} bytes)`)
  }, 60_000)

  it("throws EvidencePackTooLargeError when the text alone is over the limit", async () => {
    const textOnly = await buildEvidencePack(makeInput([]), { maxBytes: TWO_MB })
    const attempt = buildEvidencePack(makeInput([]), { maxBytes: textOnly.bytes - 1 })
    await expect(attempt).rejects.toThrow(/has no image to reduce and its text and tables alone are [\d,]+ bytes \(2 line item\(s\), 1 proof request\(s\)\)/)
    await expect(attempt).rejects.toMatchObject({ name: "EvidencePackTooLargeError", imageCount: 0, smallestBytes: textOnly.bytes })
  })

  it("refuses a limit that is not a positive integer, naming the option", async () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(buildEvidencePack(makeInput([]), { maxBytes })).rejects.toMatchObject({
        name: "EvidencePackInputError",
        field: "options.maxBytes",
      })
    }
    await expect(buildEvidencePack(makeInput([], { generatedAt: new Date("nonsense") }), { maxBytes: TWO_MB })).rejects.toBeInstanceOf(
      EvidencePackInputError
    )
  })
})
