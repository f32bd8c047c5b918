// The body of the case import job (import-servicescan-dispute-cases.ts), which
// the admin's "Import now" (POST /admin/servicescan/cases/import) runs too. The
// leading underscore keeps Medusa's job loader from taking this file for a job:
// it skips files whose name starts with "_".
import type { ILockingModule, Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { SERVICESCAN_MODULE } from "../modules/servicescan"
import type { DisputeCaseRecord } from "../processors/types"
import type ServiceScanModuleService from "../modules/servicescan/service"
import { importDisputeCasesWorkflow } from "../workflows/import-dispute-cases"
import { catchUpProcessorEvents } from "./_apply-processor-events"
import { runAutoResponses } from "./_run-auto-responses"

const RUN_LOCK_KEY = "servicescan:import-dispute-cases"
const RUN_LOCK_EXPIRE_SECONDS = 30 * 60
const DAY_MS = 24 * 60 * 60 * 1000

export type CaseImportReport = {
  skipped?: "not_configured" | "locked"
  days: string[]
  cases: number
  new_cases: number
  matched: number
  unmatched: number
  chargebacks_recorded: number
  calls: number
  auto_represented: number
  auto_accepted: number
  errors: string[]
}

/** `YYYY-MM-DD` of a date, in UTC. */
export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10)
}

/**
 * The case import's body, exported for the job, "Import now", tests and the
 * benchmark. Reads the processor's cases day by day, from its cursor (minus an
 * overlap, so a case whose activity lands near midnight, or while the import
 * was down, is never missed) to today, then the cases waiting for the merchant
 * whatever their dates; hands them to `importDisputeCasesWorkflow` page by
 * page. The cursor moves only when every day was read: a failed run is simply
 * repeated, and an import of the same case again changes nothing that has not
 * changed.
 */
export async function importServiceScanDisputeCases(
  container: MedusaContainer,
  options: { now?: () => Date; pageSize?: number } = {}
): Promise<CaseImportReport> {
  const now = (options.now ?? (() => new Date()))()
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const report: CaseImportReport = {
    days: [],
    cases: 0,
    new_cases: 0,
    matched: 0,
    unmatched: 0,
    chargebacks_recorded: 0,
    calls: 0,
    auto_represented: 0,
    auto_accepted: 0,
    errors: [],
  }
  const gateways = service.getDisputeGateways()
  if (!gateways.length) {
    return { ...report, skipped: "not_configured" }
  }
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  const ownerId = `servicescan-import-${randomUUID()}`
  try {
    await locking.acquire(RUN_LOCK_KEY, { ownerId, expire: RUN_LOCK_EXPIRE_SECONDS })
  } catch {
    return { ...report, skipped: "locked" }
  }

  try {
    const settings = service.getSettings()
    const pageSize = options.pageSize ?? settings.page_size
    const today = dayOf(now)
    // A gateway whose processor pushes its cases (a webhook) has nothing to read: its cases came in already.
    for (const gateway of gateways.filter((candidate) => !candidate.webhook)) {
      const cursor = await service.getCaseCursor(gateway.name)
      const from = cursor
        ? new Date(Date.parse(`${cursor}T00:00:00Z`) - settings.case_import_overlap_days * DAY_MS)
        : new Date(Date.parse(`${today}T00:00:00Z`) - settings.case_import_lookback_days * DAY_MS)
      const days: string[] = []
      for (let day = from; dayOf(day) <= today; day = new Date(day.getTime() + DAY_MS)) {
        days.push(dayOf(day))
      }
      report.days.push(...days.filter((day) => !report.days.includes(day)))

      // A case is listed under each day it has an activity, and again as actionable: the whole case
      // each time, read seconds apart. Importing it once per run is enough (the next run reads it
      // again), and halves the work of a run after an outage, where every case is in two lists.
      const imported = new Set<string>()
      const importPages = async (read: () => Promise<DisputeCaseRecord[]>) => {
        const cases = (await read()).filter((record) => !imported.has(record.caseId) && imported.add(record.caseId))
        while (cases.length) {
          // Pages are taken off the list as they go (and the list as read is not kept: `read` is
          // called here): a busy day's records, about 12 MB for 10,000, shrink as the run goes
          // instead of living to its end, and V8 sizes the heap from what lives.
          const { result } = await importDisputeCasesWorkflow(container).run({
            input: { gateway: gateway.name, cases: cases.splice(0, pageSize), today },
          })
          report.cases += result.cases
          report.new_cases += result.new_cases
          report.matched += result.matched
          report.unmatched += result.unmatched
          report.chargebacks_recorded += result.chargebacks_recorded
          report.errors.push(...result.errors)
        }
      }
      for (const day of days) {
        report.calls++
        await importPages(() => gateway.listCasesByActivityDate(day))
      }
      report.calls++
      await importPages(() => gateway.listActionableCases())
      await service.setCaseCursor(gateway.name, today)
    }
    // A gateway whose processor pushes its cases: the events it stored but no run applied.
    for (const gateway of gateways.filter((candidate) => candidate.webhook)) {
      const caught = await catchUpProcessorEvents(container, gateway.name, { now, limit: pageSize }).catch((error: Error) => {
        report.errors.push(`${gateway.name} webhook events: ${error.message}`)
        return null
      })
      if (caught) {
        report.cases += caught.cases
        report.chargebacks_recorded += caught.chargebacks_recorded
        report.errors.push(...caught.errors)
      }
      // Twice the age past which the webhook refuses an event as stale, so a replay of a deleted event is refused as stale.
      await service
        .purgeProcessorEvents(gateway.name, new Date(now.getTime() - 2 * (gateway.webhook?.maxAgeMs ?? 0)))
        .catch((error: Error) => report.errors.push(`${gateway.name} webhook events: ${error.message}`))
    }
    // Cases whose evidence completed while no event reached a subscriber (or whose answer failed) are answered here.
    const answered = await runAutoResponses(container, { now })
    report.auto_represented = answered.represented
    report.auto_accepted = answered.accepted
    report.errors.push(...answered.failed)
  } finally {
    await locking.release(RUN_LOCK_KEY, { ownerId }).catch(() => undefined)
  }
  // A run that only re-read known cases says nothing at info level: on a short schedule (the demo's 5 s) it would be a line per run.
  if (report.new_cases || report.matched || report.chargebacks_recorded) {
    logger.info(
      `servicescan: imported ${report.cases} ${gateways.map((gateway) => gateway.name).join(" and ")} cases (${report.new_cases} new, ${report.matched} matched, ${report.unmatched} unmatched, ${report.chargebacks_recorded} chargebacks recorded)`
    )
  }
  for (const error of report.errors) {
    logger.warn(`servicescan: case import: ${error}`)
  }
  return report
}
