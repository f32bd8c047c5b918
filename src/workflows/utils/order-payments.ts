import type { IPaymentModuleService, MedusaContainer, PaymentDTO } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { SERVICESCAN_PROVIDER_PREFIX } from "./checkout-session"

/** A text field of payment data: the string, or null when it is absent, empty or not a string. */
export function paymentText(value: unknown): string | null {
  return typeof value === "string" && value ? value : null
}

/** A payment made through one of this plugin's providers, and the order it pays for. */
export type OrderServiceScanPayment = {
  order_id: string
  id: string
  provider_id: string
  /** The session it was made from: what names the checkout's signals (CheckoutSignal). */
  payment_session_id: string | null
  data: Record<string, unknown>
}

/**
 * The ServiceScan payments of these orders, canceled ones included, read from
 * the order ↔ payment collection link's table and then from the Payment
 * Module. Two subscribers read this for every placed order, whichever provider
 * paid it. A graph from the order took 7.5-10.5 ms of CPU a read, because the
 * Order Module assembles the order first; these two reads measured 4.5-6.4 ms
 * (bench/README, "The order's payments, read twice for every order").
 */
export async function loadOrderServiceScanPayments(
  container: MedusaContainer,
  orderIds: string[]
): Promise<OrderServiceScanPayment[]> {
  if (orderIds.length === 0) {
    return []
  }
  const { data: links } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
    entity: "order_payment_collection",
    fields: ["order_id", "payment_collection_id"],
    filters: { order_id: orderIds },
  })
  const orderOf = new Map(
    (links as { order_id: string; payment_collection_id: string }[]).map((link) => [link.payment_collection_id, link.order_id])
  )
  if (orderOf.size === 0) {
    return []
  }
  const collections = await container
    .resolve<IPaymentModuleService>(Modules.PAYMENT)
    .listPaymentCollections(
      { id: [...orderOf.keys()] },
      {
        select: ["id", "payments.id", "payments.provider_id", "payments.payment_session_id", "payments.data"],
        relations: ["payments"],
        take: null,
      }
    )
  return collections.flatMap((collection) => {
    const orderId = orderOf.get(collection.id)
    return (collection.payments ?? []).flatMap((payment) =>
      orderId && payment.provider_id.startsWith(SERVICESCAN_PROVIDER_PREFIX) && payment.data
        ? [
            {
              order_id: orderId,
              id: payment.id,
              provider_id: payment.provider_id,
              // The column is selected above; Medusa's PaymentDTO names only the relation.
              payment_session_id: paymentText((payment as PaymentDTO & { payment_session_id?: unknown }).payment_session_id),
              data: payment.data,
            },
          ]
        : []
    )
  })
}
