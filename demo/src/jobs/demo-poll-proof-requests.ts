import type { MedusaContainer } from "@medusajs/framework/types"
import { syncServiceScanProofRequests } from "medusa-plugin-servicescan/jobs/sync-servicescan-proof-requests"

/**
 * Demo only. The plugin's own job polls every 10 minutes and checks each
 * proof request every `pollIntervalMs` (3 hours by default), because the real
 * service takes hours. The sandbox completes proof requests within seconds
 * (`--proof-delay`), so the demo runs the same poll every few seconds and
 * evidence shows up on the order while you watch. A real store does not need
 * this file.
 */
export default async function demoPollProofRequests(container: MedusaContainer): Promise<void> {
  await syncServiceScanProofRequests(container)
}

export const config = {
  name: "servicescan-demo-poll-proof-requests",
  schedule: { interval: Number(process.env.DEMO_POLL_EVERY_MS || 2000) },
}
