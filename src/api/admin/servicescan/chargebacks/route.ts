import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { recordChargebackWorkflow } from "../../../../workflows/record-chargeback"
import {
  chargebackQueryFields,
  readAdminChargeback,
  redactChargeback,
  withOrderSummaries,
  withScanSources,
} from "../chargeback-response"
import type { AdminListChargebacksType, AdminRecordChargebackType } from "../validators"

/**
 * `GET /admin/servicescan/chargebacks`: filters `status`, `order_id`,
 * `due_before`, `due_after`; search `q` (the dispute id, order id, reason,
 * or an order's number: `#1001` or `1001`); `order` sorts. Each item has
 * `order`: its `#display_id` and customer, read for the page in one query.
 */
export const GET = async (req: AuthenticatedMedusaRequest<unknown, AdminListChargebacksType>, res: MedusaResponse) => {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { status, order_id, due_before, due_after, q } = req.validatedQuery
  const filters: Record<string, unknown> = {}
  if (status?.length) {
    filters.status = status
  }
  if (order_id) {
    filters.order_id = order_id
  }
  if (due_before || due_after) {
    filters.due_by = {
      ...(due_before ? { $lt: new Date(due_before) } : {}),
      ...(due_after ? { $gte: new Date(due_after) } : {}),
    }
  }
  if (q) {
    const like = { $ilike: `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` }
    const or: Record<string, unknown>[] = [{ external_id: like }, { order_id: like }, { reason: like }, { reason_code: like }]
    // The admin knows an order by its number ("#1001"), as Medusa's own lists show it.
    const displayId = /^#?(\d{1,9})$/.exec(q)?.[1]
    if (displayId) {
      const { data: orders } = await query.graph({ entity: "order", fields: ["id"], filters: { display_id: Number(displayId) } })
      if (orders.length) {
        or.push({ order_id: orders.map((order) => order.id) })
      }
    }
    filters.$or = or
  }
  const { data, metadata } = await query.graph({
    entity: "chargeback",
    fields: chargebackQueryFields(req.queryConfig.fields),
    filters,
    pagination: req.queryConfig.pagination,
  })
  res.json({
    items: await withOrderSummaries(req.scope, await withScanSources(req.scope, data.map(redactChargeback))),
    count: metadata?.count ?? data.length,
    offset: metadata?.skip ?? req.queryConfig.pagination.skip,
    limit: metadata?.take ?? req.queryConfig.pagination.take,
  })
}

/** `POST /admin/servicescan/chargebacks`: records a chargeback for an order (idempotent by `external_id`). */
export const POST = async (req: AuthenticatedMedusaRequest<AdminRecordChargebackType>, res: MedusaResponse) => {
  const { result } = await recordChargebackWorkflow(req.scope).run({
    input: { ...req.validatedBody, source: "admin" },
  })
  const chargeback = await readAdminChargeback(req.scope, result.chargeback_id, req.queryConfig.fields)
  res.status(result.created ? 201 : 200).json({ chargeback, created: result.created })
}
