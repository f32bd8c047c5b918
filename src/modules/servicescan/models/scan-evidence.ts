import { model } from "@medusajs/framework/utils"
import { GROUND_TRUTHS } from "../types"
import { ProofRequest } from "./proof-request"

/** The prefix of its ids (rows inserted in bulk get theirs from `newEntityId`). */
export const SCAN_EVIDENCE_ID_PREFIX = "ssev"

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
      id: model.id({ prefix: SCAN_EVIDENCE_ID_PREFIX }).primaryKey(),
      scan_id: model.text(),
      /** `fraud` from the real service is stored as `invalid`. */
      ground_truth: model.enum([...GROUND_TRUTHS]).nullable(),
      /** The word the service used, kept as evidence of what it said. */
      reported_ground_truth: model.text().nullable(),
      /**
       * The service's image URL for valid scans, kept as what it said. Never
       * fetched (the proxy builds the URL from the configured base URL) and
       * never in an API response.
       */
      image_url: model.text().nullable(),
      /**
       * The File Module id of the archived copy, which outlives the service's
       * retention. The copy is sealed (src/lib/sealed-evidence.ts); no file
       * URL is kept, and the id never leaves the server.
       */
      archived_file_id: model.text().nullable(),
      /**
       * The archived copy's own AES-256-GCM key, wrapped under the module's `evidenceKey`
       * (a keyring value; in clear, base64url, only as an earlier version left it until the
       * migration script wraps it). Server-side only, like the id.
       */
      archive_key: model.text().nullable(),
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
