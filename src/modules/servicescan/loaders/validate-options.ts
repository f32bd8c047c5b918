import { asValue } from "@medusajs/framework/awilix"
import type { LoaderOptions } from "@medusajs/framework/types"
import { RESOLVED_OPTIONS, resolveModuleOptions, ServiceScanModuleOptions } from "../options"

/**
 * Fails the boot with a message naming the bad field, before anything runs
 * with a half-valid configuration, and registers the options as resolved
 * (defaults filled in) for the module's services: they are parsed here once.
 */
export default async function validateOptionsLoader({
  container,
  options,
}: LoaderOptions<ServiceScanModuleOptions>): Promise<void> {
  container.register(RESOLVED_OPTIONS, asValue(resolveModuleOptions(options)))
}
