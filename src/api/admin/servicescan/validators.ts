import { z } from "@medusajs/framework/zod"
import { createFindParams, createSelectParams } from "@medusajs/medusa/api/utils/validators"
import { CHARGEBACK_OUTCOMES, CHARGEBACK_STATUSES } from "../../../modules/servicescan/types"

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i

/** Medusa prints a format issue's own message, so each one names its field. */
export const uuidV4 = (field: string) =>
  z.string().trim().regex(UUID_V4, { error: `${field} must be a UUIDv4` })

/** Amounts in the currency's major unit, like every Medusa amount; a string keeps its exact decimals. */
export const Amount = z.union([
  z.number().nonnegative({ error: "amount must not be negative" }),
  z.string().trim().regex(/^\d+(\.\d+)?$/, { error: "amount must be a decimal number, e.g. \"10.50\"" }),
])

export const CurrencyCode = z
  .string()
  .trim()
  .regex(/^[a-zA-Z]{3}$/, { error: "currency_code must be an ISO 4217 code, e.g. \"usd\"" })
  .transform((code) => code.toLowerCase())

export const DueBy = z.iso
  .datetime({ offset: true, error: "due_by must be an ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z" })
  .nullish()

/** The fields a chargeback is recorded with, shared by the admin API and the webhook. */
export const ChargebackFields = {
  external_id: z.string().trim().min(1).max(255),
  order_id: z.string().trim().min(1).max(255),
  amount: Amount,
  currency_code: CurrencyCode,
  reason: z.string().trim().max(255).nullish(),
  reason_code: z.string().trim().max(64).nullish(),
  due_by: DueBy,
  metadata: z.record(z.string(), z.unknown()).nullish(),
  scan_ids: z.array(uuidV4("each of scan_ids")).max(100).optional(),
}

export const AdminRecordChargeback = z.object(ChargebackFields)
export type AdminRecordChargebackType = z.infer<typeof AdminRecordChargeback>

export const AdminAttachScanIds = z.object({
  scan_ids: z.array(uuidV4("each of scan_ids")).min(1).max(100),
})
export type AdminAttachScanIdsType = z.infer<typeof AdminAttachScanIds>

export const AdminCheckChargeback = z.object({
  resubmit: z.boolean().optional(),
})
export type AdminCheckChargebackType = z.infer<typeof AdminCheckChargeback>

export const AdminSetChargebackOutcome = z.object({
  outcome: z.enum(CHARGEBACK_OUTCOMES),
})
export type AdminSetChargebackOutcomeType = z.infer<typeof AdminSetChargebackOutcome>

/** `?status=open&status=won` or `?status=open,won`. */
const StatusList = z.preprocess(
  (value) => (typeof value === "string" ? value.split(",").map((s) => s.trim()).filter(Boolean) : value),
  z.array(z.enum(CHARGEBACK_STATUSES))
)

export const AdminListChargebacks = createFindParams({ offset: 0, limit: 20, order: "-created_at" }).extend({
  q: z.string().trim().min(1).max(200).optional(),
  status: StatusList.optional(),
  order_id: z.string().trim().min(1).optional(),
  due_before: z.iso
    .datetime({ offset: true, error: "due_before must be an ISO 8601 date-time" })
    .optional(),
})
export type AdminListChargebacksType = z.infer<typeof AdminListChargebacks>

export const AdminGetChargeback = createSelectParams()

export const AdminGetScanImage = z.object({
  download: z
    .enum(["0", "1", "true", "false"], { error: "download must be 1 or 0" })
    .optional()
    .transform((value) => value === "1" || value === "true"),
})
export type AdminGetScanImageType = z.infer<typeof AdminGetScanImage>
