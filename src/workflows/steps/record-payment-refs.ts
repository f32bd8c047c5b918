import { createStep, StepResponse } from "@medusajs/framework/workflows-sdk"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import { loadOrderServiceScanPayments, paymentText } from "../utils/order-payments"

/**
 * Records how each ServiceScan payment of these orders is named: by the
 * processor (its transaction id and order reference), so an imported case
 * finds its order; and, on its checkout's signals (CheckoutSignal), by
 * Medusa's payment id, so the CE 3.0 evaluation finds a payment's IP and
 * device. Both from one read of the payments (it runs for every order).
 * Payments already recorded are left alone; the compensation undoes only
 * what this run added.
 */
export const recordPaymentRefsStep = createStep(
  "servicescan-record-payment-refs",
  async (input: { order_ids: string[] }, { container }) => {
    if (!input.order_ids.length) {
      return new StepResponse(0, { refs: [] as string[], signals: [] as string[] })
    }
    const payments = await loadOrderServiceScanPayments(container, input.order_ids)
    const refs = payments.flatMap((payment) => {
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
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    // The ids this run added, and only those, are what the compensation removes.
    const added = await service.recordPaymentRefs(refs)
    const signals = await service.linkCheckoutSignalPayments(
      payments.flatMap((payment) =>
        payment.payment_session_id ? [{ payment_id: payment.id, payment_session_id: payment.payment_session_id }] : []
      )
    )
    return new StepResponse(added.length, { refs: added, signals })
  },
  async (undo, { container }) => {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    if (undo?.signals.length) {
      await service.unlinkCheckoutSignalPayments(undo.signals)
    }
    if (!undo?.refs.length) {
      return
    }
    const rows = await service.listPaymentRefs({ payment_id: undo.refs }, { select: ["id"], take: null })
    await service.deletePaymentRefs(rows.map((row) => row.id))
  }
)
