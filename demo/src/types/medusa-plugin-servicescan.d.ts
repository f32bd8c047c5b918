// The plugin is built without declaration files; these are the parts the demo imports.
declare module "medusa-plugin-servicescan/jobs/sync-servicescan-proof-requests" {
  import type { MedusaContainer } from "@medusajs/framework/types"
  export function syncServiceScanProofRequests(
    container: MedusaContainer,
    options?: { now?: () => Date }
  ): Promise<{ claimed: number; completed: number; submitted: number; errors: number }>
}
