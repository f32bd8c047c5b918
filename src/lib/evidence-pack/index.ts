/**
 * The evidence pack of a chargeback: one PDF with the case, the order, the
 * payment, ServiceScan's verdicts and the images of the valid scans, made to
 * fit the processor's per-document limit. No Medusa imports: a workflow step
 * gathers the data, formats the amounts and calls `buildEvidencePack`.
 */
export { buildEvidencePack, allocate } from "./build"
export { VERDICT_WORDING, cardLabel } from "./document"
export { EvidencePackError, EvidencePackInputError, EvidencePackTooLargeError } from "./errors"
export { EVIDENCE_PACK_CONTENT_TYPE, evidencePackFileName } from "./file-name"
export { MAX_IMAGE_PIXELS, REDUCTION_LEVELS, type ReductionLevel } from "./images"
export type {
  EvidencePackAddress,
  EvidencePackCase,
  EvidencePackChargeback,
  EvidencePackFulfillment,
  EvidencePackImage,
  EvidencePackImageReport,
  EvidencePackInput,
  EvidencePackLineItem,
  EvidencePackOptions,
  EvidencePackOrder,
  EvidencePackPayment,
  EvidencePackProofRequest,
  EvidencePackReasonFamily,
  EvidencePackRefund,
  EvidencePackReturn,
  EvidencePackResult,
  EvidencePackScan,
} from "./types"
