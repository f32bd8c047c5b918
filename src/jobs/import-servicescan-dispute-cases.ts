import type { MedusaContainer } from "@medusajs/framework/types"
import { importServiceScanDisputeCases } from "../workflows/run-dispute-case-import"

/** Every 30 minutes: a chargeback case published by the processor becomes a chargeback with evidence on its order. */
export default async function importServiceScanDisputeCasesJob(container: MedusaContainer): Promise<void> {
  await importServiceScanDisputeCases(container)
}

export const config = {
  name: "servicescan-import-dispute-cases",
  schedule: "*/30 * * * *",
}
