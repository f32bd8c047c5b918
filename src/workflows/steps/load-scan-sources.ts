import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

/** Where a scan of a chargeback's evidence came from, when not from the disputed order itself. */
export type ScanSource = { scan_id: string; order_id: string; order_display_id: number | null }

/**
 * For each scan a chargeback's proof requests carry that was taken for
 * another order (the scan behind a saved card, earlier payments with the same
 * card), that order. Reads only.
 */
export const loadScanSourcesStep = createStep(
  "servicescan-load-scan-sources",
  async (input: { chargeback_id: string }, { container }) => {
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const { data } = await query.graph({
      entity: "chargeback",
      fields: ["id", "order_id", "proof_requests.scan_ids"],
      filters: { id: input.chargeback_id },
    })
    const chargeback = data[0] as { order_id: string; proof_requests?: ({ scan_ids?: string[] | null } | null)[] } | undefined
    if (!chargeback) {
      throw new MedusaError(MedusaError.Types.NOT_FOUND, `Chargeback with id: ${input.chargeback_id} was not found`)
    }
    const scanIds = (chargeback.proof_requests ?? []).flatMap((request) => request?.scan_ids ?? [])
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const elsewhere = (await service.listScanOrders(scanIds)).filter((ref) => ref.order_id !== chargeback.order_id)
    if (!elsewhere.length) {
      return new StepResponse<ScanSource[]>([])
    }
    const { data: orders } = await query.graph({
      entity: "order",
      fields: ["id", "display_id"],
      filters: { id: [...new Set(elsewhere.map((ref) => ref.order_id))] },
    })
    const displayIds = new Map((orders as { id: string; display_id?: number | null }[]).map((order) => [order.id, order.display_id ?? null]))
    return new StepResponse<ScanSource[]>(
      elsewhere.map((ref) => ({ scan_id: ref.scan_id, order_id: ref.order_id, order_display_id: displayIds.get(ref.order_id) ?? null }))
    )
  }
)
