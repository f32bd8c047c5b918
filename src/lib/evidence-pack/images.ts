/**
 * The images of valid scans: what they are, how big, and how to make them
 * smaller. Pure JavaScript (jpeg-js, pngjs) so the plugin installs anywhere.
 */
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

/** Bigger than this is not a scan of a card; refusing it keeps a hostile image from exhausting memory. */
const MAX_PIXELS = 40_000_000

export class UnreadableImageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = "UnreadableImageError"
  }
}

/**
 * Reads the kind and pixel size from the bytes themselves (the content type
 * a caller passes along is often generic). Throws `UnreadableImageError` for
 * anything that is not a well-formed JPEG or PNG header.
 */
export function probeImage(bytes: Uint8Array): ImageInfo {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { kind: "jpeg", ...jpegSize(bytes) }
  }
  if (bytes.length >= 24 && PNG_SIGNATURE.every((byte, index) => bytes[index] === byte)) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const width = view.getUint32(16)
    const height = view.getUint32(20)
    return checkedSize("png", width, height)
  }
  throw new UnreadableImageError("not a JPEG or PNG image")
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

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
      return checkedSize("jpeg", width, height)
    }
    if (length < 2) throw new UnreadableImageError("malformed JPEG (bad segment length)")
    offset += 2 + length
  }
  throw new UnreadableImageError("malformed JPEG (no frame header)")
}

function checkedSize<K extends ImageKind>(kind: K, width: number, height: number): { kind: K; width: number; height: number } {
  if (width < 1 || height < 1) throw new UnreadableImageError(`${kind.toUpperCase()} has no pixels`)
  if (width * height > MAX_PIXELS) {
    throw new UnreadableImageError(`${kind.toUpperCase()} of ${width}x${height} pixels is larger than the pack accepts`)
  }
  return { kind, width, height }
}

/** Decodes to RGBA with transparency flattened onto white (a PDF page is white, JPEG has no alpha). */
export function decodeImage(bytes: Uint8Array, kind: ImageKind): Pixels {
  try {
    if (kind === "jpeg") {
      const decoded = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_PIXELS / 1e6 })
      return { width: decoded.width, height: decoded.height, data: decoded.data }
    }
    const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    const data = new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength)
    flattenAlpha(data)
    return { width: png.width, height: png.height, data }
  } catch (error) {
    throw new UnreadableImageError(`the ${kind.toUpperCase()} data could not be decoded`, { cause: error })
  }
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
