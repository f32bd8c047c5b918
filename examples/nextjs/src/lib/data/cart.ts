"use server"
import type { HttpTypes } from "@medusajs/types"
import { revalidateTag } from "next/cache"
import { redirect } from "next/navigation"
import { sdk } from "@lib/config"
import { medusaError } from "@lib/util/medusa-error"
import { getAuthHeaders, getCacheOptions, getCacheTag, getCartId, setCartId } from "./cookies"
import { getRegion } from "./regions"

// The cart's server actions, in the shape of Medusa's starter (src/lib/data/cart.ts there): the cart
// id lives in an httpOnly cookie, reads are cached under the visitor's "carts" tag, and every
// change revalidates that tag, which also re-renders the page the action was called from.

/** The visitor's cart (Medusa's default store fields: items, addresses, payment sessions, totals). */
export async function retrieveCart(): Promise<HttpTypes.StoreCart | null> {
  const id = await getCartId()
  if (!id) return null
  return sdk.client
    .fetch<HttpTypes.StoreCartResponse>(`/store/carts/${id}`, {
      headers: await getAuthHeaders(),
      next: await getCacheOptions("carts"),
      cache: "force-cache",
    })
    .then(({ cart }) => cart)
    .catch(() => null)
}

async function revalidateCarts() {
  const tag = await getCacheTag("carts")
  if (tag) revalidateTag(tag)
}

/** Adds a variant to the visitor's cart (creating it in the country's region), then opens the checkout. */
export async function addToCart(formData: FormData): Promise<void> {
  const countryCode = String(formData.get("countryCode") || "")
  const variantId = String(formData.get("variantId") || "")
  const region = await getRegion(countryCode)
  if (!region) throw new Error(`No region ships to "${countryCode}"`)
  const headers = await getAuthHeaders()
  let cart = await retrieveCart()
  if (!cart || cart.completed_at || cart.region_id !== region.id) {
    cart = (await sdk.store.cart.create({ region_id: region.id }, {}, headers).catch(medusaError)).cart
    await setCartId(cart.id)
  }
  await sdk.store.cart.createLineItem(cart.id, { variant_id: variantId, quantity: 1 }, {}, headers).catch(medusaError)
  await revalidateCarts()
  redirect(`/${countryCode}/checkout`)
}

/** The checkout's first step: email and shipping address (also the billing address here). */
export async function setAddresses(formData: FormData): Promise<void> {
  const cartId = await getCartId()
  if (!cartId) throw new Error("No cart to check out")
  const field = (name: string) => String(formData.get(name) || "")
  const countryCode = field("country_code")
  const address = {
    first_name: field("first_name"),
    last_name: field("last_name"),
    address_1: field("address_1"),
    city: field("city"),
    postal_code: field("postal_code"),
    country_code: countryCode,
  }
  await sdk.store.cart
    .update(cartId, { email: field("email"), shipping_address: address, billing_address: address }, {}, await getAuthHeaders())
    .catch(medusaError)
  await revalidateCarts()
  redirect(`/${countryCode}/checkout?step=payment`)
}

/** Starts a payment session with a provider (the shopper picked a method, or the widget sends the card's form id). */
export async function initiatePaymentSession(
  cart: HttpTypes.StoreCart,
  data: HttpTypes.StoreInitializePaymentSession,
): Promise<HttpTypes.StorePaymentCollectionResponse> {
  const response = await sdk.store.payment
    .initiatePaymentSession(cart, data, {}, await getAuthHeaders())
    .catch(medusaError)
  await revalidateCarts()
  return response
}
