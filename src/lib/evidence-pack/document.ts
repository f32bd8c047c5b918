/**
 * What the pack says, section by section. Sizes are decided elsewhere
 * (`build.ts`); this file turns an input and a set of ready images into a PDF.
 */
import { PDFDocument } from "pdf-lib"
import { cardBrandName } from "../card-brands"
import { FLATE_RGB_DECODE_PARMS, type ImageKind, type ReductionLevel } from "./images"
import { COLORS, type EmbeddedImage, PAGE_SIZES, PackWriter } from "./layout"
import { formatBytes, formatDate, formatTimestamp, present } from "./text"
import { REASON_FAMILY_EVIDENCE, REASON_FAMILY_LABELS } from "../reason-family"
import { CE3_HEADING, ce3SummaryLine, compellingEvidenceSection } from "./compelling-evidence"
import type { EvidencePackAddress, EvidencePackInput, EvidencePackReasonFamily, EvidencePackScan } from "./types"

/** The words the pack uses for each verdict, as docs/statuses.md defines them ("A scan's verdict"). */
export const VERDICT_WORDING = {
  valid: "Valid: a good candidate for a dispute. The card was physically present and scanned.",
  invalid: "Invalid: likely true fraud, not a good candidate for a dispute.",
  pending: "Not judged: ServiceScan has not reported a verdict for this scan.",
} as const

/** A valid scan's image, ready to embed: as given, or reduced to fit. */
export type ReadyImage = {
  status: "ready"
  width: number
  height: number
  original: { bytes: number; width: number; height: number; kind: ImageKind }
  /** Set when the image was resampled and re-encoded as JPEG. */
  reduction: ReductionLevel | null
} & (
  | { kind: "jpeg"; bytes: Uint8Array }
  | {
      kind: "png"
      /** The PNG as given (what the pack reports). */
      bytes: Uint8Array
      /** What the PDF stores of it: its RGB pixels, deflated (see `pngToFlateRgb`). */
      flateRgb: Uint8Array
    }
)

/** A valid scan whose image could not be used; the pack says why. */
export type ImageProblem = { status: "problem"; problem: string }

export type RenderContext = {
  maxBytes: number
  pageSize: keyof typeof PAGE_SIZES
  /** By scan id: the first valid occurrence of each scan that came with an image. */
  images: ReadonlyMap<string, ReadyImage | ImageProblem>
}

const PRODUCER = "medusa-plugin-servicescan"
/** Points; small enough for two scans to a page, while the embedded pixels keep every detail for zooming. */
const IMAGE_MAX_HEIGHT = 250
/** What a level-2 heading takes (see `PackWriter.heading`). */
const SUBHEADING_HEIGHT = 6 + 11 * 1.3 + 3

/** Lays out the whole pack. Deterministic: the same input and context give the same bytes. */
export async function renderPack(input: EvidencePackInput, context: RenderContext): Promise<{ pdf: Uint8Array; pages: number }> {
  // No automatic metadata: pdf-lib would stamp the current time and make every run differ.
  const doc = await PDFDocument.create({ updateMetadata: false })
  const writer = await PackWriter.create(doc, PAGE_SIZES[context.pageSize])
  const caseId = writer.clean(input.case.caseId)
  const displayId = writer.clean(String(input.order.displayId))
  const gateway = gatewayName(input.case.gateway)
  const merchant = present(input.merchant?.name ?? null)
  const generated = formatDate(input.generatedAt)

  const title = `Chargeback evidence: case ${caseId}`
  doc.setTitle(title)
  doc.setSubject(`Evidence for ${gateway} chargeback case ${caseId}, order #${displayId}`)
  doc.setAuthor(merchant ? writer.clean(merchant) : PRODUCER)
  doc.setKeywords(["chargeback", "evidence", caseId, `order ${displayId}`])
  doc.setProducer(PRODUCER)
  doc.setCreator(`${PRODUCER} evidence pack`)
  doc.setLanguage("en")
  doc.setCreationDate(input.generatedAt)
  doc.setModificationDate(input.generatedAt)

  const scans = uniqueScans(input)
  const valid = scans.filter((scan) => scan.verdict === "valid")
  const invalid = scans.filter((scan) => scan.verdict === "invalid")

  cover(writer, input, { title, gateway, merchant, generated, validCount: valid.length, invalidCount: invalid.length, scanCount: scans.length })
  // What wins the family comes first; the rest of the pack stays as it always was.
  leadSection(writer, input)
  if (familyOf(input) === "fraud") compellingEvidenceSection(writer, input.compellingEvidence)
  orderSection(writer, input)
  paymentSection(writer, input)
  verificationSection(writer, input)
  await imagesSection(writer, context, valid, invalid)

  writer.finish(
    `${merchant ? `${merchant} - ` : ""}Evidence for ${gateway} chargeback case ${caseId}`,
    `Case ${caseId} - Order #${displayId} - Generated ${generated} by ${PRODUCER}`
  )
  const pdf = await doc.save({ useObjectStreams: true })
  return { pdf, pages: writer.pages.length }
}

function gatewayName(gateway: string): string {
  return gateway.toLowerCase() === "worldpay" ? "Worldpay" : gateway
}

/** Each scan once (a scan sent again in a later proof request keeps its first appearance). */
export function uniqueScans(input: EvidencePackInput): EvidencePackScan[] {
  const seen = new Map<string, EvidencePackScan>()
  for (const request of input.proofRequests) {
    for (const scan of request.scans) {
      const known = seen.get(scan.scanId)
      // A verdict beats no verdict: an earlier request may have failed before judging.
      if (!known || (known.verdict === null && scan.verdict !== null)) seen.set(scan.scanId, scan)
    }
  }
  return [...seen.values()]
}

function cover(
  writer: PackWriter,
  input: EvidencePackInput,
  facts: { title: string; gateway: string; merchant: string | null; generated: string; validCount: number; invalidCount: number; scanCount: number }
): void {
  const { order, chargeback, payment } = input
  const caseData = input.case
  writer.paragraph("EVIDENCE PACK - CARD VERIFICATION BY SERVICESCAN", { size: 8, bold: true, color: COLORS.muted })
  writer.space(4)
  writer.paragraph(facts.title, { size: 20, bold: true })
  writer.paragraph(
    [facts.merchant, `Order #${order.displayId}`, `Generated ${facts.generated}`].filter((part) => part !== null).join("  |  "),
    { size: 10, color: COLORS.muted }
  )
  writer.space(10)
  writer.paragraph(
    `This document is submitted by ${facts.merchant ?? "the merchant"} as evidence for ${facts.gateway} chargeback case ` +
      `${caseData.caseId}, on order #${order.displayId}. It sets out the order, the payment as the processor recorded it, and ` +
      "the verification of the card: the card form the cardholder paid through has a built-in card scanner, and ServiceScan, " +
      "the service behind it, judged each scan of the card when this chargeback arrived. Images of the scans judged valid " +
      "are at the end. Card data is limited to the card type and its last four digits."
  )
  writer.space(8)
  writer.heading("Summary")
  const reason = [present(caseData.reasonCode), present(caseData.reasonDescription)].filter((part) => part !== null).join(" - ")
  writer.keyValues([
    ["Processor case", `${facts.gateway} case ${caseData.caseId}`, { bold: true }],
    ["Cycle", present(caseData.cycle)],
    ["Reason", reason === "" ? present(chargeback.reason) : reason],
    ["Reason family", `${REASON_FAMILY_LABELS[familyOf(input)]}: answered with ${REASON_FAMILY_EVIDENCE[familyOf(input)]}`],
    ["Case amount", present(caseData.amount)],
    ["Reply by", present(caseData.replyBy)],
    ["Acquirer reference number", present(caseData.acquirerReferenceNumber)],
    ["Chargeback", `${chargeback.externalId} (${chargeback.amount})`],
    ["Order", `#${order.displayId}, placed ${formatTimestamp(order.createdAt) ?? "at an unrecorded time"}`, { bold: true }],
    ["Order total", order.total],
    ["Card", cardLabel(payment.cardType, payment.last4)],
    ...(familyOf(input) === "fraud" && input.compellingEvidence?.applicable
      ? [["Compelling Evidence 3.0", ce3SummaryLine(input.compellingEvidence)] as [string, string]]
      : []),
    ["Card verification", verificationSummary(facts), { color: facts.validCount > 0 ? COLORS.valid : facts.invalidCount > 0 ? COLORS.invalid : undefined }],
  ])
  writer.space(6)
  const lead = LEAD_HEADINGS[familyOf(input)] ?? (familyOf(input) === "fraud" && input.compellingEvidence?.applicable ? CE3_HEADING : null)
  writer.paragraph(`Contents: ${lead ? `${lead}  ` : ""}1. The order  2. The payment  3. Card verification  4. Images of the valid scans`, {
    size: 9,
    color: COLORS.muted,
  })
}

function familyOf(input: EvidencePackInput): EvidencePackReasonFamily {
  return input.family ?? "other"
}

/** The section a family's pack leads with; fraud leads with the card verification, as every pack did before. */
const LEAD_HEADINGS: Readonly<Record<EvidencePackReasonFamily, string | null>> = {
  fraud: null,
  other: null,
  not_received: "Delivery of the order",
  not_as_described: "The items as sold, and returns",
  credit_not_processed: "Refunds",
}

function leadSection(writer: PackWriter, input: EvidencePackInput): void {
  const family = familyOf(input)
  const heading = LEAD_HEADINGS[family]
  if (heading === null) return
  writer.heading(heading)
  if (family === "not_received") {
    const fulfillments = input.fulfillments ?? []
    if (fulfillments.length === 0) {
      writer.paragraph("Medusa holds no fulfillment of this order.", { color: COLORS.muted })
      return
    }
    fulfillments.forEach((fulfillment, index) => {
      if (index > 0) writer.space(6)
      writer.heading(`Shipment ${index + 1}`, 2)
      writer.keyValues([
        ["Carrier", present(fulfillment.carrier)],
        ["Tracking number", fulfillment.trackingNumbers.length ? fulfillment.trackingNumbers : null, { bold: true }],
        ["Packed", formatTimestamp(fulfillment.packedAt)],
        ["Shipped", formatTimestamp(fulfillment.shippedAt)],
        ["Delivered", formatTimestamp(fulfillment.deliveredAt) ?? "No delivery recorded"],
        ["Canceled", formatTimestamp(fulfillment.canceledAt)],
        ["Items", fulfillment.items.length ? fulfillment.items : null],
        ["Fulfillment id", fulfillment.id],
      ])
    })
    return
  }
  if (family === "not_as_described") {
    const { items } = input.order
    if (items.length === 0) {
      writer.paragraph("The order has no line items.", { color: COLORS.muted })
    } else {
      writer.table(
        [
          { header: "Item as sold", share: 0.35 },
          { header: "Description when the order was placed", share: 0.65 },
        ],
        items.map((item) => [
          present(item.variant) ? [item.title, `${item.variant}`] : item.title,
          present(item.description) ?? "No description recorded",
        ])
      )
    }
    writer.space(6)
    writer.heading("Returns", 2)
    const returns = input.returns ?? []
    if (returns.length === 0) {
      writer.paragraph("No return of this order was requested.", { color: COLORS.muted })
      return
    }
    returns.forEach((ret) => {
      writer.keyValues([
        ["Return", ret.id],
        ["Status", ret.status],
        ["Requested", formatTimestamp(ret.requestedAt)],
        ["Received", formatTimestamp(ret.receivedAt)],
        ["Items", ret.items.length ? ret.items : null],
      ])
    })
    return
  }
  const refunds = input.refunds ?? []
  if (refunds.length === 0) {
    writer.paragraph("No refund was made on this payment.", { color: COLORS.muted })
    return
  }
  writer.table(
    [
      { header: "Refunded", share: 0.3, align: "right" },
      { header: "When", share: 0.3 },
      { header: "Note", share: 0.4 },
    ],
    refunds.map((refund) => [refund.amount, formatTimestamp(refund.createdAt) ?? "", present(refund.note) ?? ""])
  )
}

function verificationSummary(facts: { validCount: number; invalidCount: number; scanCount: number }): string {
  if (facts.scanCount === 0) return "No card scan was submitted to ServiceScan for this order."
  const parts: string[] = []
  if (facts.validCount > 0) {
    parts.push(
      `${plural(facts.validCount, "scan")} judged valid: a good candidate for a dispute; the card was physically present and scanned.`
    )
  }
  if (facts.invalidCount > 0) parts.push(`${plural(facts.invalidCount, "scan")} judged invalid: likely true fraud.`)
  const pending = facts.scanCount - facts.validCount - facts.invalidCount
  if (pending > 0) parts.push(`${plural(pending, "scan")} not judged yet.`)
  return parts.join(" ")
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`
}

/** Card type and the last four digits, and nothing else, whatever the caller passed. */
export function cardLabel(cardType: string | null | undefined, last4: string | null | undefined): string | null {
  const digits = (last4 ?? "").replace(/\D/g, "").slice(-4)
  const code = present(cardType)
  // The processor's code stays beside the brand, for a reader outside the processor.
  const named = code === null ? undefined : cardBrandName(code)
  const type = named ? `${named} (${code})` : code
  if (digits === "" && type === null) return null
  if (digits === "") return `${type}`
  return `${type ?? "Card"} ending in ${digits}`
}

function orderSection(writer: PackWriter, input: EvidencePackInput): void {
  const { order } = input
  writer.heading("1. The order")
  writer.keyValues([
    ["Order number", `#${order.displayId}`, { bold: true }],
    ["Order id", order.id],
    ["Placed", formatTimestamp(order.createdAt)],
    ["Customer", present(order.customerName)],
    ["Email", present(order.email)],
    ["Currency", order.currencyCode.toUpperCase()],
  ])
  writer.space(8)
  writer.heading("Items", 2)
  if (order.items.length === 0) {
    writer.paragraph("The order has no line items.", { color: COLORS.muted })
  } else {
    writer.table(
      [
        { header: "Item", share: 0.42 },
        { header: "SKU", share: 0.18 },
        { header: "Qty", share: 0.08, align: "right" },
        { header: "Unit price", share: 0.16, align: "right" },
        { header: "Total", share: 0.16, align: "right" },
      ],
      order.items.map((item) => [
        present(item.variant) ? [item.title, `${item.variant}`] : item.title,
        present(item.sku) ?? "",
        String(item.quantity),
        item.unitPrice,
        item.total,
      ])
    )
  }
  writer.space(6)
  writer.table(
    [
      { header: "Totals", share: 0.68 },
      { header: "Amount", share: 0.32, align: "right" },
    ],
    [
      ["Subtotal", order.subtotal],
      ["Shipping", order.shippingTotal],
      ["Discount", order.discountTotal],
      ["Tax", order.taxTotal],
      [{ lines: ["Order total"], bold: true }, { lines: [order.total], bold: true }],
    ]
  )
  writer.space(8)
  writer.heading("Addresses", 2)
  writer.table(
    [
      { header: "Shipping address", share: 0.5 },
      { header: "Billing address", share: 0.5 },
    ],
    [[addressLines(order.shippingAddress), addressLines(order.billingAddress)]]
  )
  if (sameAddress(order.shippingAddress, order.billingAddress)) {
    writer.paragraph("The order was shipped to the billing address.", { size: 9, color: COLORS.muted })
  }
}

function addressLines(address: EvidencePackAddress | null | undefined): string[] {
  if (!address) return ["Not recorded"]
  const cityLine = [present(address.postal_code), present(address.city), present(address.province)].filter((part) => part !== null).join(" ")
  const lines = [
    present(address.name),
    present(address.company),
    present(address.address_1),
    present(address.address_2),
    cityLine === "" ? null : cityLine,
    present(address.country_code)?.toUpperCase() ?? null,
    present(address.phone) ? `Phone ${address.phone}` : null,
  ].filter((line): line is string => line !== null)
  return lines.length ? lines : ["Not recorded"]
}

function sameAddress(a: EvidencePackAddress | null | undefined, b: EvidencePackAddress | null | undefined): boolean {
  if (!a || !b) return false
  const key = (address: EvidencePackAddress) => addressLines(address).join("\n").toLowerCase()
  return key(a) === key(b) && key(a) !== "not recorded"
}

function paymentSection(writer: PackWriter, input: EvidencePackInput): void {
  const { payment } = input
  writer.heading("2. The payment")
  const captures = (payment.capturedAt ?? []).map((value) => formatTimestamp(value)).filter((value): value is string => value !== null)
  writer.keyValues([
    ["Provider", payment.provider],
    ["Processor transaction id", present(payment.processorTransactionId)],
    ["Processor order id", present(payment.processorOrderId)],
    ["Authorization code", present(payment.authCode)],
    ["Card", cardLabel(payment.cardType, payment.last4)],
    ["Amount", payment.amount],
    ["Authorized", formatTimestamp(payment.authorizedAt)],
    ["Captured", captures.length ? captures : null],
  ])
}

function verificationSection(writer: PackWriter, input: EvidencePackInput): void {
  writer.heading("3. Card verification")
  writer.paragraph(
    "When the chargeback arrived, the merchant sent the ids of the card scans made at checkout to ServiceScan in a proof " +
      "request. ServiceScan judges each scan:"
  )
  writer.paragraph(`- ${VERDICT_WORDING.valid}`, { indent: 10, color: COLORS.valid })
  writer.paragraph(`- ${VERDICT_WORDING.invalid}`, { indent: 10, color: COLORS.invalid })
  writer.space(4)
  if (input.proofRequests.length === 0) {
    writer.paragraph("No proof request was made for this order.", { color: COLORS.muted })
    return
  }
  input.proofRequests.forEach((request, index) => {
    writer.space(6)
    writer.heading(
      `Proof request ${input.proofRequests.length > 1 ? `${index + 1} ` : ""}${present(request.remoteId) ? `(ServiceScan id ${request.remoteId})` : "(not yet received by ServiceScan)"}`,
      2
    )
    writer.keyValues([
      ["Status", request.status],
      ["Submitted", formatTimestamp(request.submittedAt)],
      ["Completed", formatTimestamp(request.completedAt)],
    ])
    writer.space(4)
    if (request.scans.length === 0) {
      writer.paragraph("This proof request holds no scans.", { color: COLORS.muted })
      return
    }
    writer.table(
      [
        // Wide enough for a UUID on one line on A4 as on letter: an id split in two is easy to misread.
        { header: "Scan id", share: 0.4 },
        { header: "Scanned at checkout of", share: 0.17 },
        { header: "Verdict", share: 0.43 },
      ],
      request.scans.map((scan) => [
        scan.scanId,
        scanOrigin(scan.fromOrder),
        {
          lines: [verdictLine(scan)],
          color: scan.verdict === "valid" ? COLORS.valid : scan.verdict === "invalid" ? COLORS.invalid : COLORS.muted,
        },
      ])
    )
  })
}

function scanOrigin(fromOrder: string | null | undefined): string {
  const origin = present(fromOrder)
  if (origin === null || origin.toLowerCase() === "this order") return "this order"
  return `order #${origin.replace(/^#/, "")} (saved card)`
}

function verdictLine(scan: EvidencePackScan): string {
  if (scan.verdict === "valid") return VERDICT_WORDING.valid
  if (scan.verdict === "invalid") {
    const reported = present(scan.reportedGroundTruth)
    return reported && reported.toLowerCase() !== "invalid"
      ? `${VERDICT_WORDING.invalid} (ServiceScan's word: "${reported}".)`
      : VERDICT_WORDING.invalid
  }
  return VERDICT_WORDING.pending
}

async function imagesSection(
  writer: PackWriter,
  context: RenderContext,
  valid: EvidencePackScan[],
  invalid: EvidencePackScan[]
): Promise<void> {
  const limit = formatBytes(context.maxBytes)
  const verdictStyle = { size: 9, color: COLORS.valid }
  const noteStyle = { size: 9, color: COLORS.muted }
  const captionStyle = { size: 8.5, color: COLORS.muted }
  // Each scan is one block (title, verdict, image, caption) kept on one page, two to a page.
  const blocks: { title: string; height: number; draw: () => void }[] = []
  for (const scan of valid) {
    const entry = context.images.get(scan.scanId)
    const title = `Scan ${scan.scanId}`
    const verdict = `${VERDICT_WORDING.valid} Scanned at checkout of ${scanOrigin(scan.fromOrder)}.`
    const verdictHeight = writer.paragraphHeight(verdict, verdictStyle) + 4
    if (!entry || entry.status === "problem") {
      const note = entry
        ? { text: `Its image could not be included: ${entry.problem}.`, style: { size: 9, color: COLORS.invalid } }
        : { text: "Its image was not available when this pack was generated.", style: noteStyle }
      blocks.push({
        title,
        height: verdictHeight + writer.paragraphHeight(note.text, note.style),
        draw: () => {
          writer.paragraph(verdict, verdictStyle)
          writer.space(4)
          writer.paragraph(note.text, note.style)
          writer.space(8)
        },
      })
      continue
    }
    const embedded = await embed(writer, entry)
    const size = `${entry.width}x${entry.height} px`
    const caption = entry.reduction
      ? `Reduced from ${entry.original.width}x${entry.original.height} px, ${formatBytes(entry.original.bytes)} (${entry.original.kind.toUpperCase()}) ` +
        `to ${size}, ${formatBytes(entry.bytes.byteLength)} (JPEG quality ${entry.reduction.quality}), ` +
        `to fit the processor's ${limit} per-document limit.`
      : `The image as ServiceScan kept it, unchanged: ${size}, ${formatBytes(entry.bytes.byteLength)} (${entry.kind.toUpperCase()}).`
    blocks.push({
      title,
      height: verdictHeight + writer.imageBox(embedded, IMAGE_MAX_HEIGHT).height + 6 + writer.paragraphHeight(caption, captionStyle),
      draw: () => {
        writer.paragraph(verdict, verdictStyle)
        writer.space(4)
        writer.image(embedded, IMAGE_MAX_HEIGHT)
        writer.paragraph(caption, captionStyle)
        writer.space(10)
      },
    })
  }

  writer.heading("4. Images of the valid scans", 1, blocks.length ? SUBHEADING_HEIGHT + blocks[0].height : 60)
  if (valid.length === 0) writer.paragraph("No scan was judged valid, so there is no image to show.", noteStyle)
  for (const block of blocks) {
    writer.heading(block.title, 2, block.height)
    block.draw()
  }
  if (invalid.length > 0) {
    writer.space(4)
    writer.paragraph(
      `${invalid.length === 1 ? "The scan" : `The ${invalid.length} scans`} judged invalid (likely true fraud) ha${invalid.length === 1 ? "s" : "ve"} no image: ` +
        "ServiceScan keeps no image of a scan it judges fraudulent.",
      noteStyle
    )
    for (const scan of invalid) writer.paragraph(`- ${scan.scanId}`, { ...noteStyle, indent: 10 })
  }
}

/**
 * Neither path decodes pixels: pdf-lib reads only a JPEG's header and stores its
 * bytes as they are (DCTDecode); a PNG was decoded and deflated once, before.
 */
async function embed(writer: PackWriter, image: ReadyImage): Promise<EmbeddedImage> {
  if (image.kind === "jpeg") return writer.doc.embedJpg(image.bytes)
  const { context } = writer.doc
  const stream = context.stream(image.flateRgb, {
    Type: "XObject",
    Subtype: "Image",
    Width: image.width,
    Height: image.height,
    ColorSpace: "DeviceRGB",
    BitsPerComponent: 8,
    Filter: "FlateDecode",
    DecodeParms: { ...FLATE_RGB_DECODE_PARMS, Columns: image.width },
  })
  return { ref: context.register(stream), width: image.width, height: image.height }
}
