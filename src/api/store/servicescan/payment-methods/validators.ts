import { z } from "@medusajs/framework/zod"

/** `:id` of `DELETE /store/servicescan/payment-methods/:id`: a saved card's id. */
export const StoreSavedCardParams = z.object({
  id: z.string().regex(/^sscard_[A-Za-z0-9_-]{22}$/, { error: "id must be the id of a saved card (sscard_...)" }),
})
