/**
 * The evidence pack of a chargeback: one PDF with the case, the order, the
 * payment, ServiceScan's verdicts and the images of the valid scans, made to
 * fit the processor's per-document limit. No Medusa imports: a workflow step
 * gathers the data, formats the amounts and calls `buildEvidencePack`.
 */
import type { EvidencePackInput, EvidencePackOptions, EvidencePackResult } from "./types"

export { EvidencePackError, EvidencePackInputError, EvidencePackTooLargeError } from "./errors"
export { EVIDENCE_PACK_CONTENT_TYPE, evidencePackFileName } from "./file-name"

/**
 * Builds the pack (`./build` says how). The PDF and image libraries (pdf-lib, pngjs, jpeg-js)
 * are loaded by a process's first pack, not with this module: Medusa loads every workflow, and
 * so this, in each server and worker at boot, where most processes never build a pack. Loaded
 * eagerly they were 162 modules and about 11 MB of RSS in each (bench/README.md, "Boot memory").
 */
export async function buildEvidencePack(input: EvidencePackInput, options: EvidencePackOptions): Promise<EvidencePackResult> {
  // A plain require, not import(): the same in tsc's CommonJS output, ts-node and jest.
  const pack = require("./build") as typeof import("./build")
  return await pack.buildEvidencePack(input, options)
}
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
