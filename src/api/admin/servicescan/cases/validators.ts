import { z } from "@medusajs/framework/zod"
import { createFindParams, createSelectParams } from "@medusajs/medusa/api/utils/validators"
import { DISPUTE_CASE_STATUSES } from "../../../../modules/servicescan/types"
import { MAX_LIST_LIMIT, QueryInteger } from "../validators"

/** `?status=unmatched` (or several, comma-separated), `?q=` searches case id, order references and reason. */
export const AdminListDisputeCases = createFindParams({ limit: 20, offset: 0 }).extend({
  // Bounded like the chargeback list: one page is never the whole table.
  offset: QueryInteger("offset", 0, 1_000_000_000, 0),
  limit: QueryInteger("limit", 1, MAX_LIST_LIMIT, 20),
  status: z
    .preprocess(
      (value) => (typeof value === "string" ? value.split(",").map((s) => s.trim()).filter(Boolean) : value),
      z.array(z.enum(DISPUTE_CASE_STATUSES, { error: `status must be one of ${DISPUTE_CASE_STATUSES.join(", ")}` }))
    )
    .optional(),
  q: z.string().trim().max(100, { error: "q must be at most 100 characters" }).optional(),
})
export type AdminListDisputeCasesType = z.infer<typeof AdminListDisputeCases>

export const AdminGetDisputeCase = createSelectParams()

export const AdminAssignDisputeCase = z.object({
  order_id: z.string().trim().min(1, { error: "order_id must be an order id" }).max(255),
})
export type AdminAssignDisputeCaseType = z.infer<typeof AdminAssignDisputeCase>

export const AdminRespondToDispute = z.object({
  action: z.enum(["represent", "accept"], { error: 'action must be "represent" or "accept"' }),
})
export type AdminRespondToDisputeType = z.infer<typeof AdminRespondToDispute>

/** `:id` of the case routes: Medusa ids are letters, digits and `_`; anything else cannot exist. */
export const DisputeCaseIdParam = z
  .string()
  .regex(/^[A-Za-z0-9_]{1,100}$/, { error: "id must be a dispute case id, e.g. sscase_01JB…" })
