import type { IPaymentModuleService, MedusaContainer } from "@medusajs/framework/types"
import type { MedusaRequest } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import type { CheckoutSession } from "../../../workflows/utils/checkout-session"

/**
 * The payment sessions of a cart, as the completion guard and the
 * shipping-address guard read them: the cart's payment collection from the
 * link's own table, then its sessions from the Payment Module (two queries,
 * where a graph from the cart took four). In no set order, as Medusa's
 * completion reads them. Empty when the cart has no payment collection.
 */
export async function loadCartSessions(scope: MedusaContainer, cartId: string): Promise<CheckoutSession[]> {
  const query = scope.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["payment_collection_id"],
    filters: { cart_id: cartId },
  })
  const collectionId = (links[0] as { payment_collection_id?: string } | undefined)?.payment_collection_id
  if (!collectionId) {
    return []
  }
  const payment = scope.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const sessions = await payment.listPaymentSessions(
    { payment_collection_id: collectionId },
    {
      select: ["id", "provider_id", "payment_collection_id", "status", "data", "payment.id", "payment.canceled_at"],
      relations: ["payment"],
    }
  )
  return sessions.map((session) => ({
    id: session.id,
    provider_id: session.provider_id,
    payment_collection_id: session.payment_collection_id,
    status: session.status,
    data: session.data ?? null,
    payment: session.payment ? { id: session.payment.id, canceled_at: session.payment.canceled_at ?? null } : null,
  }))
}

/** One read per completion request: the velocity limits and the completion guard both need it, before their locks. */
const sessionsOfRequest = new WeakMap<MedusaRequest, Promise<CheckoutSession[]>>()

/**
 * The sessions of the cart `req` completes, read once per request: the
 * velocity middleware and the completion guard run one after the other on
 * `POST /store/carts/:id/complete`, and each read them before taking its
 * lock, so the second read could only see the same sessions a few ms later.
 * Sharing it saves two queries a completion, whichever provider pays
 * (measured: bench/README.md, "Checkout: where the added CPU goes").
 */
export function completionCartSessions(req: MedusaRequest): Promise<CheckoutSession[]> {
  let sessions = sessionsOfRequest.get(req)
  if (!sessions) {
    sessions = loadCartSessions(req.scope, req.params.id)
    sessionsOfRequest.set(req, sessions)
  }
  return sessions
}
