import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import type { AdminListDisputeCasesType } from "./validators"

/** `GET /admin/servicescan/cases`: the processor's cases; `?status=unmatched` is the admin's to-do list. */
export const GET = async (req: AuthenticatedMedusaRequest<unknown, AdminListDisputeCasesType>, res: MedusaResponse) => {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { status, q } = req.validatedQuery
  const filters: Record<string, unknown> = {}
  if (status?.length) {
    filters.status = status
  }
  if (q) {
    const like = { $ilike: `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` }
    filters.$or = [
      { case_id: like },
      { processor_transaction_id: like },
      { processor_order_id: like },
      { reason_description: like },
      { reason_code: like },
    ]
  }
  const { data, metadata } = await query.graph({
    entity: "dispute_case",
    fields: req.queryConfig.fields,
    filters,
    pagination: req.queryConfig.pagination,
  })
  res.json({
    items: data,
    count: metadata?.count ?? data.length,
    offset: metadata?.skip ?? req.queryConfig.pagination.skip,
    limit: metadata?.take ?? req.queryConfig.pagination.take,
  })
}
