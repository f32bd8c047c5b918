import type { ILockingModule, IPaymentModuleService } from "@medusajs/framework/types"
import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import { guardCartCompletionWorkflow } from "../../../workflows/guard-cart-completion"
import {
  CheckoutRefusal,
  CheckoutSession,
  hasRivalSessions,
  NEW_SESSION_MESSAGES,
  pickServiceScanSession,
  refusalName,
} from "../../../workflows/utils/checkout-session"

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
    const { session, rival } = await loadCheckoutSession(req, cartId)
    // A cart that already became an order gets it back from Medusa, however many sessions it holds.
    if (rival && !(await isCompleted(req, cartId))) {
      // Before any lock or record: nothing was charged, and a new session is all the cart needs.
      refusal = "rivalSessions"
    } else if (!session) {
      handedOn = true
      return next()
    } else {
      // A form id pays once, whichever session carries it; a saved card pays in as many sessions as its
      // customer starts, each once, so its session is what one completion at a time is about.
      const formId = session.data?.form_id
      const key = `servicescan:checkout:${typeof formId === "string" ? formId.toLowerCase() : session.id}`
      const locking = req.scope.resolve<ILockingModule>(Modules.LOCKING)
      await locking.execute(
        key,
        async () => {
          const { result } = await guardCartCompletionWorkflow(req.scope).run({ input: { cart_id: cartId, session } })
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

/**
 * The session the completion will authorize, read on every checkout: the cart's payment
 * collection from the link's own table, then its sessions from the Payment Module (two queries,
 * where a graph from the cart took four).
 */
async function loadCheckoutSession(
  req: MedusaRequest,
  cartId: string
): Promise<{ session: CheckoutSession | null; rival: boolean }> {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { data: links } = await query.graph({
    entity: "cart_payment_collection",
    fields: ["payment_collection_id"],
    filters: { cart_id: cartId },
  })
  const collectionId = (links[0] as { payment_collection_id?: string } | undefined)?.payment_collection_id
  if (!collectionId) {
    return { session: null, rival: false }
  }
  const payment = req.scope.resolve<IPaymentModuleService>(Modules.PAYMENT)
  const sessions = await payment.listPaymentSessions(
    { payment_collection_id: collectionId },
    // In no set order, as Medusa's completion reads them: with two it could charge, the cart is refused (hasRivalSessions).
    { select: ["id", "provider_id", "status", "data", "payment.id", "payment.canceled_at"], relations: ["payment"] }
  )
  const read = sessions as unknown as CheckoutSession[]
  return { session: pickServiceScanSession(read), rival: hasRivalSessions(read) }
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
