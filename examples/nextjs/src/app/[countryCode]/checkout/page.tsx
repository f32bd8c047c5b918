import type { Metadata } from "next"
import Link from "next/link"
import { retrieveCart } from "@lib/data/cart"
import { formatAmount } from "@lib/util/money"
import AddressForm from "@modules/checkout/components/address-form"
import PaymentMethod from "@modules/checkout/components/payment-method"
import ServiceScanPayment from "@modules/checkout/components/servicescan-payment"

export const metadata: Metadata = { title: "Checkout" }

type Props = {
  params: Promise<{ countryCode: string }>
  searchParams: Promise<{ step?: string }>
}

/**
 * The checkout, a Server Component: the address step, then the payment step. When the cart already
 * has a ServiceScan session (a reload, or a visit after choosing the card), the card form's
 * containers are part of this page's server HTML and React hydrates them.
 */
export default async function CheckoutPage({ params, searchParams }: Props) {
  const [{ countryCode }, { step }] = await Promise.all([params, searchParams])
  const cart = await retrieveCart()
  if (!cart?.items?.length) {
    return (
      <section>
        <h1>Your cart is empty</h1>
        <Link href={`/${countryCode}`}>Continue shopping</Link>
      </section>
    )
  }
  const paymentStep = step === "payment" && !!cart.email && !!cart.shipping_address
  const session = cart.payment_collection?.payment_sessions?.find((s) => s.provider_id === "pp_servicescan_servicescan")

  return (
    <>
      <section>
        <h1>Checkout</h1>
        <ul>
          {cart.items.map((item) => (
            <li key={item.id}>
              {item.quantity} × {item.product_title} {formatAmount(item.unit_price, cart.currency_code)}
            </li>
          ))}
        </ul>
        <p>
          Total <strong>{formatAmount(cart.total, cart.currency_code)}</strong>
        </p>
      </section>
      {paymentStep ? (
        <section>
          <h2>Payment</h2>
          <p>
            {cart.email}, {cart.shipping_address?.address_1}, {cart.shipping_address?.city}{" "}
            <Link href={`/${countryCode}/checkout?step=address`}>Edit</Link>
          </p>
          {session ? <ServiceScanPayment cart={cart} /> : <PaymentMethod cart={cart} />}
        </section>
      ) : (
        <AddressForm cart={cart} countryCode={countryCode} />
      )}
    </>
  )
}
