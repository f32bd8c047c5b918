import { model } from "@medusajs/framework/utils"
import { CHARGEBACK_SOURCES, CHARGEBACK_STATUSES } from "../types"
import { DisputeCase } from "./dispute-case"
import { ProofRequest } from "./proof-request"

/** The prefix of its ids (rows inserted in bulk get theirs from `newEntityId`). */
export const CHARGEBACK_ID_PREFIX = "chbk"

/**
 * A chargeback (dispute) on an order, as the processor reported it. The order
 * is reachable both ways: `order_id` here for filtering and the module link
 * (src/links/order-chargeback.ts) for `query.graph` from the order.
 */
export const Chargeback = model
  .define(
    { name: "chargeback", tableName: "servicescan_chargeback" },
    {
      id: model.id({ prefix: CHARGEBACK_ID_PREFIX }).primaryKey(),
      /** The processor's dispute id: what makes recording idempotent. */
      external_id: model.text(),
      order_id: model.text(),
      amount: model.bigNumber(),
      currency_code: model.text(),
      reason: model.text().nullable(),
      reason_code: model.text().nullable(),
      due_by: model.dateTime().nullable(),
      status: model.enum([...CHARGEBACK_STATUSES]).default("open"),
      source: model.enum([...CHARGEBACK_SOURCES]).default("api"),
      /** Scan ids an admin attached by hand, on top of the order's payments'. */
      extra_scan_ids: model.array().default([]),
      metadata: model.json().nullable(),
      proof_requests: model.hasMany(() => ProofRequest, { mappedBy: "chargeback" }),
      /** The processor's case, when the chargeback was imported from (or assigned to) one. */
      dispute_case: model.hasOne(() => DisputeCase, { mappedBy: "chargeback" }).nullable(),
    }
  )
  .indexes([
    { name: "IDX_servicescan_chargeback_external_id_unique", on: ["external_id"], unique: true },
    { name: "IDX_servicescan_chargeback_order_id", on: ["order_id"] },
    { name: "IDX_servicescan_chargeback_status_due_by", on: ["status", "due_by"] },
  ])
  .cascades({ delete: ["proof_requests"] })
