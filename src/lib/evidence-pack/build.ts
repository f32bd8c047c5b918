import { PDFDocument } from "pdf-lib"
import { type ImageProblem, type ReadyImage, renderPack, uniqueScans } from "./document"
import { EvidencePackInputError, EvidencePackTooLargeError } from "./errors"
import {
  type ImageInfo,
  MAX_IMAGE_PIXELS,
  type Pixels,
  REDUCTION_LEVELS,
  UnreadableImageError,
  decodeImage,
  encodeJpeg,
  pngToFlateRgb,
  probeImage,
  resample,
  targetSize,
} from "./images"
import { formatBytes, formatInteger } from "./text"
import type { EvidencePackImageReport, EvidencePackInput, EvidencePackOptions, EvidencePackResult } from "./types"

/** Room kept for what a reduction adds besides the image: its note under the image. */
const NOTE_ALLOWANCE = 400
/** Room kept for the parts of the file that vary with what is embedded (xref, object numbers). */
const SAFETY = 2_048
/**
 * A JPEG's size relative to quality 85, for the same pixels (measured with
 * jpeg-js on noise and on a photo-like image; the two agree within about 10%).
 */
const QUALITY_FACTOR: Record<number, number> = { 90: 1.2, 85: 1, 80: 0.86, 75: 0.76, 70: 0.69, 65: 0.62, 60: 0.56, 50: 0.48 }
/** Images as served are taken to be about quality 90 until a first encoding says better. */
const ASSUMED_ORIGINAL_FACTOR = 1.2
/** Each attempt after the first lowers the images' budget by what the previous one overshot. */
const MAX_ATTEMPTS = 8

/** An image the pack can embed; a PNG comes with its pixels already deflated (`pngToFlateRgb`), a JPEG as it is. */
type Source = { scanId: string; bytes: Uint8Array; info: ImageInfo; flateRgb: Uint8Array | null }
/** Every valid scan that came with an image, in pack order, readable or not. */
type Given = { scanId: string; originalBytes: number }

/**
 * Builds the evidence pack of one chargeback: a PDF a card network analyst can
 * read on its own (the case, the order, the payment, the card verification and
 * the images of the valid scans), no larger than `options.maxBytes`.
 *
 * Images are embedded as they are when everything fits (a JPEG's bytes are
 * kept unchanged). Otherwise the largest images are reduced step by step
 * (`REDUCTION_LEVELS`: resampled and re-encoded as JPEG) until the pack fits,
 * and the pack says so under each image it reduced.
 *
 * Deterministic: the same input gives the same bytes (the dates in the PDF are
 * `input.generatedAt`), so a document derived from a chargeback can be
 * regenerated and re-uploaded without changing.
 *
 * Total over text: any string in any field is drawn (transliterated when the
 * PDF's standard fonts cannot encode it) and never makes it throw.
 *
 * Bounded in memory: an image whose header claims more than
 * `options.maxImagePixels` is never decoded (the pack says why in its place),
 * a JPEG is embedded without decoding, and at most one image is held decoded
 * at a time.
 *
 * @throws EvidencePackInputError when `options.maxBytes`, `options.maxImagePixels` or `input.generatedAt` is unusable.
 * @throws EvidencePackTooLargeError when the pack cannot fit even with every image at the smallest step.
 */
export async function buildEvidencePack(input: EvidencePackInput, options: EvidencePackOptions): Promise<EvidencePackResult> {
  const { maxBytes } = options
  if (!Number.isSafeInteger(maxBytes) || maxBytes <= 0) {
    throw new EvidencePackInputError("options.maxBytes", `must be a positive integer, got ${String(maxBytes)}`)
  }
  const maxPixels = options.maxImagePixels ?? MAX_IMAGE_PIXELS
  if (!Number.isSafeInteger(maxPixels) || maxPixels <= 0) {
    throw new EvidencePackInputError("options.maxImagePixels", `must be a positive integer, got ${String(maxPixels)}`)
  }
  if (!(input.generatedAt instanceof Date) || Number.isNaN(input.generatedAt.getTime())) {
    throw new EvidencePackInputError("input.generatedAt", "must be a valid Date")
  }
  const pageSize = options.pageSize ?? "letter"

  const { given, sources, problems } = await readImages(input, maxPixels)
  const render = async (images: Map<string, ReadyImage | ImageProblem>) => {
    const rendered = await renderPack(input, { maxBytes, pageSize, images })
    return { ...rendered, images }
  }
  const asGiven = (source: Source): ReadyImage => {
    const common = {
      status: "ready" as const,
      bytes: source.bytes,
      width: source.info.width,
      height: source.info.height,
      original: { bytes: source.bytes.byteLength, ...source.info },
      reduction: null,
    }
    return source.flateRgb ? { ...common, kind: "png", flateRgb: source.flateRgb } : { ...common, kind: "jpeg" }
  }

  const asIs = new Map<string, ReadyImage | ImageProblem>(problems)
  for (const source of sources) asIs.set(source.scanId, asGiven(source))
  const first = await render(asIs)
  if (first.pdf.byteLength <= maxBytes) return result(first, given)

  const reducer = new Reducer(maxPixels)
  const imageBytes = sources.reduce((sum, source) => sum + storedBytes(source), 0)
  const textBytes = Math.max(0, first.pdf.byteLength - imageBytes)
  let smallest = first.pdf.byteLength
  let budget = maxBytes - textBytes - SAFETY - NOTE_ALLOWANCE * sources.length

  for (let attempt = 0; attempt < MAX_ATTEMPTS && budget > 0 && sources.length > 0; attempt++) {
    const allowances = allocate(
      sources.map((source) => storedBytes(source)),
      budget
    )
    let allAtMinimum = true
    const images = new Map<string, ReadyImage | ImageProblem>(problems)
    for (const [index, source] of sources.entries()) {
      const allowance = allowances[index]
      if (storedBytes(source) <= allowance) {
        images.set(source.scanId, asGiven(source))
        allAtMinimum = false
        continue
      }
      const reduced = await reducer.fit(source, allowance)
      if (!reduced.atMinimum) allAtMinimum = false
      images.set(source.scanId, reduced.image ?? reduced.problem ?? asGiven(source))
    }
    const rendered = await render(images)
    smallest = Math.min(smallest, rendered.pdf.byteLength)
    if (rendered.pdf.byteLength <= maxBytes) return result(rendered, given)
    if (allAtMinimum) break
    budget -= rendered.pdf.byteLength - maxBytes + SAFETY
  }

  // Last resort before giving up: every image at the smallest step.
  if (sources.length > 0) {
    const images = new Map<string, ReadyImage | ImageProblem>(problems)
    for (const source of sources) {
      const reduced = await reducer.fit(source, 0)
      images.set(source.scanId, reduced.image ?? reduced.problem ?? asGiven(source))
    }
    const rendered = await render(images)
    smallest = Math.min(smallest, rendered.pdf.byteLength)
    if (rendered.pdf.byteLength <= maxBytes) return result(rendered, given)
  }

  const minimum = REDUCTION_LEVELS[REDUCTION_LEVELS.length - 1]
  throw new EvidencePackTooLargeError({
    maxBytes,
    smallestBytes: smallest,
    textBytes,
    imageCount: sources.length,
    message:
      `The evidence pack cannot fit the ${formatBytes(maxBytes)} per-document limit (${formatInteger(maxBytes)} bytes): ` +
      (sources.length > 0
        ? `with its ${sources.length} image(s) reduced to at most ${minimum.maxEdge} px (JPEG quality ${minimum.quality}) ` +
          `it is still ${formatInteger(smallest)} bytes, of which about ${formatInteger(textBytes)} are text and tables ` +
          `(${input.order.items.length} line item(s), ${input.proofRequests.length} proof request(s)).`
        : `it has no image to reduce and its text and tables alone are ${formatInteger(smallest)} bytes ` +
          `(${input.order.items.length} line item(s), ${input.proofRequests.length} proof request(s)).`),
  })
}

/** The image of each valid scan, once per scan id, in the order the pack shows them. */
async function readImages(
  input: EvidencePackInput,
  maxPixels: number
): Promise<{ given: Given[]; sources: Source[]; problems: [string, ImageProblem][] }> {
  const given: Given[] = []
  const sources: Source[] = []
  const problems: [string, ImageProblem][] = []
  // pdf-lib parses a JPEG's header when it is embedded; trying it once here turns a
  // bad image into a sentence in the pack instead of a failed pack. (It keeps only
  // a reference to the bytes: nothing is decoded.)
  const scratch = await PDFDocument.create({ updateMetadata: false })
  const validScans = uniqueScans(input).filter((scan) => scan.verdict === "valid")
  for (const scan of validScans) {
    // A scan sent again in a later request may carry the image the first one lacked.
    const image =
      scan.image ??
      input.proofRequests
        .flatMap((request) => request.scans)
        .find((candidate) => candidate.scanId === scan.scanId && candidate.verdict === "valid" && candidate.image)?.image
    if (!image) continue
    given.push({ scanId: scan.scanId, originalBytes: image.bytes.byteLength })
    try {
      // From the header alone: an image over the bound is refused before anything is decoded.
      const info = probeImage(image.bytes, maxPixels)
      if (info.kind === "jpeg") {
        await scratch.embedJpg(image.bytes)
        sources.push({ scanId: scan.scanId, bytes: image.bytes, info, flateRgb: null })
      } else {
        // Decoding takes a while for a large PNG and cannot be interrupted: let the process breathe first.
        await yieldToEventLoop()
        sources.push({ scanId: scan.scanId, bytes: image.bytes, info, flateRgb: pngToFlateRgb(image.bytes, info, maxPixels) })
      }
    } catch (error) {
      const reason = error instanceof UnreadableImageError ? error.message : `the image data is damaged (${errorMessage(error)})`
      problems.push([scan.scanId, { status: "problem", problem: reason }])
    }
  }
  return { given, sources, problems }
}

/** What an image as given takes inside the PDF: a JPEG's bytes, or a PNG's deflated pixels. */
function storedBytes(source: Source): number {
  return source.flateRgb?.byteLength ?? source.bytes.byteLength
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/**
 * Shares `budget` bytes between images of the given sizes, fairly: an image
 * smaller than its equal share keeps all it needs, and what it leaves is split
 * between the larger ones. Returns each image's allowance, in input order.
 */
export function allocate(sizes: number[], budget: number): number[] {
  const order = sizes.map((size, index) => ({ size, index })).sort((a, b) => a.size - b.size || a.index - b.index)
  const allowances = new Array<number>(sizes.length).fill(0)
  let remaining = budget
  order.forEach(({ size, index }, position) => {
    const share = remaining / (order.length - position)
    const allowance = Math.floor(Math.min(size, share))
    allowances[index] = size <= share ? size : allowance
    remaining -= allowances[index]
  })
  return allowances
}

/**
 * Produces reduced versions of images, one step of `REDUCTION_LEVELS` at a time,
 * keeping each result so a later, tighter attempt does not encode twice.
 */
class Reducer {
  private readonly encoded = new Map<string, ReadyImage>()
  // Decoded pixels are large (4 bytes a pixel): keep only the image in hand.
  private decoded: { scanId: string; pixels: Pixels } | null = null

  constructor(private readonly maxPixels: number) {}

  /**
   * The largest step whose result is at most `allowance` bytes, or the smallest
   * step when none is. `image` is null when even the smallest step is not
   * smaller than the image as given (keep it then).
   *
   * Encoding a large image takes about a second, so the steps are not tried one
   * by one: an estimate (bytes scale with pixels and with the quality's
   * `QUALITY_FACTOR`) picks the first to try, each result re-anchors the
   * estimate, and the step above a fitting one is tried only when it is likely to fit.
   */
  async fit(source: Source, allowance: number): Promise<{ image: ReadyImage | null; atMinimum: boolean; problem?: ImageProblem }> {
    try {
      return await this.search(source, allowance)
    } catch (error) {
      if (!(error instanceof UnreadableImageError)) throw error
      // Its header was sound (it embeds as it is) but its data is not: it cannot be
      // made smaller, so it gives way to the rest of the pack, and the pack says why.
      return { image: null, atMinimum: true, problem: { status: "problem", problem: `${error.message}, so it could not be reduced to fit` } }
    }
  }

  private async search(source: Source, allowance: number): Promise<{ image: ReadyImage | null; atMinimum: boolean }> {
    const last = REDUCTION_LEVELS.length - 1
    const weight = (level: number) => {
      const size = targetSize(source.info.width, source.info.height, REDUCTION_LEVELS[level].maxEdge)
      return size.width * size.height * QUALITY_FACTOR[REDUCTION_LEVELS[level].quality]
    }
    const originalWeight = source.info.width * source.info.height * ASSUMED_ORIGINAL_FACTOR
    const estimate = (level: number, from: { level: number; bytes: number } | null) =>
      from ? (from.bytes * weight(level)) / weight(from.level) : (source.bytes.byteLength * weight(level)) / originalWeight
    const firstLikelyToFit = (start: number, from: { level: number; bytes: number } | null) => {
      for (let level = start; level < last; level++) if (estimate(level, from) <= allowance) return level
      return last
    }

    let level = firstLikelyToFit(0, null)
    let image = await this.at(source, level)
    if (image.bytes.byteLength <= allowance) {
      while (level > 0 && estimate(level - 1, { level, bytes: image.bytes.byteLength }) <= allowance * 1.1) {
        const above = await this.at(source, level - 1)
        if (above.bytes.byteLength > allowance) break
        level -= 1
        image = above
      }
    } else {
      while (level < last && image.bytes.byteLength > allowance) {
        level = firstLikelyToFit(level + 1, { level, bytes: image.bytes.byteLength })
        image = await this.at(source, level)
      }
    }
    const useful = image.bytes.byteLength < storedBytes(source)
    return { image: useful ? image : null, atMinimum: level === last || !useful }
  }

  private async at(source: Source, level: number): Promise<ReadyImage> {
    const key = `${source.scanId}\u0000${level}`
    const known = this.encoded.get(key)
    if (known) return known
    const step = REDUCTION_LEVELS[level]
    // Decoding and encoding take a second or so each for a large image and cannot be
    // interrupted: let the rest of the process (HTTP, other jobs) run in between.
    await yieldToEventLoop()
    const pixels = this.pixels(source)
    await yieldToEventLoop()
    const size = targetSize(pixels.width, pixels.height, step.maxEdge)
    const bytes = encodeJpeg(resample(pixels, size.width, size.height), step.quality)
    const image: ReadyImage = {
      status: "ready",
      kind: "jpeg",
      bytes,
      width: size.width,
      height: size.height,
      original: { bytes: source.bytes.byteLength, ...source.info },
      reduction: step,
    }
    this.encoded.set(key, image)
    return image
  }

  private pixels(source: Source): Pixels {
    if (this.decoded?.scanId !== source.scanId) {
      // Let the previous image's pixels go before decoding the next one.
      this.decoded = null
      this.decoded = { scanId: source.scanId, pixels: decodeImage(source.bytes, source.info, this.maxPixels) }
    }
    return this.decoded.pixels
  }
}

function result(
  rendered: { pdf: Uint8Array; pages: number; images: Map<string, ReadyImage | ImageProblem> },
  given: Given[]
): EvidencePackResult {
  const reports = given.map(({ scanId, originalBytes }): EvidencePackImageReport => {
    const entry = rendered.images.get(scanId)
    if (!entry || entry.status === "problem") {
      return {
        scanId,
        originalBytes,
        embeddedBytes: 0,
        downscaled: false,
        originalSize: null,
        embeddedSize: null,
        problem: entry?.problem ?? "not embedded",
      }
    }
    return {
      scanId,
      originalBytes,
      embeddedBytes: entry.kind === "png" ? entry.flateRgb.byteLength : entry.bytes.byteLength,
      downscaled: entry.reduction !== null,
      originalSize: { width: entry.original.width, height: entry.original.height },
      embeddedSize: { width: entry.width, height: entry.height },
    }
  })
  return {
    pdf: rendered.pdf,
    bytes: rendered.pdf.byteLength,
    pages: rendered.pages,
    downscaled: reports.some((report) => report.downscaled),
    images: reports,
  }
}
