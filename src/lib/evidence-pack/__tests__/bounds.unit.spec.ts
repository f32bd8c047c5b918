import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { deflateSync } from "node:zlib"
import { PNG } from "pngjs"
import { EvidencePackInputError, buildEvidencePack } from ".."
import { MAX_IMAGE_PIXELS } from "../images"
import type { EvidencePackImageReport } from "../types"
import { TWO_MB, embeddedImages, gradientJpeg, makeInput, noisePng, pdfImages, pdfText, scanId, validScan } from "./fixtures"

// What one image may cost while a pack is built: never more pixels than the bound
// (a header claiming more is refused from the header alone), JPEGs embedded without
// decoding, and one image decoded at a time however many the pack shows.

const MB = 1024 * 1024

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "evidence-pack-bounds-"))
})
afterAll(() => {
  rmSync(dir, { recursive: true, force: true })
})

/**
 * Builds a pack from these images in a fresh Node process (memory-probe.ts) and
 * answers how much its peak memory grew while doing it, with the pack.
 */
function buildInChild(images: Uint8Array[]): { peakGrowthBytes: number; images: EvidencePackImageReport[]; pdf: Uint8Array } {
  const files = images.map((bytes, index) => {
    const file = join(dir, `image-${Date.now()}-${index}`)
    writeFileSync(file, bytes)
    return file
  })
  const out = join(dir, `pack-${Date.now()}.pdf`)
  const stdout = execFileSync(
    process.execPath,
    ["--expose-gc", "-r", require.resolve("ts-node/register/transpile-only"), join(__dirname, "memory-probe.ts"), out, ...files],
    { encoding: "utf8", maxBuffer: 16 * MB }
  )
  return { ...JSON.parse(stdout), pdf: new Uint8Array(readFileSync(out)) }
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

function crc32(bytes: Buffer): number {
  let c = 0xffffffff
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(4)
  head.writeUInt32BE(data.length)
  const body = Buffer.concat([Buffer.from(type, "latin1"), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(body))
  return Buffer.concat([head, body, crc])
}

/** A well-formed PNG header (8-bit, `colorType` 0 grey or 6 RGBA) with the given deflated pixel data. */
function pngWith(width: number, height: number, colorType: 0 | 6, idat: Buffer): Uint8Array {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8
  ihdr[9] = colorType
  return new Uint8Array(
    Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", idat), chunk("IEND", Buffer.alloc(0))])
  )
}

/** A JPEG start, then a start-of-frame claiming `width`x`height`, then nothing a decoder could use. */
function jpegHeaderClaiming(width: number, height: number): Uint8Array {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1])
  return new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xd8]), sof, Buffer.from([0xff, 0xd9])]))
}

describe("buildEvidencePack: images over the pixel bound are never decoded", () => {
  it("refuses a PNG whose header claims 30000x30000 pixels, says why in the pack, and allocates nothing for it", () => {
    // A few bytes of real data behind a header claiming 900 megapixels (3.6 GB decoded).
    const bomb = pngWith(30_000, 30_000, 6, deflateSync(Buffer.alloc(1024)))
    expect(bomb.byteLength).toBeLessThan(200)
    const built = buildInChild([bomb])
    expect(built.images).toEqual([
      expect.objectContaining({ scanId: scanId(1), embeddedBytes: 0, originalSize: null, problem: expect.stringContaining("30000x30000 pixels") }),
    ])
    expect(built.images[0].problem).toMatch(/900 megapixels\), more than the 16 megapixels this pack reads .*not decoded/)
    expect(pdfText(built.pdf).all).toContain(`Scan ${scanId(1)} `)
    expect(pdfText(built.pdf).all).toContain("Its image could not be included: the PNG is 30000x30000 pixels")
    expect(built.peakGrowthBytes).toBeLessThan(32 * MB)
  })

  it("refuses a real 36-megapixel PNG (144 MB once decoded) from its header, without decoding it", () => {
    // Every pixel black: 36 MB of grey rows deflate to about 35 kB, a decoder would still need 144 MB of RGBA.
    const rows = Buffer.alloc(6000 * (6000 + 1))
    const large = pngWith(6000, 6000, 0, deflateSync(rows))
    expect(large.byteLength).toBeLessThan(100_000)
    expect(6000 * 6000).toBeGreaterThan(MAX_IMAGE_PIXELS)
    const built = buildInChild([large])
    expect(built.images[0]).toMatchObject({ embeddedBytes: 0, problem: expect.stringContaining("6000x6000 pixels (36 megapixels)") })
    expect(built.peakGrowthBytes).toBeLessThan(32 * MB)
  })

  it("refuses a JPEG whose frame header claims more than the bound", async () => {
    const result = await buildEvidencePack(makeInput([validScan(1, jpegHeaderClaiming(20_000, 20_000))]), { maxBytes: TWO_MB })
    expect(result.images[0]).toMatchObject({ embeddedBytes: 0, problem: expect.stringContaining("the JPEG is 20000x20000 pixels") })
    expect(await embeddedImages(result.pdf)).toHaveLength(0)
  })

  it("takes the bound as an option, and refuses one that is not a positive integer", async () => {
    const jpeg = gradientJpeg(400, 300)
    const small = await buildEvidencePack(makeInput([validScan(1, jpeg)]), { maxBytes: TWO_MB, maxImagePixels: 100_000 })
    expect(small.images[0].problem).toBe(
      "the JPEG is 400x300 pixels (0.12 megapixels), more than the 0.1 megapixels this pack reads (a card scan has a few), so it was not decoded"
    )
    const fits = await buildEvidencePack(makeInput([validScan(1, jpeg)]), { maxBytes: TWO_MB, maxImagePixels: 120_000 })
    expect(fits.images[0]).toMatchObject({ embeddedBytes: jpeg.byteLength, downscaled: false })
    expect(fits.images[0].problem).toBeUndefined()
    await expect(buildEvidencePack(makeInput([]), { maxBytes: TWO_MB, maxImagePixels: 0 })).rejects.toThrow(EvidencePackInputError)
    await expect(buildEvidencePack(makeInput([]), { maxBytes: TWO_MB, maxImagePixels: 1.5 })).rejects.toThrow("options.maxImagePixels")
  })

  it("refuses a PNG with a second header chunk (a decoder might size its buffers from that one)", async () => {
    const ok = pngWith(2, 2, 6, deflateSync(Buffer.alloc(2 * (2 * 4 + 1))))
    const ihdr = Buffer.alloc(13)
    ihdr.writeUInt32BE(30_000, 0)
    ihdr.writeUInt32BE(30_000, 4)
    ihdr[8] = 8
    ihdr[9] = 6
    // Signature and first IHDR (8 + 25 bytes), then a second IHDR claiming 900 MP, then the rest.
    const twice = Buffer.concat([Buffer.from(ok.subarray(0, 33)), chunk("IHDR", ihdr), Buffer.from(ok.subarray(33))])
    const result = await buildEvidencePack(makeInput([validScan(1, new Uint8Array(twice), "image/png")]), { maxBytes: TWO_MB })
    expect(result.images[0]).toMatchObject({ embeddedBytes: 0, problem: "malformed PNG (a second header chunk)" })
  })
})

describe("buildEvidencePack: what is embedded, and what that costs", () => {
  it("embeds a 6-megapixel JPEG byte for byte, without decoding it (memory stays flat)", () => {
    const jpeg = gradientJpeg(3000, 2000)
    const built = buildInChild([jpeg])
    expect(built.images).toEqual([
      {
        scanId: scanId(1),
        originalBytes: jpeg.byteLength,
        embeddedBytes: jpeg.byteLength,
        downscaled: false,
        originalSize: { width: 3000, height: 2000 },
        embeddedSize: { width: 3000, height: 2000 },
      },
    ])
    return embeddedImages(built.pdf).then((images) => {
      expect(images).toHaveLength(1)
      expect(images[0].filter).toBe("DCTDecode")
      expect(Buffer.from(images[0].bytes).equals(Buffer.from(jpeg))).toBe(true)
      // Decoding it would take 24 MB of RGBA alone (jpeg-js: about 100 MB in all).
      expect(built.peakGrowthBytes).toBeLessThan(16 * MB)
    })
  }, 60_000)

  it("holds one PNG decoded at a time: thirty-two 1-megapixel PNGs (128 MB of RGBA together) cost a fraction of that", async () => {
    // One smooth picture, encoded once; a text chunk makes each copy its own file, decoded on its own.
    const picture = new PNG({ width: 1000, height: 1000 })
    for (let i = 0; i < 1000 * 1000; i++) {
      const x = i % 1000
      const y = Math.floor(i / 1000)
      picture.data.set([x >> 2, y >> 2, (x + y) >> 3, 255], i * 4)
    }
    const encoded = PNG.sync.write(picture)
    const pngs = Array.from({ length: 32 }, (_, n) =>
      new Uint8Array(Buffer.concat([encoded.subarray(0, 33), chunk("tEXt", Buffer.from(`Comment\0copy ${n}`, "latin1")), encoded.subarray(33)]))
    )
    const built = buildInChild(pngs)
    expect(built.images.map((image) => [image.problem, image.downscaled, image.embeddedSize])).toEqual(
      pngs.map(() => [undefined, false, { width: 1000, height: 1000 }])
    )
    expect((await embeddedImages(built.pdf)).map((image) => image.filter)).toEqual(pngs.map(() => "FlateDecode"))
    // Measured: about 35 MB here (garbage the collector has not taken yet included); the
    // previous embedding (pdf-lib's, every PNG decoded until the PDF was saved) grew by 232 MB.
    expect(built.peakGrowthBytes).toBeLessThan(80 * MB)
  }, 120_000)

  it("stores a PNG losslessly, its transparency flattened onto white, as a PDF reader decodes it", async () => {
    const png = new PNG({ width: 3, height: 2 })
    const pixels = [
      [255, 0, 0, 255],
      [0, 255, 0, 255],
      [0, 0, 255, 255],
      [10, 20, 30, 0],
      [200, 100, 50, 255],
      [0, 0, 0, 128],
    ]
    pixels.forEach((pixel, index) => png.data.set(pixel, index * 4))
    const bytes = new Uint8Array(PNG.sync.write(png))
    const result = await buildEvidencePack(makeInput([validScan(1, bytes, "image/png")]), { maxBytes: TWO_MB })
    expect(await embeddedImages(result.pdf)).toEqual([expect.objectContaining({ width: 3, height: 2, filter: "FlateDecode" })])
    const [decoded] = pdfImages(result.pdf)
    expect({ ...decoded, data: [...decoded.data] }).toMatchObject({
      width: 3,
      height: 2,
      channels: 3,
      data: [255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 255, 255, 200, 100, 50, 127, 127, 127],
    })
    expect(pdfText(result.pdf).all).toContain("The image as ServiceScan kept it, unchanged: 3x2 px")
  })

  it("stores a detailed PNG's rows filtered, so the stream is about the PNG's size, and every pixel survives", async () => {
    const png = noisePng(300, 200, 5)
    const result = await buildEvidencePack(makeInput([validScan(1, png, "image/png")]), { maxBytes: TWO_MB })
    expect(result.images[0]).toMatchObject({ downscaled: false, originalBytes: png.byteLength })
    // Noise barely compresses: the stored stream is the raw pixels' size, give or take, as is the PNG.
    expect(result.images[0].embeddedBytes).toBeLessThan(png.byteLength * 1.1)
    const [decoded] = pdfImages(result.pdf)
    const source = PNG.sync.read(Buffer.from(png))
    const rgb = Buffer.alloc(300 * 200 * 3)
    for (let i = 0; i < 300 * 200; i++) source.data.copy(rgb, i * 3, i * 4, i * 4 + 3)
    expect(decoded).toMatchObject({ width: 300, height: 200, channels: 3 })
    expect(decoded.data.equals(rgb)).toBe(true)
  })
})
