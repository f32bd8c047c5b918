import "server-only"
import { cookies } from "next/headers"

// Cookies in the shape of Medusa's starter: the cart id, a customer's token when logged in, and a
// per-visitor id that scopes the cache tags (src/middleware.ts sets it).

const options = {
  maxAge: 60 * 60 * 24 * 7,
  httpOnly: true,
  sameSite: "strict" as const,
  secure: process.env.NODE_ENV === "production",
}

export async function getAuthHeaders(): Promise<{ authorization: string } | Record<string, never>> {
  const token = (await cookies()).get("_medusa_jwt")?.value
  return token ? { authorization: `Bearer ${token}` } : {}
}

/** A cache tag private to this visitor, e.g. `carts-<id>`; empty without the cookie. */
export async function getCacheTag(tag: string): Promise<string> {
  const cacheId = (await cookies()).get("_medusa_cache_id")?.value
  return cacheId ? `${tag}-${cacheId}` : ""
}

export async function getCacheOptions(tag: string): Promise<{ tags: string[] } | Record<string, never>> {
  const cacheTag = await getCacheTag(tag)
  return cacheTag ? { tags: [cacheTag] } : {}
}

export async function getCartId(): Promise<string | undefined> {
  return (await cookies()).get("_medusa_cart_id")?.value
}

export async function setCartId(cartId: string): Promise<void> {
  ;(await cookies()).set("_medusa_cart_id", cartId, options)
}

export async function removeCartId(): Promise<void> {
  ;(await cookies()).set("_medusa_cart_id", "", { maxAge: -1 })
}
