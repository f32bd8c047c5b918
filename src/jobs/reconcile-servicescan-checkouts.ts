import type { ILockingModule, Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { SERVICESCAN_MODULE } from "../modules/servicescan"
import type ServiceScanModuleService from "../modules/servicescan/service"
import { reconcileCheckoutAttemptsWorkflow } from "../workflows/reconcile-checkout-attempts"

const RUN_LOCK_KEY = "servicescan:reconcile-checkouts"
const RUN_LOCK_EXPIRE_SECONDS = 15 * 60

export type ReconcileRunReport = {
  skipped?: "locked"
  settled: number
  abandoned: number
  reconciled: number
  errors: number
}

/**
 * The job's body, exported for tests: pages through checkout attempts old
 * enough to settle and hands each page to `reconcileCheckoutAttemptsWorkflow`.
 * A page that settles nothing (the processor is unreachable) ends the run;
 * its attempts stay open for the next one.
 */
export async function reconcileServiceScanCheckouts(
  container: MedusaContainer,
  options: { now?: () => Date } = {}
): Promise<ReconcileRunReport> {
  const clock = options.now ?? (() => new Date())
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const report: ReconcileRunReport = { settled: 0, abandoned: 0, reconciled: 0, errors: 0 }

  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  const ownerId = `servicescan-reconcile-${randomUUID()}`
  try {
    await locking.acquire(RUN_LOCK_KEY, { ownerId, expire: RUN_LOCK_EXPIRE_SECONDS })
  } catch {
    return { ...report, skipped: "locked" }
  }
  try {
    const { checkout_reconcile_after_ms: after, page_size: pageSize } = service.getSettings()
    for (;;) {
      const now = clock()
      const attempts = await service.listUnreconciledCheckoutAttempts(new Date(now.getTime() - after), pageSize)
      if (!attempts.length) {
        break
      }
      const { result } = await reconcileCheckoutAttemptsWorkflow(container).run({
        input: {
          attempts: attempts.map((attempt) => ({ id: attempt.id, payment_session_id: attempt.payment_session_id })),
          now: now.toISOString(),
        },
      })
      report.settled += result.settled
      report.abandoned += result.abandoned
      report.reconciled += result.reconciled
      report.errors += attempts.length - result.reconciled
      if (result.reconciled === 0) {
        logger.warn(
          `servicescan: ${attempts.length} abandoned checkout sessions could not be settled at the processor; the next run tries again`
        )
        break
      }
    }
  } finally {
    await locking.release(RUN_LOCK_KEY, { ownerId }).catch(() => undefined)
  }
  if (report.abandoned) {
    logger.info(
      `servicescan: reconciled ${report.reconciled} checkout attempts (${report.abandoned} abandoned sessions checked at the processor)`
    )
  }
  return report
}

/**
 * Every 15 minutes: settles cart completions attempted more than
 * `checkoutReconcileAfterMs` ago (default an hour). Most were paid, and only
 * get marked; a session left unpaid after a lost answer has its
 * authorization, if the processor holds one, released.
 */
export default async function reconcileServiceScanCheckoutsJob(container: MedusaContainer): Promise<void> {
  await reconcileServiceScanCheckouts(container)
}

/** `SERVICESCAN_RECONCILE_SCHEDULE` replaces the cron expression per process, like the sync job's `SERVICESCAN_SYNC_SCHEDULE`. */
export const config = {
  name: "servicescan-reconcile-checkouts",
  schedule: process.env.SERVICESCAN_RECONCILE_SCHEDULE?.trim() || "*/15 * * * *",
}
