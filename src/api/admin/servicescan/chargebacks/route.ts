import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { recordChargebackWorkflow } from "../../../../workflows/record-chargeback"
import { chargebackQueryFields, readAdminChargeback, redactChargeback, withScanSources } from "../chargeback-response"
import type { AdminListChargebacksType, AdminRecordChargebackType } from "../validators"

/** `GET /admin/servicescan/chargebacks`: filters `status`, `order_id`, `due_before`, search `q`. */
export const GET = async (req: AuthenticatedMedusaRequest<unknown, AdminListChargebacksType>, res: MedusaResponse) => {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { status, order_id, due_before, q } = req.validatedQuery
  const filters: Record<string, unknown> = {}
  if (status?.length) {
    filters.status = status
  }
  if (order_id) {
    filters.order_id = order_id
  }
  if (due_before) {
    filters.due_by = { $lt: new Date(due_before) }
  }
  if (q) {
    const like = { $ilike: `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` }
    filters.$or = [{ external_id: like }, { order_id: like }, { reason: like }, { reason_code: like }]
  }
  const { data, metadata } = await query.graph({
    entity: "chargeback",
    fields: chargebackQueryFields(req.queryConfig.fields),
    filters,
    pagination: req.queryConfig.pagination,
  })
  res.json({
    items: await withScanSources(req.scope, data.map(redactChargeback)),
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
