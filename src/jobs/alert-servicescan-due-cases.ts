import type { Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { SERVICESCAN_MODULE } from "../modules/servicescan"
import type ServiceScanModuleService from "../modules/servicescan/service"
import { alertDueDisputeCasesWorkflow } from "../workflows/alert-due-dispute-cases"
import { dayOf } from "./_run-dispute-case-import"

const DAY_MS = 24 * 60 * 60 * 1000

export type DueCaseAlertReport = { alerted: number }

/**
 * The job's body, exported for tests: announces every case still waiting for
 * our answer whose reply-by day is within the module's `alerts.dueSoonDays`
 * (today included), page by page, once per case ever. No run lock is needed:
 * each page's claim is one statement that skips rows another run holds.
 */
export async function alertDueServiceScanCases(
  container: MedusaContainer,
  options: { now?: () => Date } = {}
): Promise<DueCaseAlertReport> {
  const now = (options.now ?? (() => new Date()))()
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const { dueSoonDays } = service.getAlertSettings()
  const { page_size: limit } = service.getSettings()
  const today = dayOf(now)
  const until = dayOf(new Date(Date.parse(`${today}T00:00:00Z`) + dueSoonDays * DAY_MS))
  const report: DueCaseAlertReport = { alerted: 0 }
  for (;;) {
    const { result } = await alertDueDisputeCasesWorkflow(container).run({
      input: { today, until, at: now.toISOString(), limit },
    })
    report.alerted += result.alerted
    if (result.alerted < limit) {
      break
    }
  }
  if (report.alerted) {
    container
      .resolve<Logger>(ContainerRegistrationKeys.LOGGER)
      .info(`servicescan: ${report.alerted} chargeback cases are due within ${dueSoonDays} days`)
  }
  return report
}

/** Every hour: cases due within `alerts.dueSoonDays` become `servicescan.case.due_soon`, and so an alert in the admin's bell. */
export default async function alertServiceScanDueCasesJob(container: MedusaContainer): Promise<void> {
  await alertDueServiceScanCases(container)
}

/**
 * `SERVICESCAN_DUE_SOON_SCHEDULE` replaces the cron expression (six fields for
 * seconds), like the other jobs' variables. Unset, every hour: short on
 * purpose (Medusa's in-memory workflow engine runs at once a schedule whose
 * next run is more than 24.8 days away), and a case is announced once anyway.
 */
export const config = {
  name: "servicescan-alert-due-cases",
  schedule: process.env.SERVICESCAN_DUE_SOON_SCHEDULE?.trim() || "0 * * * *",
}
