import { z } from "@medusajs/framework/zod"
import { defaultCurrencies } from "@medusajs/framework/utils"
import { createSelectParams } from "@medusajs/medusa/api/utils/validators"
import { isUuidV4 } from "../../../lib/uuid"
import { CHARGEBACK_OUTCOMES, CHARGEBACK_STATUSES } from "../../../modules/servicescan/types"
import { jsonBoundsProblem, LONE_SURROGATE } from "../../utils/json-bounds"

// Medusa prints a format or custom issue's own message, so each one names its field.

/** C0 and C1 control characters and DEL: never part of an id or a search. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
/** In free text, tabs and line breaks are fine; NUL (which PostgreSQL text cannot hold) and the rest are not. */
const TEXT_CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/

export const uuidV4 = (field: string) =>
  z.string().trim().refine(isUuidV4, { error: `${field} must be a UUIDv4` })

/** An identifier from elsewhere (a dispute id, an order id): printable, bounded. */
export const Identifier = (field: string, max = 255) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .min(1, { error: `${field} must not be empty` })
    .max(max, { error: `${field} must be at most ${max} characters` })
    .refine((value) => !CONTROL.test(value), { error: `${field} must not contain control characters` })
    .refine((value) => !LONE_SURROGATE.test(value), { error: `${field} must be valid Unicode (it has an unpaired surrogate)` })

/** Free text (a reason): line breaks allowed, NUL and other control characters not. */
export const FreeText = (field: string, max: number) =>
  z
    .string({ error: `${field} must be a string` })
    .trim()
    .max(max, { error: `${field} must be at most ${max} characters` })
    .refine((value) => !TEXT_CONTROL.test(value), { error: `${field} must not contain NUL or control characters` })
    .refine((value) => !LONE_SURROGATE.test(value), { error: `${field} must be valid Unicode (it has an unpaired surrogate)` })

/** `metadata`: a JSON object of bounded depth and size that PostgreSQL can store. */
export const METADATA_BOUNDS = { maxDepth: 8, maxBytes: 16 * 1024 }
export const Metadata = z
  .record(z.string(), z.unknown(), { error: "metadata must be a JSON object" })
  .superRefine((value, ctx) => {
    const problem = jsonBoundsProblem("metadata", value, METADATA_BOUNDS)
    if (problem) {
      ctx.addIssue({ code: "custom", message: problem })
    }
  })

/** At most 13 integer digits and 4 decimals: every ISO 4217 exponent, and amounts a bank could owe. */
const DECIMAL = /^\d{1,13}(\.\d{1,4})?$/
const AMOUNT_FORMAT = 'amount must be a positive decimal number in the currency\'s major unit (at most 13 digits before the point and 4 after), e.g. "10.50"'

/**
 * Amounts in the currency's major unit, like every Medusa amount; a string
 * keeps its exact decimals. A number is judged by its shortest spelling, so
 * `1e308` is refused like the string "1e308". Whether it fits the order (its
 * currency's precision, its total) is the recording workflow's check.
 */
export const Amount = z
  .union([z.number(), z.string()], { error: AMOUNT_FORMAT })
  .transform((value) => (typeof value === "number" ? String(value) : value.trim()))
  .refine((value) => DECIMAL.test(value), { error: AMOUNT_FORMAT })
  .refine((value) => /[1-9]/.test(value), { error: "amount must be greater than 0" })

const CURRENCIES = new Set(Object.keys(defaultCurrencies).map((code) => code.toLowerCase()))

export const CurrencyCode = z
  .string({ error: 'currency_code must be an ISO 4217 code, e.g. "usd"' })
  .trim()
  .regex(/^[a-zA-Z]{3}$/, { error: 'currency_code must be an ISO 4217 code, e.g. "usd"' })
  .transform((code) => code.toLowerCase())
  .refine((code) => CURRENCIES.has(code), { error: "currency_code is not an ISO 4217 currency Medusa knows" })

export const DueBy = z.iso
  .datetime({ offset: true, error: "due_by must be an ISO 8601 date-time, e.g. 2026-12-01T00:00:00Z" })
  .nullish()

/** The fields a chargeback is recorded with, shared by the admin API and the webhook. */
export const ChargebackFields = {
  external_id: Identifier("external_id"),
  order_id: Identifier("order_id"),
  amount: Amount,
  currency_code: CurrencyCode,
  reason: FreeText("reason", 255).nullish(),
  reason_code: FreeText("reason_code", 64).nullish(),
  due_by: DueBy,
  metadata: Metadata.nullish(),
  scan_ids: z.array(uuidV4("each of scan_ids")).max(100, { error: "scan_ids may list at most 100 scan ids" }).optional(),
}

export const AdminRecordChargeback = z.object(ChargebackFields)
export type AdminRecordChargebackType = z.infer<typeof AdminRecordChargeback>

export const AdminAttachScanIds = z.object({
  scan_ids: z
    .array(uuidV4("each of scan_ids"))
    .min(1, { error: "scan_ids must list at least one scan id" })
    .max(100, { error: "scan_ids may list at most 100 scan ids" }),
})
export type AdminAttachScanIdsType = z.infer<typeof AdminAttachScanIds>

export const AdminCheckChargeback = z.object({
  resubmit: z.boolean({ error: "resubmit must be true or false" }).optional(),
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

/** A query-string integer: digits only (`-1`, `1.5`, `1e3` are refused, not read as something else). */
export const QueryInteger = (field: string, min: number, max: number, fallback: number) =>
  z
    .union([z.string(), z.number()], { error: `${field} must be an integer from ${min} to ${max}` })
    .optional()
    .transform((value) => (value === undefined ? String(fallback) : String(value)))
    .refine((value) => /^\d{1,9}$/.test(value) && Number(value) >= min && Number(value) <= max, {
      error: `${field} must be an integer from ${min} to ${max}`,
    })
    .transform(Number)

/** Columns a list may be ordered by (`-` for descending). */
export const CHARGEBACK_SORT_FIELDS = ["created_at", "updated_at", "due_by", "amount", "status", "external_id", "order_id"] as const
const SORT = new Set<string>(CHARGEBACK_SORT_FIELDS)

/** The largest page of the admin lists (chargebacks, cases). */
export const MAX_LIST_LIMIT = 100

export const AdminListChargebacks = createSelectParams().extend({
  fields: z.string().max(4000, { error: "fields is too long" }).optional(),
  offset: QueryInteger("offset", 0, 1_000_000_000, 0),
  limit: QueryInteger("limit", 1, MAX_LIST_LIMIT, 20),
  order: z
    .string({ error: "order must be a field name, e.g. -created_at" })
    .optional()
    .default("-created_at")
    .refine((value) => SORT.has(value.replace(/^-/, "")), {
      error: `order must be one of ${CHARGEBACK_SORT_FIELDS.join(", ")}, optionally with a leading -`,
    }),
  q: Identifier("q", 200).optional(),
  status: StatusList.optional(),
  order_id: Identifier("order_id").optional(),
  due_before: z.iso
    .datetime({ offset: true, error: "due_before must be an ISO 8601 date-time" })
    .optional(),
  due_after: z.iso
    .datetime({ offset: true, error: "due_after must be an ISO 8601 date-time" })
    .optional(),
})
export type AdminListChargebacksType = z.infer<typeof AdminListChargebacks>

export const AdminGetChargeback = createSelectParams().extend({
  fields: z.string().max(4000, { error: "fields is too long" }).optional(),
})

export const AdminGetScanImage = z.object({
  download: z
    .enum(["0", "1", "true", "false"], { error: "download must be 1 or 0" })
    .optional()
    .transform((value) => value === "1" || value === "true"),
})
export type AdminGetScanImageType = z.infer<typeof AdminGetScanImage>

/** `:id` of the chargeback routes: Medusa ids are letters, digits and `_`; anything else cannot exist. */
export const ChargebackIdParam = z
  .string()
  .regex(/^[A-Za-z0-9_]{1,100}$/, { error: "id must be a chargeback id, e.g. chbk_01JB…" })
