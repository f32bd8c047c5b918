import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { ce3AddressKey, Ce3Result, Ce3Transaction, evaluateCompellingEvidence, isCe3Applicable } from "../../lib/compelling-evidence"
import { SERVICESCAN_MODULE } from "../../modules/servicescan"
import type ServiceScanModuleService from "../../modules/servicescan/service"
import type { CardHistoryPayment } from "../../modules/servicescan/repositories/compelling-evidence"
import { formatMoney } from "../../processors/money"

type Address = {
  address_1?: string | null
  address_2?: string | null
  postal_code?: string | null
  city?: string | null
  province?: string | null
  country_code?: string | null
}

type OrderForCe3 = {
  id: string
  display_id: number | null
  currency_code: string
  customer_id: string | null
  customer?: { has_account: boolean | null } | null
  shipping_address?: Address | null
  payment_collections?: ({ payments?: ({ id: string; amount: number; captured_at?: string | Date | null; canceled_at?: string | Date | null } | null)[] } | null)[]
}

/** What CE 3.0 is decided for: a case's (or a chargeback's) order, disputed transaction and reason. */
export type CompellingEvidenceSubject = {
  order_id: string
  processor_transaction_id: string | null
  reason_code: string | null
  card_type: string | null
}

/**
 * Decides Visa Compelling Evidence 3.0 for a dispute (src/lib/compelling-evidence.ts):
 * the plugin's own records give the disputed payment, the earlier payments on
 * the same saved card and each checkout's IP address and device id; Medusa's
 * orders (Query) give the order number, the amount, the customer account and
 * the shipping address. Reads nothing for a case CE 3.0 does not apply to.
 */
export async function evaluateCompellingEvidenceFor(container: MedusaContainer, subject: CompellingEvidenceSubject): Promise<Ce3Result> {
  const base = { reasonCode: subject.reason_code, cardType: subject.card_type }
  if (!isCe3Applicable(subject.reason_code, subject.card_type)) {
    return evaluateCompellingEvidence({ ...base, disputed: null, savedCard: false, candidates: [] })
  }
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const history = await service.readCardHistory({ order_id: subject.order_id, processor_transaction_id: subject.processor_transaction_id })
  const orderIds = [...new Set([subject.order_id, ...history.priors.map((prior) => prior.order_id)])]
  const query = container.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "order",
    fields: [
      "id",
      "display_id",
      "currency_code",
      "customer_id",
      "customer.has_account",
      "shipping_address.address_1",
      "shipping_address.address_2",
      "shipping_address.postal_code",
      "shipping_address.city",
      "shipping_address.province",
      "shipping_address.country_code",
      "payment_collections.payments.id",
      "payment_collections.payments.amount",
      "payment_collections.payments.captured_at",
      "payment_collections.payments.canceled_at",
    ],
    filters: { id: orderIds },
  })
  const orders = new Map((data as OrderForCe3[]).map((order) => [order.id, order]))
  const transaction = (payment: CardHistoryPayment, disputed?: boolean): Ce3Transaction => {
    const order = orders.get(payment.order_id)
    const paid = (order?.payment_collections ?? []).flatMap((c) => c?.payments ?? []).find((p) => p?.id === payment.payment_id)
    return {
      paymentId: payment.payment_id,
      orderId: payment.order_id,
      displayId: order?.display_id ?? null,
      date: payment.created_at.toISOString(),
      amount: order && paid ? formatMoney(paid.amount, order.currency_code) : null,
      ipAddress: payment.ip_address,
      deviceId: payment.device_id,
      // A login: the customer signed in at checkout, or the order's customer has an account (not a guest's record).
      customerAccount: payment.customer_id ?? (order?.customer?.has_account ? order.customer_id : null),
      shippingAddress: ce3AddressKey(order?.shipping_address),
      shippingAddressText: addressText(order?.shipping_address),
      ...(disputed === undefined ? {} : { disputed }),
    }
  }
  return evaluateCompellingEvidence({
    ...base,
    disputed: history.disputed ? transaction(history.disputed) : null,
    savedCard: history.saved_card,
    // Only money that moved is an earlier transaction to Visa: an authorization that was voided or
    // never captured is not one, and a pack that listed it would claim what did not happen.
    candidates: history.priors.filter((prior) => settled(orders.get(prior.order_id), prior.payment_id)).map((prior) => transaction(prior, prior.disputed)),
  })
}

/** Whether the order's payment was captured and not canceled. */
function settled(order: OrderForCe3 | undefined, paymentId: string): boolean {
  const paid = (order?.payment_collections ?? []).flatMap((c) => c?.payments ?? []).find((p) => p?.id === paymentId)
  return Boolean(paid?.captured_at) && !paid?.canceled_at
}

function addressText(address: Address | null | undefined): string | null {
  if (!address?.address_1?.trim()) return null
  const parts = [address.address_1, address.address_2, [address.postal_code, address.city].filter(Boolean).join(" "), address.province, address.country_code?.toUpperCase()]
  return parts.map((part) => part?.trim()).filter(Boolean).join(", ")
}
