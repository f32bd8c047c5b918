import type { AuthenticatedMedusaRequest, MedusaRequest } from "@medusajs/framework/http"
import { formCustomerId } from "../../providers/servicescan/ids"

/**
 * The customer a store request is signed in as, or null for a guest.
 *
 * Medusa authenticates every `/store` request optionally (a bearer token or a
 * session cookie of a customer) before any route middleware runs, and its own
 * payment-session route takes the session's customer from the same place
 * (`req.auth_context.actor_id`). The id goes through the same bound the
 * provider applies to the hosted form's `customerId` (`formCustomerId`), so
 * that what a middleware compares here is what the session recorded.
 */
export function storeCustomerId(req: MedusaRequest): string | null {
  const auth = (req as MedusaRequest & Partial<Pick<AuthenticatedMedusaRequest, "auth_context">>).auth_context
  if (auth?.actor_type !== "customer" || !auth.actor_id) {
    return null
  }
  return formCustomerId(auth.actor_id) ?? null
}
