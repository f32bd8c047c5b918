import { model } from "@medusajs/framework/utils"
import { PROOF_REQUEST_STATUSES } from "../types"
import { Chargeback } from "./chargeback"
import { ScanEvidence } from "./scan-evidence"

/** The prefix of its ids (rows inserted in bulk get theirs from `newEntityId`). */
export const PROOF_REQUEST_ID_PREFIX = "sspr"

/** One `PUT /disputes/proofRequest` and its life until ServiceScan completes it. */
export const ProofRequest = model
  .define(
    { name: "proof_request", tableName: "servicescan_proof_request" },
    {
      id: model.id({ prefix: PROOF_REQUEST_ID_PREFIX }).primaryKey(),
      /** ServiceScan's id, known once the PUT answered. */
      remote_id: model.text().nullable(),
      /**
       * Ids ServiceScan gave for earlier PUTs of this row that surfaced after it
       * was sent again (a sender presumed dead answered late). Kept as a record;
       * `remote_id` is the one polled.
       */
      other_remote_ids: model.array().default([]),
      status: model.enum([...PROOF_REQUEST_STATUSES]).default("to_submit"),
      scan_ids: model.array(),
      /** Calls made for this proof request (submissions and status checks) that failed in a row. */
      attempts: model.number().default(0),
      /** PUTs sent for it so far. An answer is written only if it belongs to the latest one. */
      submissions: model.number().default(0),
      /**
       * Set while a PUT may be on the wire: until when its sender, if alive, has
       * answered. Never re-sent before then (the service has no idempotency key).
       */
      in_flight_until: model.dateTime().nullable(),
      /** When the poll job next looks at it (a poll, a send, or the re-send of a lost answer); null once complete or failed. */
      next_poll_at: model.dateTime().nullable(),
      last_polled_at: model.dateTime().nullable(),
      submitted_at: model.dateTime().nullable(),
      last_error: model.text().nullable(),
      completed_at: model.dateTime().nullable(),
      chargeback: model.belongsTo(() => Chargeback, { mappedBy: "proof_requests" }),
      scans: model.hasMany(() => ScanEvidence, { mappedBy: "proof_request" }),
    }
  )
  .indexes([
    {
      // The poll job's claim orders by (next_poll_at, id), exactly this index, so PostgreSQL reads
      // each page's rows off it and no more. When the two differed (the claim said NULLS FIRST, the
      // index had next_poll_at alone), every claim scanned and sorted the whole backlog: at 100,000,
      // 43.9 s of claims, summed over two workers, in a 65.6 s run. `id` matters too: requests
      // created together share a timestamp. Partial, so it stays as small as the work queue
      // however many requests completed.
      name: "IDX_servicescan_proof_request_due_order",
      on: ["next_poll_at", "id"],
      where: "status IN ('to_submit', 'submitting', 'pending') AND deleted_at IS NULL",
    },
    {
      name: "IDX_servicescan_proof_request_remote_id_unique",
      on: ["remote_id"],
      unique: true,
      where: "remote_id IS NOT NULL AND deleted_at IS NULL",
    },
    { name: "IDX_servicescan_proof_request_status", on: ["status"] },
  ])
  .cascades({ delete: ["scans"] })
