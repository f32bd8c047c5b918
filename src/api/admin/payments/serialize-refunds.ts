import type { ILockingModule } from "@medusajs/framework/types"
import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, MedusaError, Modules } from "@medusajs/framework/utils"
import { SERVICESCAN_PROVIDER_PREFIX } from "../../../workflows/utils/checkout-session"

/** How long a refund waits for the one before it on the same payment. */
const REFUND_LOCK_TIMEOUT_SECONDS = 60

/**
 * Middleware of Medusa's `POST /admin/payments/:id/refund`: refunds of one
 * ServiceScan payment run one at a time, across processes when the locking
 * provider is shared (Redis, Postgres).
 *
 * Why: the provider derives a refund's processor request id from the payment
 * (authorization, refunds recorded so far, amount), because Medusa replaces
 * its Refund record when a provider call fails, and a retry must reach the
 * processor under the same id. Two same-amount refunds started at once would
 * read the same refunds-so-far and share an id, and the processor would
 * credit once while Medusa recorded two. In a row, the second reads the
 * first's record and gets an id of its own.
 */
export async function serializeRefunds(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  let handedOn = false
  try {
    const paymentId = req.params.id
    if (!(await isServiceScanPayment(req, paymentId))) {
      handedOn = true
      return next()
    }
    const locking = req.scope.resolve<ILockingModule>(Modules.LOCKING)
    await locking.execute(
      `servicescan:refund:${paymentId}`,
      async () => {
        handedOn = true
        await new Promise<void>((resolve) => {
          res.once("close", resolve)
          next()
        })
      },
      { timeout: REFUND_LOCK_TIMEOUT_SECONDS }
    )
  } catch (error) {
    if (handedOn) {
      return
    }
    if (error instanceof Error && /timed-?out acquiring lock/i.test(error.message)) {
      return next(new MedusaError(MedusaError.Types.CONFLICT, "Another refund of this payment is still being processed"))
    }
    return next(error)
  }
}

async function isServiceScanPayment(req: MedusaRequest, paymentId: string): Promise<boolean> {
  const query = req.scope.resolve(ContainerRegistrationKeys.QUERY)
  const { data } = await query.graph({ entity: "payment", fields: ["id", "provider_id"], filters: { id: paymentId } })
  const providerId = (data[0] as { provider_id?: string } | undefined)?.provider_id
  return typeof providerId === "string" && providerId.startsWith(SERVICESCAN_PROVIDER_PREFIX)
}
