import { model } from "@medusajs/framework/utils"
import { GROUND_TRUTHS } from "../types"
import { ProofRequest } from "./proof-request"

/**
 * One scan of a proof request. Created with the proof request (ground truth
 * null), filled in when ServiceScan completes it. A null ground truth on a
 * complete proof request means the service did not report that scan (it does
 * not know it, or it belongs to another account).
 */
export const ScanEvidence = model
  .define(
    { name: "scan_evidence", tableName: "servicescan_scan_evidence" },
    {
      id: model.id({ prefix: "ssev" }).primaryKey(),
      scan_id: model.text(),
      /** `fraud` from the real service is stored as `invalid`. */
      ground_truth: model.enum([...GROUND_TRUTHS]).nullable(),
      /** The word the service used, kept as evidence of what it said. */
      reported_ground_truth: model.text().nullable(),
      /** The service's image URL for valid scans (needs the secret key; use the admin image proxy). */
      image_url: model.text().nullable(),
      /** The copy in Medusa's File Module, which outlives the service's retention. */
      archived_file_id: model.text().nullable(),
      archived_file_url: model.text().nullable(),
      archived_at: model.dateTime().nullable(),
      archive_error: model.text().nullable(),
      proof_request: model.belongsTo(() => ProofRequest, { mappedBy: "scans" }),
    }
  )
  .indexes([
    { name: "IDX_servicescan_scan_evidence_scan_id", on: ["scan_id"] },
    {
      name: "IDX_servicescan_scan_evidence_proof_request_scan_unique",
      on: ["proof_request_id", "scan_id"],
      unique: true,
    },
  ])
