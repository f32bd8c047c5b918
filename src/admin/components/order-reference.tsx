import { Text } from "@medusajs/ui"
import type { KeyboardEvent, MouseEvent } from "react"
import { Link } from "react-router-dom"
import { useServiceScanTranslation } from "../lib/i18n"
import type { Chargeback, OrderSummary } from "../lib/types"

/** "#1001", as Medusa's own lists name an order; the raw id only when the backend sent no number. */
export function orderLabel(chargeback: Pick<Chargeback, "order_id" | "order">): string {
  const displayId = chargeback.order?.display_id
  return typeof displayId === "number" ? `#${displayId}` : chargeback.order_id
}

/** The customer as the order names them: their name, else the order's email; null when neither is known. */
export function customerLabel(order: OrderSummary | null | undefined): string | null {
  return order?.customer_name || order?.email || null
}

const stop = (event: MouseEvent | KeyboardEvent) => event.stopPropagation()

/**
 * An order as the admin shows it: `#display_id`, linking to the order, and
 * (with `withCustomer`) the customer under it. A link inside a clickable row
 * stops the row's own click, so it opens the order, not the dispute.
 */
export const OrderReference = ({
  chargeback,
  withCustomer = true,
}: {
  chargeback: Pick<Chargeback, "order_id" | "order">
  withCustomer?: boolean
}) => {
  const { t } = useServiceScanTranslation()
  const label = orderLabel(chargeback)
  const customer = customerLabel(chargeback.order)
  return (
    <span className="inline-flex min-w-0 flex-col">
      <Link
        to={`/orders/${chargeback.order_id}`}
        className="text-ui-fg-interactive hover:text-ui-fg-interactive-hover w-fit"
        onClick={stop}
        onKeyDown={stop}
        aria-label={t("list.orderLabel", { order: label })}
        title={chargeback.order_id}
      >
        {label}
      </Link>
      {withCustomer && chargeback.order !== undefined && (
        <Text as="span" size="xsmall" leading="compact" className="text-ui-fg-subtle truncate" data-testid="order-customer">
          {chargeback.order === null ? t("list.orderGone") : (customer ?? t("list.guest"))}
        </Text>
      )}
    </span>
  )
}
