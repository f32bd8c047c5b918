import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { paymentSessionIdFor } from "../../providers/servicescan/ids"

export type CaseToMatch = {
  id: string
  case_id: string
  processor_transaction_id: string | null
  processor_order_id: string | null
}

export type CaseMatch = {
  id: string
  case_id: string
  order_id: string | null
  /** The disputed payment's scan id, when its reference was recorded: the very evidence the case needs. */
  scan_id: string | null
  note: string | null
}

type SessionOrder = {
  id: string
  payment?: { id: string; data?: Record<string, unknown> | null } | null
  payment_collection?: { order?: { id: string } | null } | null
}

/**
 * Reads only: the order of this store that each case's disputed transaction
 * paid. First by the transaction's processor id, then by the order reference
 * it carried (our request id), through the references recorded when orders
 * were placed; for older orders, the reference names the payment session it
 * was derived from.
 */
export const matchDisputeCasesStep = createStep(
  "servicescan-match-dispute-cases",
  async (cases: CaseToMatch[], { container }) => {
    if (!cases.length) {
      return new StepResponse([] as CaseMatch[])
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const found = await service.findPaymentRefs(cases)
    const missing = cases.filter((c) => !found.has(c.case_id))
    const sessionIds = new Map(
      missing.flatMap((c) => {
        const sessionId = c.processor_order_id ? paymentSessionIdFor(c.processor_order_id) : undefined
        return sessionId ? [[sessionId, c.case_id] as const] : []
      })
    )
    if (sessionIds.size) {
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data } = await query.graph({
        entity: "payment_session",
        fields: ["id", "payment.id", "payment.data", "payment_collection.order.id"],
        filters: { id: [...sessionIds.keys()] },
      })
      for (const session of data as SessionOrder[]) {
        const orderId = session.payment_collection?.order?.id
        const caseId = sessionIds.get(session.id)
        if (orderId && session.payment && caseId) {
          const scanId = session.payment.data?.scan_id
          found.set(caseId, { order_id: orderId, payment_id: session.payment.id, scan_id: typeof scanId === "string" ? scanId : null })
        }
      }
    }
    return new StepResponse(
      cases.map((c): CaseMatch => {
        const match = found.get(c.case_id)
        return match
          ? { id: c.id, case_id: c.case_id, order_id: match.order_id, scan_id: match.scan_id, note: null }
          : {
              id: c.id,
              case_id: c.case_id,
              order_id: null,
              scan_id: null,
              note: `No payment of this store carries the processor transaction ${c.processor_transaction_id ?? "(none given)"} or the order reference ${c.processor_order_id ?? "(none given)"}`,
            }
      })
    )
  }
)
