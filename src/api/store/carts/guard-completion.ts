import type { ILockingModule } from "@medusajs/framework/types"
import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import { guardCartCompletionWorkflow } from "../../../workflows/guard-cart-completion"
import {
  checkoutLockKey,
  CheckoutRefusal,
  CheckoutSession,
  hasRivalSessions,
  NEW_SESSION_MESSAGES,
  pickServiceScanSession,
  refusalName,
} from "../../../workflows/utils/checkout-session"
import { storeCustomerId } from "../../utils/store-customer"
import { completionCartSessions } from "./cart-sessions"

/** How long a completion waits for another completion with the same form id. */
const FORM_LOCK_TIMEOUT_SECONDS = 30

/**
 * Middleware of Medusa's `POST /store/carts/:id/complete`. For a cart paid
 * through ServiceScan it runs `guardCartCompletionWorkflow` and then lets
 * Medusa's route complete the cart, holding a lock on the hosted form id
 * until the answer has gone out: two carts completing with the same form at
 * once are handled one after the other, so the second sees that the form
 * already paid. A refusal is answered like Medusa answers a declined payment
 * (200 with the cart and an error the storefront shows), with the error's
 * `name` telling the storefront to start a new payment session.
 */
export async function guardCartCompletion(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  let handedOn = false
  let refusal: CheckoutRefusal | null = null
  try {
    const cartId = req.params.id
    const { session, rival } = await loadCheckoutSession(req)
    // A cart that already became an order gets it back from Medusa, however many sessions it holds.
    if (rival && !(await isCompleted(req, cartId))) {
      // Before any lock or record: nothing was charged, and a new session is all the cart needs.
      refusal = "rivalSessions"
    } else if (!session) {
      handedOn = true
      return next()
    } else {
      const locking = req.scope.resolve<ILockingModule>(Modules.LOCKING)
      await locking.execute(
        checkoutLockKey(session),
        async () => {
          const { result } = await guardCartCompletionWorkflow(req.scope).run({
            input: {
              cart_id: cartId,
              session,
              customer_id: storeCustomerId(req),
              // `req.ip` honours Medusa's `trust proxy` (one hop, set by its express loader); the
              // X-Forwarded-For header itself is never read here: anyone can write it. Exactly one proxy is
              // assumed in front (docs/privacy.md says what the IP is worth otherwise).
              request: { ip: req.ip ?? null, user_agent: req.get("user-agent") ?? null },
            },
          })
          if (result.refusal) {
            refusal = result.refusal
            return
          }
          handedOn = true
          await new Promise<void>((resolve) => {
            res.once("close", resolve)
            next()
          })
        },
        { timeout: FORM_LOCK_TIMEOUT_SECONDS }
      )
    }
    if (refusal) {
      // Shaped like Medusa's own answer to a declined payment; `name` tells the storefront what to do next.
      res.status(200).json({
        type: "cart",
        cart: await refetchCart(req, req.params.id),
        error: {
          message: NEW_SESSION_MESSAGES[refusal],
          name: refusalName(refusal),
          type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
        },
      })
    }
  } catch (error) {
    if (handedOn) {
      // The lock's release failed after Medusa answered: it expires by itself.
      return
    }
    if (error instanceof Error && /timed-?out acquiring lock/i.test(error.message)) {
      return next(new MedusaError(MedusaError.Types.CONFLICT, "Another payment with these card details is still being processed"))
    }
    return next(error)
  }
}

/** The session the completion will authorize, read on every checkout, and whether another could be charged instead. */
async function loadCheckoutSession(
  req: MedusaRequest
): Promise<{ session: CheckoutSession | null; rival: boolean }> {
  const sessions = await completionCartSessions(req)
  // With two sessions Medusa could charge, the cart is refused (hasRivalSessions).
  return { session: pickServiceScanSession(sessions), rival: hasRivalSessions(sessions) }
}

async function isCompleted(req: MedusaRequest, cartId: string): Promise<boolean> {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "cart", fields: ["completed_at"], filters: { id: cartId } })
  return !!(data[0] as { completed_at?: unknown } | undefined)?.completed_at
}

async function refetchCart(req: MedusaRequest, cartId: string): Promise<unknown> {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({
    entity: "cart",
    fields: ["*", "items.*", "payment_collection.*", "payment_collection.payment_sessions.*"],
    filters: { id: cartId },
  })
  return data[0] ?? null
}
