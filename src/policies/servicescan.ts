import { definePolicies } from "@medusajs/framework/utils"

/**
 * The plugin's RBAC policies, by what a route touches. Medusa loads this
 * folder at boot (a `policies/` directory of the plugin), registers them,
 * and keeps them in its RBAC tables, where a store owner's roles are granted
 * them (Settings → Roles, or `POST /admin/rbac/roles`). Medusa checks them
 * only with its RBAC feature on; see the table of routes in docs/api.md.
 */
export const SERVICESCAN_POLICIES = {
  /** Reading disputes and their evidence: chargebacks, cases, card scans, evidence packs, scan sources. */
  readDisputes: { resource: "servicescan_dispute", operation: "read" },
  /** Recording and answering disputes: record, attach scans, check, set the outcome, represent or accept liability, assign a case, import. */
  writeDisputes: { resource: "servicescan_dispute", operation: "write" },
  /** The plugin's settings and health. */
  readSettings: { resource: "servicescan_settings", operation: "read" },
} as const

/** Registered with Medusa's RBAC (its policy loader imports this file and looks for this export). */
export const servicescanPolicies = definePolicies([
  {
    name: "ReadServiceScanDisputes",
    ...SERVICESCAN_POLICIES.readDisputes,
    description: "View chargebacks, processor cases and their evidence: card scan images and evidence packs",
  },
  {
    name: "WriteServiceScanDisputes",
    ...SERVICESCAN_POLICIES.writeDisputes,
    description:
      "Record and answer chargebacks: attach scans, check, set outcomes, assign and import cases, send evidence or accept liability (which cannot be undone)",
  },
  {
    name: "ReadServiceScanSettings",
    ...SERVICESCAN_POLICIES.readSettings,
    description: "View the ServiceScan plugin's settings and health",
  },
])
