import { ContainerRegistrationKeys, MedusaError } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"

/** Where a scan of a chargeback's evidence came from, when not from the disputed order itself. */
export type ScanSource = { scan_id: string; order_id: string; order_display_id: number | null }

type ChargebackScans = { id: string; order_id: string; proof_requests?: ({ scan_ids?: string[] | null } | null)[] | null }

/**
 * For each chargeback, each scan its proof requests carry that was taken for
 * another order (the scan behind a saved card, earlier payments with the same
 * card), with that order; by chargeback id. One read of the payment refs and
 * one of the orders for all the chargebacks. Reads only.
 *
 * @throws MedusaError NOT_FOUND when `require_all` and a chargeback does not exist.
 */
export const loadScanSourcesStep = createStep(
  "servicescan-load-scan-sources",
  async (input: { chargeback_ids: string[]; require_all?: boolean }, { container }) => {
    const query = container.resolve(ContainerRegistrationKeys.QUERY)
    const ids = [...new Set(input.chargeback_ids)]
    if (!ids.length) {
      return new StepResponse<Record<string, ScanSource[]>>({})
    }
    const { data } = await query.graph({
      entity: "chargeback",
      fields: ["id", "order_id", "proof_requests.scan_ids"],
      filters: { id: ids },
    })
    const chargebacks = data as ChargebackScans[]
    const missing = ids.find((id) => !chargebacks.some((chargeback) => chargeback.id === id))
    if (input.require_all && missing) {
      throw new MedusaError(MedusaError.Types.NOT_FOUND, `Chargeback with id: ${missing} was not found`)
    }
    const scanIdsOf = (chargeback: ChargebackScans) =>
      (chargeback.proof_requests ?? []).flatMap((request) => request?.scan_ids ?? []).map((id) => id.toLowerCase())
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const refs = await service.listScanOrders(chargebacks.flatMap(scanIdsOf))
    const borrowed = new Map(
      chargebacks.map((chargeback) => {
        const scans = new Set(scanIdsOf(chargeback))
        return [chargeback.id, refs.filter((ref) => scans.has(ref.scan_id.toLowerCase()) && ref.order_id !== chargeback.order_id)]
      })
    )
    const orderIds = [...new Set([...borrowed.values()].flat().map((ref) => ref.order_id))]
    const displayIds = new Map<string, number | null>()
    if (orderIds.length) {
      const { data: orders } = await query.graph({ entity: "order", fields: ["id", "display_id"], filters: { id: orderIds } })
      for (const order of orders as { id: string; display_id?: number | null }[]) {
        displayIds.set(order.id, order.display_id ?? null)
      }
    }
    return new StepResponse<Record<string, ScanSource[]>>(
      Object.fromEntries(
        [...borrowed].map(([id, list]) => [
          id,
          list.map((ref) => ({ scan_id: ref.scan_id, order_id: ref.order_id, order_display_id: displayIds.get(ref.order_id) ?? null })),
        ])
      )
    )
  }
)
