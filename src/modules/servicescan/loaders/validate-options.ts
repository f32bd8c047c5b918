import type { LoaderOptions } from "@medusajs/framework/types"
import { resolveModuleOptions, ServiceScanModuleOptions } from "../options"

/**
 * Fails the boot with a message naming the bad field, before anything runs
 * with a half-valid configuration (the service parses the same options again
 * for their defaults).
 */
export default async function validateOptionsLoader({
  options,
}: LoaderOptions<ServiceScanModuleOptions>): Promise<void> {
  resolveModuleOptions(options)
}
