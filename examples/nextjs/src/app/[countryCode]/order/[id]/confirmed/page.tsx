import type { Metadata } from "next"
import { notFound } from "next/navigation"
import { retrieveOrder } from "@lib/data/orders"
import { formatAmount } from "@lib/util/money"

export const metadata: Metadata = { title: "Order confirmed" }

export default async function OrderConfirmedPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params
  const order = await retrieveOrder(id)
  if (!order) notFound()
  return (
    <section>
      <h1>Thank you for your order</h1>
      <p>
        Order <strong data-testid="order-number">#{order.display_id}</strong> is placed. A confirmation goes to{" "}
        {order.email}.
      </p>
      <p>
        Total <strong>{formatAmount(order.total, order.currency_code)}</strong>
      </p>
    </section>
  )
}
