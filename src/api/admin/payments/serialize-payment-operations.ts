import type { ILockingModule } from "@medusajs/framework/types"
import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import { PAYMENT_LOCK_TIMEOUT_SECONDS, paymentLockKey } from "../../../providers/servicescan/payment-lock"
import { SERVICESCAN_PROVIDER_PREFIX } from "../../../workflows/utils/checkout-session"

/**
 * Middleware of Medusa's `POST /admin/payments/:id/capture` and `/refund`: operations on one
 * ServiceScan payment run one at a time, across processes when the locking provider is shared.
 */
export async function serializePaymentOperations(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  let keys: string[]
  try {
    keys = (await servicescanPayments(req, { id: req.params.id })).map(paymentLockKey)
  } catch (error) {
    return next(error)
  }
  return holdWhileAnswering(req, res, next, keys)
}

/**
 * Middleware of Medusa's `POST /admin/orders/:id/cancel`, which refunds what each payment
 * captured (cancelOrderWorkflow): the same lock as the payment routes, on every ServiceScan payment
 * of the order, so a refund started from the payment route at the same moment cannot share an id
 * with the cancel's.
 */
export async function serializeOrderPaymentOperations(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  let keys: string[]
  try {
    const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
    const { data } = await query.graph({
      entity: "order_payment_collection",
      fields: ["payment_collection_id"],
      filters: { order_id: req.params.id },
    })
    const collectionIds = data
      .map((row: { payment_collection_id?: string }) => row.payment_collection_id)
      .filter((id): id is string => typeof id === "string")
    const paymentIds = collectionIds.length ? await servicescanPayments(req, { payment_collection_id: collectionIds }) : []
    // One order: always the same order of keys, so two cancels never wait on each other crosswise.
    keys = paymentIds.map(paymentLockKey).sort()
  } catch (error) {
    return next(error)
  }
  return holdWhileAnswering(req, res, next, keys)
}

/** Hands the request on while holding `keys`, until the answer has gone out; no keys, no lock. */
async function holdWhileAnswering(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction, keys: string[]) {
  if (keys.length === 0) {
    return next()
  }
  let handedOn = false
  try {
    const locking = req.scope.resolve<ILockingModule>(Modules.LOCKING)
    await locking.execute(
      keys,
      async () => {
        handedOn = true
        await new Promise<void>((resolve) => {
          res.once("close", resolve)
          next()
        })
      },
      { timeout: PAYMENT_LOCK_TIMEOUT_SECONDS }
    )
  } catch (error) {
    if (handedOn) {
      // The lock's release failed after Medusa answered: it expires by itself.
      return
    }
    if (error instanceof Error && /timed-?out acquiring lock/i.test(error.message)) {
      return next(new MedusaError(MedusaError.Types.CONFLICT, "Another capture or refund of this payment is still being processed"))
    }
    return next(error)
  }
}

async function servicescanPayments(
  req: MedusaRequest,
  filters: { id: string } | { payment_collection_id: string[] }
): Promise<string[]> {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "payment", fields: ["id", "provider_id"], filters })
  return data
    .filter((payment: { provider_id?: string }) => payment.provider_id?.startsWith(SERVICESCAN_PROVIDER_PREFIX))
    .map((payment: { id: string }) => payment.id)
}
