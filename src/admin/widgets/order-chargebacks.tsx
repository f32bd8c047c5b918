import { defineWidgetConfig } from "@medusajs/admin-sdk"
import type { AdminOrder, DetailWidgetProps } from "@medusajs/framework/types"
import { OrderChargebacks } from "../components/order-chargebacks"

/**
 * Chargebacks on the order page. Zone `order.details` is the main column: in
 * Medusa 2.21 the `.before`/`.after` suffixes are deprecated (admins place
 * widgets themselves through layout configurations), and the evidence with
 * its images needs the main column's width.
 */
const OrderChargebacksWidget = ({ data }: DetailWidgetProps<AdminOrder>) => <OrderChargebacks order={data} />

export const config = defineWidgetConfig({
  zone: "order.details",
  id: "servicescan:order-chargebacks",
})

export default OrderChargebacksWidget
