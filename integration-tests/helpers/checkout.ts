import type { AxiosInstance } from "axios"
import { SERVICESCAN_PROVIDER_ID, SeededStore } from "./store"
import { submitTestForm } from "./sandbox"

export type StoreCheckout = {
  cartId: string
  /** The payment provider the session was started with (helpers/processors.ts `providerId`). */
  providerId: string
  paymentCollectionId: string
  /** The session data the browser received when the shopper picked the provider. */
  initialSessionData: Record<string, unknown>
  /** The raw JSON the store API sent to the browser, for secret scans. */
  browserPayloads: string[]
}

/**
 * Walks a shopper through the store API up to the payment step: a cart in the
 * region of `currency`, an email, a payment collection, and a session with the
 * provider (what a storefront does before it renders the hosted form).
 */
export async function startCheckout(
  api: AxiosInstance,
  store: SeededStore,
  { currency = "usd", providerId = SERVICESCAN_PROVIDER_ID, quantity = 1 } = {}
): Promise<StoreCheckout> {
  const regionId = store.regions[currency]
  const browserPayloads: string[] = []
  const { data: cartBody } = await api.post(
    "/store/carts",
    { region_id: regionId, email: "shopper@example.com", items: [{ variant_id: store.variantId, quantity }] },
    store.storeHeaders
  )
  browserPayloads.push(JSON.stringify(cartBody))
  const cartId: string = cartBody.cart.id
  const { data: pcBody } = await api.post(
    "/store/payment-collections",
    { cart_id: cartId },
    store.storeHeaders
  )
  const paymentCollectionId: string = pcBody.payment_collection.id
  const { data: sessionBody } = await api.post(
    `/store/payment-collections/${paymentCollectionId}/payment-sessions`,
    { provider_id: providerId },
    store.storeHeaders
  )
  browserPayloads.push(JSON.stringify(sessionBody))
  const session = sessionBody.payment_collection.payment_sessions.find(
    (s: { provider_id: string }) => s.provider_id === providerId
  )
  return { cartId, providerId, paymentCollectionId, initialSessionData: session.data, browserPayloads }
}

/** Sends the hosted form's result back, as the storefront widget does. */
export async function sendFormResult(
  api: AxiosInstance,
  store: SeededStore,
  checkout: StoreCheckout,
  data: { form_id: string; response_code: string }
): Promise<Record<string, unknown>> {
  const { data: body } = await api.post(
    `/store/payment-collections/${checkout.paymentCollectionId}/payment-sessions`,
    { provider_id: checkout.providerId, data },
    store.storeHeaders
  )
  checkout.browserPayloads.push(JSON.stringify(body))
  return body.payment_collection.payment_sessions.find((s: { provider_id: string }) => s.provider_id === checkout.providerId).data
}

export type CompleteResult =
  | { type: "order"; order: { id: string; total: number } }
  | { type: "cart"; error: { message: string; type: string; name: string } }

export async function completeCart(
  api: AxiosInstance,
  store: SeededStore,
  checkout: StoreCheckout
): Promise<CompleteResult> {
  const { data } = await api.post(
    `/store/carts/${checkout.cartId}/complete`,
    {},
    { ...store.storeHeaders, validateStatus: () => true }
  )
  checkout.browserPayloads.push(JSON.stringify(data))
  return data
}

/** A whole checkout with a card typed into the hosted form. */
export async function checkoutWithCard(
  api: AxiosInstance,
  store: SeededStore,
  card: { number: string; cvv?: string; expiry?: string },
  options: { currency?: string; scanned?: boolean; quantity?: number; providerId?: string } = {}
): Promise<{ checkout: StoreCheckout; formId: string; result: CompleteResult }> {
  const checkout = await startCheckout(api, store, options)
  const { formId, responseCode } = await submitTestForm(card, { scanned: options.scanned })
  await sendFormResult(api, store, checkout, { form_id: formId, response_code: responseCode })
  const result = await completeCart(api, store, checkout)
  return { checkout, formId, result }
}
