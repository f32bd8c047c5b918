import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { loadOrderServiceScanPayments, paymentText } from "../utils/order-payments"

/**
 * Records how the processor names each ServiceScan payment of these orders
 * (its transaction id and order reference), so an imported case finds its
 * order. Payments already recorded are left alone; the compensation removes
 * only the ones this run added.
 */
export const recordPaymentRefsStep = createStep(
  "servicescan-record-payment-refs",
  async (input: { order_ids: string[] }, { container }) => {
    if (!input.order_ids.length) {
      return new StepResponse(0, [] as string[])
    }
    const refs = (await loadOrderServiceScanPayments(container, input.order_ids)).flatMap((payment) => {
      const txn = paymentText(payment.data.cnp_txn_id)
      return txn
        ? [
            {
              payment_id: payment.id,
              order_id: payment.order_id,
              processor_transaction_id: txn,
              processor_order_id: paymentText(payment.data.order_id),
              scan_id: paymentText(payment.data.scan_id),
              token_fingerprint: paymentText(payment.data.token_fingerprint),
            },
          ]
        : []
    })
    // The ids this run added, and only those, are what the compensation removes.
    const added = await container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE).recordPaymentRefs(refs)
    return new StepResponse(added.length, added)
  },
  async (paymentIds, { container }) => {
    if (!paymentIds?.length) {
      return
    }
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const rows = await service.listPaymentRefs({ payment_id: paymentIds }, { select: ["id"], take: null })
    await service.deletePaymentRefs(rows.map((row) => row.id))
  }
)
