import type { MedusaContainer } from "@medusajs/framework/types"
import { importServiceScanDisputeCases } from "./_run-dispute-case-import"

/** Every 30 minutes: a chargeback case published by the processor becomes a chargeback with evidence on its order. */
export default async function importServiceScanDisputeCasesJob(container: MedusaContainer): Promise<void> {
  await importServiceScanDisputeCases(container)
}

/**
 * `SERVICESCAN_CASE_IMPORT_SCHEDULE` replaces the cron expression (six fields
 * for seconds, e.g. `0/5 * * * * *`), read when Medusa loads the job, as
 * `SERVICESCAN_SYNC_SCHEDULE` does for the poll job. The demo sets it so a case
 * raised at its sandbox arrives within seconds. Unset, every 30 minutes.
 */
export const config = {
  name: "servicescan-import-dispute-cases",
  schedule: process.env.SERVICESCAN_CASE_IMPORT_SCHEDULE?.trim() || "*/30 * * * *",
}
