import fc from "fast-check"
import { PDFDocument } from "pdf-lib"
import { buildEvidencePack, type EvidencePackInput } from ".."
import { gradientJpeg } from "./fixtures"

// Every text field of the pack takes whatever a shopper, a merchant or a
// processor may put there: the pack never throws over text, and is always a
// PDF that a parser opens, within the limit.

const lonelySurrogates = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code))
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: lonelySurrogates, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary-ascii", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom("", " ", "\n", "\u0000", "\ufeff", "😀".repeat(30), "Ω≈ç√∫", "(\\)", "%%EOF") },
  // Long enough to wrap over many lines, with and without spaces.
  { weight: 1, arbitrary: fc.string({ unit: "binary", minLength: 300, maxLength: 1500 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 300, maxLength: 2000 }) }
)
const maybe = fc.option(text, { nil: null })
const address = fc.option(
  fc.record({
    name: maybe,
    company: maybe,
    address_1: maybe,
    address_2: maybe,
    city: maybe,
    province: maybe,
    postal_code: maybe,
    country_code: maybe,
    phone: maybe,
  }),
  { nil: null }
)

// One small, real JPEG for the valid scans that carry an image (images are not what this spec varies).
const jpeg = gradientJpeg(48, 30)

const input: fc.Arbitrary<EvidencePackInput> = fc.record({
  generatedAt: fc.date({ min: new Date("1970-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true }),
  merchant: fc.option(fc.record({ name: maybe }), { nil: undefined }),
  case: fc.record({
    gateway: text,
    caseId: text,
    cycle: maybe,
    reasonCode: maybe,
    reasonDescription: maybe,
    replyBy: maybe,
    amount: maybe,
    acquirerReferenceNumber: maybe,
  }),
  chargeback: fc.record({ id: text, externalId: text, amount: text, reason: maybe }),
  order: fc.record({
    id: text,
    displayId: fc.oneof(text, fc.integer()),
    createdAt: text,
    email: maybe,
    customerName: maybe,
    currencyCode: text,
    items: fc.array(
      fc.record({
        title: text,
        variant: maybe,
        sku: maybe,
        quantity: fc.oneof(fc.integer(), fc.double()),
        unitPrice: text,
        total: text,
      }),
      { maxLength: 6 }
    ),
    subtotal: text,
    shippingTotal: text,
    taxTotal: text,
    discountTotal: text,
    total: text,
    shippingAddress: address,
    billingAddress: address,
  }),
  payment: fc.record({
    provider: text,
    processorTransactionId: maybe,
    processorOrderId: maybe,
    authCode: maybe,
    cardType: maybe,
    last4: maybe,
    amount: text,
    authorizedAt: maybe,
    capturedAt: fc.option(fc.array(text, { maxLength: 3 }), { nil: null }),
  }),
  proofRequests: fc.array(
    fc.record({
      remoteId: maybe,
      status: text,
      submittedAt: maybe,
      completedAt: maybe,
      scans: fc.array(
        fc.record({
          scanId: text,
          verdict: fc.constantFrom("valid" as const, "invalid" as const, null),
          reportedGroundTruth: maybe,
          fromOrder: maybe,
          image: fc.option(fc.constant({ bytes: jpeg, contentType: "image/jpeg" }), { nil: null }),
        }),
        { maxLength: 4 }
      ),
    }),
    { maxLength: 2 }
  ),
})

const MAX_BYTES = 2 * 1024 * 1024

describe("buildEvidencePack with arbitrary text in every field", () => {
  it("never throws and always gives a PDF that parses, within maxBytes", async () => {
    await fc.assert(
      fc.asyncProperty(input, async (value) => {
        const result = await buildEvidencePack(value, { maxBytes: MAX_BYTES })
        expect(result.bytes).toBeLessThanOrEqual(MAX_BYTES)
        expect(Buffer.from(result.pdf.subarray(0, 5)).toString("latin1")).toBe("%PDF-")
        const doc = await PDFDocument.load(result.pdf, { updateMetadata: false })
        expect(doc.getPageCount()).toBe(result.pages)
        // PDF dates have whole seconds.
        expect(doc.getCreationDate()?.getTime()).toBe(Math.floor(value.generatedAt.getTime() / 1000) * 1000)
      }),
      // A failure found is still reported when shrinking it runs out of time.
      { numRuns: 60, interruptAfterTimeLimit: 90_000 }
    )
  }, 180_000)

  it("gives the same bytes for the same input", async () => {
    await fc.assert(
      fc.asyncProperty(input, async (value) => {
        const first = await buildEvidencePack(value, { maxBytes: MAX_BYTES })
        const second = await buildEvidencePack(value, { maxBytes: MAX_BYTES })
        expect(Buffer.compare(Buffer.from(first.pdf), Buffer.from(second.pdf))).toBe(0)
      }),
      { numRuns: 15, interruptAfterTimeLimit: 90_000 }
    )
  }, 180_000)
})
