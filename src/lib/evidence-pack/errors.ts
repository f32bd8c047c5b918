/** Base class of everything the evidence pack throws on purpose. */
export class EvidencePackError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = new.target.name
  }
}

/** The caller broke the contract (e.g. `maxBytes` is not a positive integer); never caused by the order's data. */
export class EvidencePackInputError extends EvidencePackError {
  /** The offending field, e.g. `options.maxBytes`. */
  readonly field: string

  constructor(field: string, message: string) {
    super(`${field}: ${message}`)
    this.field = field
  }
}

/**
 * The pack cannot fit the processor's per-document limit, even with every image
 * at the smallest size the pack accepts (or with no image at all). Nothing can be
 * sent as one document: the merchant has to answer the case some other way.
 */
export class EvidencePackTooLargeError extends EvidencePackError {
  readonly maxBytes: number
  /** The smallest pack that was produced. */
  readonly smallestBytes: number
  /** About how much of it is not images: the text, tables and page structure. */
  readonly textBytes: number
  /** Images that were reduced to the minimum without making it fit. */
  readonly imageCount: number

  constructor(details: { maxBytes: number; smallestBytes: number; textBytes: number; imageCount: number; message: string }) {
    super(details.message)
    this.maxBytes = details.maxBytes
    this.smallestBytes = details.smallestBytes
    this.textBytes = details.textBytes
    this.imageCount = details.imageCount
  }
}
