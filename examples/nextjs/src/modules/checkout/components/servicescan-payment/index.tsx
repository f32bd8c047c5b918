// src/modules/checkout/components/servicescan-payment/index.tsx
"use client"
import { useRef, useState } from "react"
import { useRouter } from "next/navigation"
import type { HttpTypes } from "@medusajs/types"
import { ServiceScanCardForm, payWithServiceScan, type ServiceScanCardFormHandle } from "medusa-servicescan-storefront"
import { initiatePaymentSession } from "@lib/data/cart" // the starter's server action
import { completeCart } from "@lib/data/servicescan" // server action, below

// Turns the status `completeCart` hands back into the error the SDK itself would throw.
const completeCartOrThrow = async (cartId: string) => {
  const result = await completeCart(cartId)
  if (result.type === "http_error") throw Object.assign(new Error(result.message), { status: result.status })
  return result
}
const sdk = { store: { payment: { initiatePaymentSession }, cart: { complete: completeCartOrThrow } } }

export default function ServiceScanPayment({ cart }: { cart: HttpTypes.StoreCart }) {
  const form = useRef<ServiceScanCardFormHandle>(null)
  const [error, setError] = useState<string>()
  const router = useRouter()
  const session = cart.payment_collection?.payment_sessions?.find((s) => s.provider_id === "pp_servicescan_servicescan")

  async function placeOrder() {
    const result = await payWithServiceScan(sdk, cart, { form: form.current! })
    if (result.type === "order")
      return router.push(`/${result.order.shipping_address?.country_code}/order/${result.order.id}/confirmed`)
    // Validation problems are already announced next to the form; show declines, rejections and network errors.
    setError(result.error.kind === "validation" ? undefined : result.error.message)
  }

  return (
    <>
      <ServiceScanCardForm ref={form} session={session} />
      {error && <p role="alert">{error}</p>}
      <button onClick={placeOrder} disabled={!session}>Place order</button>
    </>
  )
}
