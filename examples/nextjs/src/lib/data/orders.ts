import "server-only"
import type { HttpTypes } from "@medusajs/types"
import { sdk } from "@lib/config"
import { getAuthHeaders } from "./cookies"

export async function retrieveOrder(id: string): Promise<HttpTypes.StoreOrder | null> {
  return sdk.store.order
    .retrieve(id, { fields: "*items,*shipping_address,*payment_collections" }, await getAuthHeaders())
    .then(({ order }) => order)
    .catch(() => null)
}
