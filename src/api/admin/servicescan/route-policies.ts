import type { MiddlewareRoute } from "@medusajs/framework/http"
import { SERVICESCAN_POLICIES } from "../../../policies/servicescan"

type Policy = { resource: string; operation: string }
type AdminRoutePolicy = { method: "GET" | "POST"; matcher: string; policies: readonly Policy[] }

const { readDisputes, writeDisputes, readSettings } = SERVICESCAN_POLICIES

/** Reading disputes and their evidence. */
export const READ_DISPUTES: readonly Policy[] = [readDisputes]
/** Recording and answering disputes; their answers carry the evidence, so reading it is asked too. */
export const ANSWER_DISPUTES: readonly Policy[] = [readDisputes, writeDisputes]
/** Settings and health. */
export const READ_SETTINGS: readonly Policy[] = [readSettings]

/**
 * Every admin route of the plugin and the policies Medusa's RBAC asks of it
 * (all of them, when several). A new admin route goes here too: a unit spec
 * compares this list with the route files, and docs/api.md's table with it.
 */
export const ADMIN_ROUTE_POLICIES: readonly AdminRoutePolicy[] = [
  { method: "GET", matcher: "/admin/servicescan/chargebacks", policies: READ_DISPUTES },
  { method: "GET", matcher: "/admin/servicescan/chargebacks/:id", policies: READ_DISPUTES },
  { method: "GET", matcher: "/admin/servicescan/chargebacks/:id/scan-sources", policies: READ_DISPUTES },
  { method: "GET", matcher: "/admin/servicescan/chargebacks/:id/evidence-pack", policies: READ_DISPUTES },
  { method: "GET", matcher: "/admin/servicescan/scans/:scanId/image", policies: READ_DISPUTES },
  { method: "GET", matcher: "/admin/servicescan/cases", policies: READ_DISPUTES },
  { method: "GET", matcher: "/admin/servicescan/cases/:id", policies: READ_DISPUTES },
  { method: "GET", matcher: "/admin/servicescan/analytics", policies: READ_DISPUTES },
  { method: "POST", matcher: "/admin/servicescan/chargebacks", policies: ANSWER_DISPUTES },
  { method: "POST", matcher: "/admin/servicescan/chargebacks/:id/scans", policies: ANSWER_DISPUTES },
  { method: "POST", matcher: "/admin/servicescan/chargebacks/:id/check", policies: ANSWER_DISPUTES },
  { method: "POST", matcher: "/admin/servicescan/chargebacks/:id/outcome", policies: ANSWER_DISPUTES },
  { method: "POST", matcher: "/admin/servicescan/chargebacks/:id/respond", policies: ANSWER_DISPUTES },
  { method: "POST", matcher: "/admin/servicescan/cases/:id/assign", policies: ANSWER_DISPUTES },
  { method: "POST", matcher: "/admin/servicescan/cases/import", policies: ANSWER_DISPUTES },
  { method: "GET", matcher: "/admin/servicescan/health", policies: READ_SETTINGS },
]

/**
 * The same as middleware routes carrying only `policies`. Listed in
 * middlewares.ts before the routes' own entries, so that the check runs
 * before the route's validation: a role without the policy learns nothing
 * about ids or bodies, only that it may not.
 */
export const adminPolicyRoutes: MiddlewareRoute[] = ADMIN_ROUTE_POLICIES.map(({ method, matcher, policies }) => ({
  matcher,
  methods: [method],
  policies: policies.map((policy) => ({ ...policy })),
}))
