// src/lib/data/servicescan.ts
"use server"
import { revalidateTag } from "next/cache"
import { sdk } from "@lib/config"
import { getAuthHeaders, getCacheTag, removeCartId } from "./cookies"

export async function completeCart(cartId: string) {
  try {
    const result = await sdk.store.cart.complete(cartId, {}, await getAuthHeaders())
    revalidateTag(await getCacheTag("carts"))
    if (result.type === "order") {
      revalidateTag(await getCacheTag("orders"))
      await removeCartId()
    }
    return result
  } catch (e) {
    // Next.js strips a thrown error down to a digest in production: hand Medusa's status back as a
    // value, or every failure would look like a lost answer to the widget.
    const { status, message } = e as { status?: number; message?: string }
    return { type: "http_error" as const, status, message }
  }
}
