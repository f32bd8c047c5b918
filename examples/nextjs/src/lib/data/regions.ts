import "server-only"
import type { HttpTypes } from "@medusajs/types"
import { sdk } from "@lib/config"

/** The region that ships to `countryCode` (the first path segment, as in Medusa's starter). */
export async function getRegion(countryCode: string): Promise<HttpTypes.StoreRegion | undefined> {
  const { regions } = await sdk.store.region.list()
  const code = countryCode.toLowerCase()
  return regions.find((region) => region.countries?.some((country) => country.iso_2 === code))
}
