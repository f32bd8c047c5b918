/**
 * The evidence pack's contract. Everything the pack shows arrives already
 * formatted by the caller (amounts with their currency, ids as strings), so this
 * library decides layout and size only, never money or business rules.
 */
import type { Ce3Result } from "../compelling-evidence"

/** A postal address as Medusa stores it on an order. Every field is optional. */
export type EvidencePackAddress = {
  name?: string | null
  company?: string | null
  address_1?: string | null
  address_2?: string | null
  city?: string | null
  province?: string | null
  postal_code?: string | null
  country_code?: string | null
  phone?: string | null
}

/** The processor's case (for Worldpay, one `<chargebackCase>`). */
export type EvidencePackCase = {
  /** The processor's name as the merchant knows it, e.g. "worldpay". */
  gateway: string
  caseId: string
  /** e.g. "First Chargeback", "Pre-Arbitration". */
  cycle?: string | null
  reasonCode?: string | null
  reasonDescription?: string | null
  /** The processor's deadline, YYYY-MM-DD. */
  replyBy?: string | null
  /** Formatted with its currency, e.g. "24.00 USD". */
  amount?: string | null
  acquirerReferenceNumber?: string | null
}

/** The plugin's own chargeback record. */
export type EvidencePackChargeback = {
  id: string
  externalId: string
  /** Formatted with its currency. */
  amount: string
  reason?: string | null
}

export type EvidencePackLineItem = {
  title: string
  /** The product's description as the order stored it when it was placed. */
  description?: string | null
  variant?: string | null
  sku?: string | null
  quantity: number
  /** Formatted with its currency. */
  unitPrice: string
  /** Formatted with its currency. */
  total: string
}

export type EvidencePackOrder = {
  id: string
  displayId: string | number
  /** ISO 8601. */
  createdAt: string
  email?: string | null
  customerName?: string | null
  currencyCode: string
  items: EvidencePackLineItem[]
  /** The totals, formatted with their currency by the caller. */
  subtotal: string
  shippingTotal: string
  taxTotal: string
  discountTotal: string
  total: string
  shippingAddress?: EvidencePackAddress | null
  billingAddress?: EvidencePackAddress | null
}

/**
 * The payment as the processor recorded it. Card data is limited to the card
 * type and the last four digits: the pack never shows more, whatever the caller has.
 */
export type EvidencePackPayment = {
  /** e.g. "ServiceScan (Worldpay cnpAPI)". */
  provider: string
  /** Worldpay: the cnpTxnId of the authorization or sale. */
  processorTransactionId?: string | null
  /** The orderId sent to the processor. */
  processorOrderId?: string | null
  authCode?: string | null
  cardType?: string | null
  /** Exactly the last four digits; anything longer is cut to its last four. */
  last4?: string | null
  /** Formatted with its currency. */
  amount: string
  /** ISO 8601. */
  authorizedAt?: string | null
  /** ISO 8601, one per capture. */
  capturedAt?: string[] | null
}

/** An image of a scan as ServiceScan served it (JPEG), or PNG. */
export type EvidencePackImage = {
  bytes: Uint8Array
  /** Informative only: the bytes' signature decides how they are read. */
  contentType: string
}

export type EvidencePackScan = {
  scanId: string
  /** ServiceScan's ground truth; null until it has judged the scan. */
  verdict: "valid" | "invalid" | null
  /** The word ServiceScan used, e.g. "fraud" for a stored `invalid`. */
  reportedGroundTruth?: string | null
  /** "this order", or the display id of the earlier order whose checkout scanned the saved card. */
  fromOrder?: string | null
  /** Only valid scans have one; it is ignored for any other verdict. */
  image?: EvidencePackImage | null
}

export type EvidencePackProofRequest = {
  /** ServiceScan's proof request id, once it has one. */
  remoteId?: string | null
  status: string
  /** ISO 8601. */
  submittedAt?: string | null
  /** ISO 8601. */
  completedAt?: string | null
  scans: EvidencePackScan[]
}

/** The chargeback's reason family (lib/reason-family.ts); decides what the pack leads with. */
export type EvidencePackReasonFamily = "fraud" | "not_received" | "not_as_described" | "credit_not_processed" | "other"

/** One shipment of the order, as Medusa's Fulfillment Module recorded it. */
export type EvidencePackFulfillment = {
  id: string
  /** The carrier or shipping option, e.g. "Standard Shipping (manual_manual)". */
  carrier?: string | null
  trackingNumbers: string[]
  /** ISO 8601. */
  packedAt?: string | null
  /** ISO 8601. */
  shippedAt?: string | null
  /** ISO 8601. */
  deliveredAt?: string | null
  /** ISO 8601. */
  canceledAt?: string | null
  /** e.g. "Scanner sticker x 1". */
  items: string[]
}

/** One return of the order. */
export type EvidencePackReturn = {
  id: string
  status: string
  /** ISO 8601. */
  requestedAt?: string | null
  /** ISO 8601. */
  receivedAt?: string | null
  /** e.g. "Scanner sticker x 1". */
  items: string[]
}

/** One refund of the payment. */
export type EvidencePackRefund = {
  /** Formatted with its currency. */
  amount: string
  /** ISO 8601. */
  createdAt?: string | null
  note?: string | null
}

/** Everything one pack shows. */
export type EvidencePackInput = {
  /** Stamped in the document and its metadata; the same input and date give the same bytes. */
  generatedAt: Date
  merchant?: { name?: string | null } | null
  case: EvidencePackCase
  chargeback: EvidencePackChargeback
  order: EvidencePackOrder
  payment: EvidencePackPayment
  proofRequests: EvidencePackProofRequest[]
  /** Absent: "other" (the pack as it always was: order, payment, card verification). */
  family?: EvidencePackReasonFamily | null
  /** The order's fulfillments (leads a "not received" pack). */
  fulfillments?: EvidencePackFulfillment[] | null
  /** The order's returns (in a "not as described" pack). */
  returns?: EvidencePackReturn[] | null
  /** The payment's refunds (leads a "credit not processed" pack). */
  refunds?: EvidencePackRefund[] | null
  /**
   * Visa Compelling Evidence 3.0 (src/lib/compelling-evidence.ts): a fraud pack
   * of a case it applies to (Visa 10.4) leads with it. Absent or not applicable: no section.
   */
  compellingEvidence?: Ce3Result | null
}

export type EvidencePackOptions = {
  /** The processor's per-document limit in bytes (Worldpay: 2 MB). The pack is made to fit it. */
  maxBytes: number
  /** Page size; Worldpay is a US processor, hence letter by default. */
  pageSize?: "letter" | "a4"
  /**
   * The most pixels an image may have to be shown (default `MAX_IMAGE_PIXELS`,
   * 16 MP). A larger one is never decoded: the pack says why in its place.
   */
  maxImagePixels?: number
}

/** What happened to one valid scan's image. */
export type EvidencePackImageReport = {
  scanId: string
  originalBytes: number
  /** Bytes of the image inside the PDF (0 when it could not be embedded). */
  embeddedBytes: number
  /** True when the image was resampled and re-encoded to fit `maxBytes`. */
  downscaled: boolean
  /** Pixel size of the image as given, when it could be read. */
  originalSize: { width: number; height: number } | null
  /** Pixel size of the image inside the PDF, when embedded. */
  embeddedSize: { width: number; height: number } | null
  /** Why the image is not in the pack (unreadable or unsupported bytes); the pack says so too. */
  problem?: string
}

export type EvidencePackResult = {
  pdf: Uint8Array
  /** `pdf.byteLength`; never more than `maxBytes`. */
  bytes: number
  pages: number
  /** True when at least one image was downscaled to fit. */
  downscaled: boolean
  /** One entry per valid scan that came with an image, in the order they appear in the pack. */
  images: EvidencePackImageReport[]
}
