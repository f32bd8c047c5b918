import "server-only"
import type { HttpTypes } from "@medusajs/types"
import { sdk } from "@lib/config"
import { getRegion } from "./regions"

/** Published products with their prices in the region of `countryCode`. */
export async function listProducts(countryCode: string): Promise<HttpTypes.StoreProduct[]> {
  const region = await getRegion(countryCode)
  if (!region) return []
  const { products } = await sdk.store.product.list({ region_id: region.id, fields: "*variants.calculated_price" })
  return products
}

export async function getProduct(countryCode: string, handle: string): Promise<HttpTypes.StoreProduct | undefined> {
  const region = await getRegion(countryCode)
  if (!region) return undefined
  const { products } = await sdk.store.product.list({
    handle,
    region_id: region.id,
    fields: "*variants.calculated_price",
  })
  return products[0]
}
