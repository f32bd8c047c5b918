/**
 * The images of valid scans: what they are, how big, and how to make them
 * smaller. Pure JavaScript (jpeg-js, pngjs) so the plugin installs anywhere.
 */
import { deflateSync } from "node:zlib"
import jpeg from "jpeg-js"
import { PNG } from "pngjs"

export type ImageKind = "jpeg" | "png"

export type ImageInfo = { kind: ImageKind; width: number; height: number }

/** Decoded pixels, 4 bytes (RGBA) per pixel, alpha already flattened onto white. */
export type Pixels = { width: number; height: number; data: Uint8Array }

/**
 * One step of the downscaling ladder: the longest edge in pixels and the JPEG
 * quality. The ladder is walked from the top until the pack fits; its last step
 * is the smallest image the pack accepts (a card stays legible at 480 px).
 */
export type ReductionLevel = { maxEdge: number; quality: number }

export const REDUCTION_LEVELS: readonly ReductionLevel[] = [
  { maxEdge: 2048, quality: 85 },
  { maxEdge: 1600, quality: 80 },
  { maxEdge: 1280, quality: 75 },
  { maxEdge: 1024, quality: 70 },
  { maxEdge: 800, quality: 65 },
  { maxEdge: 640, quality: 60 },
  { maxEdge: 480, quality: 50 },
]

/**
 * The most pixels an image may have for the pack to read it: the bound on what
 * decoding one image costs (4 bytes a pixel once decoded: 64 MB here). A card
 * scan from a phone is a few megapixels at most (a 1080p camera frame is 2.1 MP,
 * even a whole 12 MP photo is 12.2 MP), so this is well above any real scan;
 * a header that claims more is refused from the header alone, before a byte of
 * pixels is decoded or allocated.
 */
export const MAX_IMAGE_PIXELS = 16_000_000

export class UnreadableImageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = "UnreadableImageError"
  }
}

/** An image whose header claims more pixels than the pack's bound: never decoded. */
export class ImageTooLargeError extends UnreadableImageError {
  constructor(kind: ImageKind, width: number, height: number, maxPixels: number) {
    super(
      `the ${kind.toUpperCase()} is ${width}x${height} pixels (${megapixels(width * height)} megapixels), more than the ` +
        `${megapixels(maxPixels)} megapixels this pack reads (a card scan has a few), so it was not decoded`
    )
    this.name = "ImageTooLargeError"
  }
}

function megapixels(pixels: number): string {
  const value = pixels / 1e6
  return value >= 10 ? String(Math.round(value)) : String(Number(value.toFixed(2)))
}

/**
 * Reads the kind and pixel size from the bytes themselves (the content type
 * a caller passes along is often generic). Throws `ImageTooLargeError` above
 * `maxPixels`, and `UnreadableImageError` for anything that is not a
 * well-formed JPEG or PNG header.
 */
export function probeImage(bytes: Uint8Array, maxPixels: number = MAX_IMAGE_PIXELS): ImageInfo {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return checkedSize("jpeg", jpegSize(bytes), maxPixels)
  }
  if (bytes.length >= 8 && PNG_SIGNATURE.every((byte, index) => bytes[index] === byte)) {
    return checkedSize("png", pngSize(bytes), maxPixels)
  }
  throw new UnreadableImageError("not a JPEG or PNG image")
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

/**
 * The size in the IHDR chunk, which must come first and only once: a decoder
 * sizes its buffers from the header it reads, so a second IHDR could claim
 * another size than the one checked here.
 */
function pngSize(bytes: Uint8Array): { width: number; height: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const type = (offset: number) => String.fromCharCode(bytes[offset + 4], bytes[offset + 5], bytes[offset + 6], bytes[offset + 7])
  if (bytes.length < 8 + 8 + 13 || type(8) !== "IHDR" || view.getUint32(8) !== 13) {
    throw new UnreadableImageError("malformed PNG (no header chunk)")
  }
  // Walk the chunk headers only (no data is read), up to the end or the image end.
  for (let offset = 8 + 8 + 13 + 4; offset + 8 <= bytes.length; ) {
    const name = type(offset)
    if (name === "IHDR") throw new UnreadableImageError("malformed PNG (a second header chunk)")
    if (name === "IEND") break
    offset += 8 + view.getUint32(offset) + 4
  }
  return { width: view.getUint32(16), height: view.getUint32(20) }
}

function jpegSize(bytes: Uint8Array): { width: number; height: number } {
  // Walk the marker segments up to the first start-of-frame, which holds the size.
  let offset = 2
  while (offset + 4 <= bytes.length) {
    if (bytes[offset] !== 0xff) throw new UnreadableImageError("malformed JPEG (bad marker)")
    const marker = bytes[offset + 1]
    if (marker === 0xff) {
      offset += 1 // fill byte
      continue
    }
    const length = (bytes[offset + 2] << 8) | bytes[offset + 3]
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isStartOfFrame) {
      if (offset + 9 > bytes.length) break
      const height = (bytes[offset + 5] << 8) | bytes[offset + 6]
      const width = (bytes[offset + 7] << 8) | bytes[offset + 8]
      return { width, height }
    }
    if (length < 2) throw new UnreadableImageError("malformed JPEG (bad segment length)")
    offset += 2 + length
  }
  throw new UnreadableImageError("malformed JPEG (no frame header)")
}

function checkedSize(kind: ImageKind, { width, height }: { width: number; height: number }, maxPixels: number): ImageInfo {
  if (width < 1 || height < 1) throw new UnreadableImageError(`${kind.toUpperCase()} has no pixels`)
  if (width * height > maxPixels) throw new ImageTooLargeError(kind, width, height, maxPixels)
  return { kind, width, height }
}

/**
 * Decodes to RGBA with transparency flattened onto white (a PDF page is white,
 * JPEG has no alpha). `info` is what `probeImage` read, under the same bound:
 * the decoders size their buffers from the header, and refuse anything larger.
 */
export function decodeImage(bytes: Uint8Array, info: ImageInfo, maxPixels: number = MAX_IMAGE_PIXELS): Pixels {
  const { kind } = info
  if (info.width * info.height > maxPixels) throw new ImageTooLargeError(kind, info.width, info.height, maxPixels)
  let pixels: Pixels
  try {
    if (kind === "jpeg") {
      const decoded = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: maxPixels / 1e6 })
      pixels = { width: decoded.width, height: decoded.height, data: decoded.data }
    } else {
      const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
      const data = new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength)
      flattenAlpha(data)
      pixels = { width: png.width, height: png.height, data }
    }
  } catch (error) {
    throw new UnreadableImageError(`the ${kind.toUpperCase()} data could not be decoded`, { cause: error })
  }
  if (pixels.width !== info.width || pixels.height !== info.height) {
    throw new UnreadableImageError(`the ${kind.toUpperCase()} data does not match its header`)
  }
  return pixels
}

/**
 * A PNG's pixels as a PDF stores them: RGB (transparency flattened onto white),
 * each row with PNG's Paeth filter (what photographs compress best with),
 * deflated; the stream's `DecodeParms` is `FLATE_RGB_DECODE_PARMS`. Decoded
 * once, and only the compressed result is kept, so a pack holds one decoded
 * image at a time however many PNGs it shows (pdf-lib's own `embedPng` keeps
 * every PNG decoded, several copies of each, until the PDF is saved, and
 * stores rows unfiltered: often many times the PNG's size).
 */
export function pngToFlateRgb(bytes: Uint8Array, info: ImageInfo, maxPixels: number = MAX_IMAGE_PIXELS): Uint8Array {
  const { width, height, data } = decodeImage(bytes, info, maxPixels)
  const stride = width * 3
  let above = new Uint8Array(stride)
  let row = new Uint8Array(stride)
  for (let y = 0; y < height; y++) {
    for (let x = 0, from = y * width * 4; x < stride; x += 3, from += 4) {
      row[x] = data[from]
      row[x + 1] = data[from + 1]
      row[x + 2] = data[from + 2]
    }
    // Written over the RGBA in place: row y's output ends before row y + 1's input
    // starts, and row y itself was copied out above.
    let to = y * (stride + 1)
    data[to++] = PNG_FILTER_PAETH
    for (let i = 0; i < stride; i++) {
      const left = i >= 3 ? row[i - 3] : 0
      const upLeft = i >= 3 ? above[i - 3] : 0
      data[to++] = (row[i] - paeth(left, above[i], upLeft)) & 0xff
    }
    ;[above, row] = [row, above]
  }
  const deflated = deflateSync(data.subarray(0, height * (stride + 1)))
  return new Uint8Array(deflated.buffer, deflated.byteOffset, deflated.byteLength)
}

/** How a PDF reader undoes `pngToFlateRgb`'s row filters: the PNG predictors, per row. */
export const FLATE_RGB_DECODE_PARMS = { Predictor: 15, Colors: 3, BitsPerComponent: 8 } as const

const PNG_FILTER_PAETH = 4

function paeth(left: number, up: number, upLeft: number): number {
  const estimate = left + up - upLeft
  const toLeft = Math.abs(estimate - left)
  const toUp = Math.abs(estimate - up)
  const toUpLeft = Math.abs(estimate - upLeft)
  if (toLeft <= toUp && toLeft <= toUpLeft) return left
  return toUp <= toUpLeft ? up : upLeft
}

function flattenAlpha(rgba: Uint8Array): void {
  for (let i = 0; i < rgba.length; i += 4) {
    const alpha = rgba[i + 3]
    if (alpha === 255) continue
    for (let c = 0; c < 3; c++) {
      rgba[i + c] = Math.round((rgba[i + c] * alpha + 255 * (255 - alpha)) / 255)
    }
    rgba[i + 3] = 255
  }
}

/** The size an image of `width`x`height` takes at `maxEdge`; never enlarged. */
export function targetSize(width: number, height: number, maxEdge: number): { width: number; height: number } {
  const scale = Math.min(1, maxEdge / Math.max(width, height))
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  }
}

/**
 * Area-averaging (box) resampling: each output pixel is the mean of the source
 * pixels it covers, weighted by coverage. For reductions it keeps fine print
 * legible where nearest-neighbour would alias; it is plain arithmetic, so the
 * same input always gives the same pixels.
 */
export function resample(source: Pixels, width: number, height: number): Pixels {
  if (width === source.width && height === source.height) return source
  const out = new Uint8Array(width * height * 4)
  const xSpans = spans(source.width, width)
  const ySpans = spans(source.height, height)
  const row = new Float64Array(width * 3)
  for (let oy = 0; oy < height; oy++) {
    row.fill(0)
    const ySpan = ySpans[oy]
    for (let k = 0; k < ySpan.indices.length; k++) {
      const sy = ySpan.indices[k]
      const wy = ySpan.weights[k]
      const base = sy * source.width * 4
      for (let ox = 0; ox < width; ox++) {
        const xSpan = xSpans[ox]
        let r = 0
        let g = 0
        let b = 0
        for (let j = 0; j < xSpan.indices.length; j++) {
          const p = base + xSpan.indices[j] * 4
          const wx = xSpan.weights[j]
          r += source.data[p] * wx
          g += source.data[p + 1] * wx
          b += source.data[p + 2] * wx
        }
        row[ox * 3] += r * wy
        row[ox * 3 + 1] += g * wy
        row[ox * 3 + 2] += b * wy
      }
    }
    for (let ox = 0; ox < width; ox++) {
      const o = (oy * width + ox) * 4
      out[o] = clampByte(row[ox * 3])
      out[o + 1] = clampByte(row[ox * 3 + 1])
      out[o + 2] = clampByte(row[ox * 3 + 2])
      out[o + 3] = 255
    }
  }
  return { width, height, data: out }
}

type Span = { indices: number[]; weights: number[] }

/** For each output index, the source indices it covers and their normalized weights. */
function spans(sourceLength: number, targetLength: number): Span[] {
  const ratio = sourceLength / targetLength
  const result: Span[] = []
  for (let i = 0; i < targetLength; i++) {
    const start = i * ratio
    const end = Math.min(sourceLength, (i + 1) * ratio)
    const indices: number[] = []
    const weights: number[] = []
    for (let s = Math.floor(start); s < end; s++) {
      const weight = Math.min(end, s + 1) - Math.max(start, s)
      if (weight > 0) {
        indices.push(s)
        weights.push(weight / (end - start))
      }
    }
    result.push({ indices, weights })
  }
  return result
}

function clampByte(value: number): number {
  return value <= 0 ? 0 : value >= 255 ? 255 : Math.round(value)
}

/** Baseline JPEG at `quality` (1-100). */
export function encodeJpeg(pixels: Pixels, quality: number): Uint8Array {
  const encoded = jpeg.encode({ width: pixels.width, height: pixels.height, data: pixels.data }, quality)
  return new Uint8Array(encoded.data.buffer, encoded.data.byteOffset, encoded.data.byteLength)
}
