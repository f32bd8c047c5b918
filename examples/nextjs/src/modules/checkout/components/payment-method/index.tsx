"use client"
import type { HttpTypes } from "@medusajs/types"
import { useState, useTransition } from "react"
import { initiatePaymentSession } from "@lib/data/cart"

/**
 * Choosing how to pay, as in Medusa's starter: picking the card starts a ServiceScan payment
 * session (the provider answers with what the card form needs). The server action revalidates the
 * cart, so the page re-renders with the session and shows the card form: rendered in the browser,
 * with no server HTML of its own.
 */
export default function PaymentMethod({ cart }: { cart: HttpTypes.StoreCart }) {
  const [pending, startTransition] = useTransition()
  const [error, setError] = useState<string>()
  const chooseCard = () =>
    startTransition(async () => {
      setError(undefined)
      try {
        await initiatePaymentSession(cart, { provider_id: "pp_servicescan_servicescan" })
      } catch {
        setError("Card payments are not available right now. Please try again.")
      }
    })
  return (
    <>
      <button onClick={chooseCard} disabled={pending}>
        Pay by card
      </button>
      {error && <p role="alert">{error}</p>}
    </>
  )
}
