import "server-only"
import Medusa from "@medusajs/js-sdk"

/**
 * The Medusa client. Only server code (Server Components and server actions) uses it, so the
 * storefront's browser never talks to Medusa directly and both settings are read when the server
 * starts, not baked in at build time: one `next build` serves any store. (Medusa's starter reads
 * the key from NEXT_PUBLIC_MEDUSA_PUBLISHABLE_KEY, which Next.js inlines at build time.)
 */
export const sdk = new Medusa({
  baseUrl: process.env.MEDUSA_BACKEND_URL || "http://localhost:9000",
  publishableKey: process.env.MEDUSA_PUBLISHABLE_KEY,
  debug: process.env.NODE_ENV === "development",
})
