import type { Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { SERVICESCAN_MODULE } from "../modules/servicescan"
import type ServiceScanModuleService from "../modules/servicescan/service"

/** Rows deleted per statement: short transactions, never a table-long lock. */
export const CHECKOUT_SIGNAL_PURGE_BATCH = 1_000

export type CheckoutSignalPurgeReport = { deleted: number; retentionDays: number }

/**
 * The job's body, exported for tests: hard-deletes the checkout signals older
 * than the module's `checkoutSignals.retentionDays`, a batch at a time, until
 * none is left. It runs whether or not signals are still recorded: rows kept
 * while they were must still go at their time. No run lock is needed: each
 * batch skips rows another run is deleting. Logs the count, never a value.
 */
export async function purgeServiceScanCheckoutSignals(
  container: MedusaContainer,
  options: { now?: () => Date; batchSize?: number } = {}
): Promise<CheckoutSignalPurgeReport> {
  const now = (options.now ?? (() => new Date()))()
  const batch = options.batchSize ?? CHECKOUT_SIGNAL_PURGE_BATCH
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const { retentionDays } = service.getCheckoutSignalSettings()
  let deleted = 0
  for (;;) {
    const gone = await service.purgeExpiredCheckoutSignals(now, batch)
    deleted += gone
    if (gone < batch) {
      break
    }
  }
  if (deleted) {
    container
      .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
      .info(`servicescan: deleted ${deleted} checkout signals older than ${retentionDays} days`)
  }
  return { deleted, retentionDays }
}

/** Daily: checkout signals are kept `checkoutSignals.retentionDays` days (default 400; docs/privacy.md), then deleted. */
export default async function purgeServiceScanCheckoutSignalsJob(container: MedusaContainer): Promise<void> {
  await purgeServiceScanCheckoutSignals(container)
}

/** `SERVICESCAN_SIGNAL_PURGE_SCHEDULE` replaces the cron expression per process, like the other jobs' variables. */
export const config = {
  name: "servicescan-purge-checkout-signals",
  schedule: process.env.SERVICESCAN_SIGNAL_PURGE_SCHEDULE?.trim() || "40 3 * * *",
}
