import type { AuthenticatedMedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"

/** `GET /admin/servicescan/cases/:id`: one processor case with its activities. */
export const GET = async (req: AuthenticatedMedusaRequest, res: MedusaResponse) => {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const {
    data: [dispute_case],
  } = await query.graph({ entity: "dispute_case", fields: req.queryConfig.fields, filters: { id: req.params.id } })
  if (!dispute_case) {
    throw new MedusaError(MedusaError.Types.NOT_FOUND, `Dispute case ${req.params.id} was not found`)
  }
  res.json({ dispute_case })
}
