import type { ILockingModule } from "@medusajs/framework/types"
import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import { deletePaymentSessionsWorkflow } from "@medusajs/medusa/core-flows"
import { checkoutLockKey, CheckoutSession, SERVICESCAN_PROVIDER_PREFIX, sessionSavedCard } from "../../../workflows/utils/checkout-session"
import { storeCustomerId } from "../../utils/store-customer"
import { loadCartSessions } from "./cart-sessions"

/** How long a change of address waits for a completion of the same saved-card session. */
const LOCK_TIMEOUT_SECONDS = 30

/**
 * Middleware of Medusa's `POST /store/carts/:id`, the store route that changes
 * a cart's shipping address (creating a cart sets one on a cart with no
 * session yet; no other store route writes it). A session that pays with a
 * saved card is its owner's charge authority, and a cart id is all the store
 * API asks for a change of address: anyone holding it could redirect the
 * goods and leave the owner to pay for them. So when the body carries
 * `shipping_address` and the request is not signed in as the card's owner,
 * the cart's saved-card sessions are dropped (through Medusa's own workflow,
 * so the provider releases anything the processor may hold) before the change
 * is applied; the owner chooses the card again, signed in, to pay. The owner's
 * own change keeps the session. The drop waits for a completion of the same
 * session (the completion guard's lock), so the two never interleave.
 */
export async function guardSavedCardShippingAddress(req: MedusaRequest, _res: MedusaResponse, next: MedusaNextFunction) {
  try {
    const body = req.body as Record<string, unknown> | undefined
    if (!body || typeof body !== "object" || !("shipping_address" in body)) {
      return next()
    }
    const requester = storeCustomerId(req)
    const cartId = req.params.id
    const foreign = (sessions: CheckoutSession[]) =>
      sessions.filter((session) => {
        const card = session.provider_id.startsWith(SERVICESCAN_PROVIDER_PREFIX) && !session.payment ? sessionSavedCard(session) : null
        return card && (!requester || card.customer_id !== requester)
      })
    const dropped = foreign(await loadCartSessions(req.scope, cartId))
    const locking = req.scope.resolve<ILockingModule>(Modules.LOCKING)
    for (const session of dropped) {
      await locking.execute(
        checkoutLockKey(session),
        async () => {
          // Read again under the lock: a completion may have paid with it meanwhile (then the cart is an order).
          const still = foreign(await loadCartSessions(req.scope, cartId)).filter((candidate) => candidate.id === session.id)
          if (still.length) {
            await deletePaymentSessionsWorkflow(req.scope).run({ input: { ids: [session.id] } })
          }
        },
        { timeout: LOCK_TIMEOUT_SECONDS }
      )
    }
    next()
  } catch (error) {
    req.scope
      .resolve(ContainerRegistrationKeys.LOGGER)
      .warn(`servicescan: saved-card session of cart ${req.params.id} not dropped on a change of address: ${error instanceof Error ? error.message : String(error)}`)
    // Fail closed: without the drop, the change of address does not go through either.
    next(
      new MedusaError(
        MedusaError.Types.CONFLICT,
        "The shipping address cannot be changed while the saved card chosen for this cart is being reset. Please try again in a moment."
      )
    )
  }
}
