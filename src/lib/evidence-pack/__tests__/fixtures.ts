import { execFileSync } from "node:child_process"
import { join } from "node:path"
import jpeg from "jpeg-js"
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFRef } from "pdf-lib"
import { PNG } from "pngjs"
import type { EvidencePackInput, EvidencePackScan } from "../types"

export const TWO_MB = 2 * 1024 * 1024

/** Deterministic pseudo-random RGBA: noise is what JPEG compresses worst, like a large, detailed photo. */
export function noisePixels(width: number, height: number, seed: number): Uint8Array {
  const data = new Uint8Array(width * height * 4)
  let state = seed >>> 0
  for (let i = 0; i < data.length; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    data[i] = i % 4 === 3 ? 255 : state >>> 24
  }
  return data
}

export function noiseJpeg(width: number, height: number, seed = 1, quality = 90): Uint8Array {
  return toUint8(jpeg.encode({ width, height, data: noisePixels(width, height, seed) }, quality).data)
}

/** A smooth image that compresses well, like a small, clean scan. */
export function gradientJpeg(width: number, height: number, quality = 85): Uint8Array {
  const data = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4
      data[i] = Math.round((255 * x) / width)
      data[i + 1] = Math.round((255 * y) / height)
      data[i + 2] = 160
      data[i + 3] = 255
    }
  }
  return toUint8(jpeg.encode({ width, height, data }, quality).data)
}

export function noisePng(width: number, height: number, seed = 1): Uint8Array {
  const png = new PNG({ width, height })
  png.data = Buffer.from(noisePixels(width, height, seed))
  return toUint8(PNG.sync.write(png))
}

/**
 * The same pixels under different bytes: a COM segment right after the start
 * marker. Encoding noise is slow; this gives every scan its own JPEG for free.
 */
export function withComment(jpegBytes: Uint8Array, comment: string): Uint8Array {
  const text = Buffer.from(comment, "latin1")
  const segment = Buffer.concat([Buffer.from([0xff, 0xfe, (text.length + 2) >> 8, (text.length + 2) & 0xff]), text])
  return toUint8(Buffer.concat([Buffer.from(jpegBytes.subarray(0, 2)), segment, Buffer.from(jpegBytes.subarray(2))]))
}

function toUint8(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
}

export function scanId(n: number): string {
  return `3f1e2d4c-0000-4000-8000-${n.toString().padStart(12, "0")}`
}

export function validScan(n: number, bytes: Uint8Array | null, contentType = "image/jpeg"): EvidencePackScan {
  return {
    scanId: scanId(n),
    verdict: "valid",
    reportedGroundTruth: "valid",
    fromOrder: "this order",
    image: bytes ? { bytes, contentType } : null,
  }
}

export function invalidScan(n: number): EvidencePackScan {
  return { scanId: scanId(n), verdict: "invalid", reportedGroundTruth: "fraud", fromOrder: "this order", image: null }
}

export function makeInput(scans: EvidencePackScan[], overrides: Partial<EvidencePackInput> = {}): EvidencePackInput {
  const address = {
    name: "Dana Whitfield",
    company: null,
    address_1: "12 Orchard Lane",
    address_2: "Apt 4",
    city: "Springfield",
    province: "IL",
    postal_code: "62701",
    country_code: "us",
    phone: "+1 217 555 0142",
  }
  return {
    generatedAt: new Date("2025-03-01T12:00:00.000Z"),
    merchant: { name: "Orchard Cycles" },
    case: {
      gateway: "worldpay",
      caseId: "216000001",
      cycle: "First Chargeback",
      reasonCode: "4837",
      reasonDescription: "No Cardholder Authorization",
      replyBy: "2025-03-15",
      amount: "124.00 USD",
      acquirerReferenceNumber: "74523456789012345678901",
    },
    chargeback: { id: "chbk_01JNTEST", externalId: "216000001", amount: "124.00 USD", reason: "fraudulent" },
    order: {
      id: "order_01JNORDER",
      displayId: 1042,
      createdAt: "2025-02-03T15:04:05.000Z",
      email: "dana@example.com",
      customerName: "Dana Whitfield",
      currencyCode: "usd",
      items: [
        { title: "Trail Helmet", variant: "M / Slate", sku: "HEL-TR-M", quantity: 1, unitPrice: "89.00 USD", total: "89.00 USD" },
        { title: "Bottle Cage", variant: null, sku: "CAGE-01", quantity: 2, unitPrice: "12.50 USD", total: "25.00 USD" },
      ],
      subtotal: "114.00 USD",
      shippingTotal: "10.00 USD",
      taxTotal: "0.00 USD",
      discountTotal: "0.00 USD",
      total: "124.00 USD",
      shippingAddress: address,
      billingAddress: address,
    },
    payment: {
      provider: "ServiceScan (Worldpay cnpAPI)",
      processorTransactionId: "82924701437133501",
      processorOrderId: "order_01JNORDER",
      authCode: "A1B2C3",
      cardType: "VI",
      last4: "1111",
      amount: "124.00 USD",
      authorizedAt: "2025-02-03T15:04:07.000Z",
      capturedAt: ["2025-02-04T09:00:00.000Z"],
    },
    proofRequests: [
      {
        remoteId: "pr_9f8e7d6c",
        status: "complete",
        submittedAt: "2025-03-01T11:00:00.000Z",
        completedAt: "2025-03-01T11:20:00.000Z",
        scans,
      },
    ],
    ...overrides,
  }
}

/** The text of each page, read back by PDF.js in a child process (see pdf-text.mjs). */
export function pdfText(pdf: Uint8Array): { pages: number; text: string[]; all: string } {
  const output = execFileSync(process.execPath, [join(__dirname, "pdf-text.mjs")], {
    input: pdf,
    maxBuffer: 64 * 1024 * 1024,
  })
  const parsed: { pages: number; text: string[] } = JSON.parse(output.toString("utf8"))
  // Lines wrap wherever the layout chose: compare text with whitespace collapsed.
  const text = parsed.text.map((page) => page.replace(/\s+/g, " ").trim())
  return { pages: parsed.pages, text, all: text.join(" ") }
}

export type DecodedImage = { page: number; width: number; height: number; channels: number; data: Buffer }

/** Every image PDF.js paints, decoded as a viewer decodes it, in a child process (see pdf-images.mjs). */
export function pdfImages(pdf: Uint8Array): DecodedImage[] {
  const output = execFileSync(process.execPath, [join(__dirname, "pdf-images.mjs")], {
    input: pdf,
    maxBuffer: 256 * 1024 * 1024,
  })
  const parsed: (Omit<DecodedImage, "data"> & { data: string })[] = JSON.parse(output.toString("utf8"))
  return parsed.map((image) => ({ ...image, data: Buffer.from(image.data, "base64") }))
}

export type EmbeddedImage = { page: number; width: number; height: number; filter: string | null; bytes: Uint8Array }

/** Every image XObject that a page actually uses, with its stream as stored (a JPEG's bytes for DCTDecode). */
export async function embeddedImages(pdf: Uint8Array): Promise<EmbeddedImage[]> {
  const doc = await PDFDocument.load(pdf)
  const images: EmbeddedImage[] = []
  doc.getPages().forEach((page, index) => {
    const xObjects = page.node.Resources()?.lookupMaybe(PDFName.of("XObject"), PDFDict)
    if (!xObjects) return
    for (const [, value] of xObjects.entries()) {
      const stream = value instanceof PDFRef ? doc.context.lookup(value) : value
      if (!(stream instanceof PDFRawStream)) continue
      if (stream.dict.get(PDFName.of("Subtype")) !== PDFName.of("Image")) continue
      const filter = stream.dict.get(PDFName.of("Filter"))
      images.push({
        page: index + 1,
        width: numberOf(stream.dict.get(PDFName.of("Width"))),
        height: numberOf(stream.dict.get(PDFName.of("Height"))),
        filter: filter instanceof PDFName ? filter.decodeText() : filter instanceof PDFArray ? String(filter.get(0)) : null,
        bytes: stream.contents,
      })
    }
  })
  return images
}

function numberOf(value: unknown): number {
  if (!(value instanceof PDFNumber)) throw new Error("expected a number in the image dictionary")
  return value.asNumber()
}
