import { readdirSync, readFileSync } from "node:fs"
import { join, relative, sep } from "node:path"
import middlewares from "../../../middlewares"
import { ADMIN_ROUTE_POLICIES, ANSWER_DISPUTES, READ_DISPUTES, READ_SETTINGS } from "../route-policies"

/**
 * Every admin route of the plugin declares Medusa's RBAC policies, and a new
 * route cannot be added without them: the list is compared with the route
 * files on disk, with the middlewares the app loads, and with the table of
 * routes and policies store owners read (docs/api.md, "Admin roles (RBAC)").
 * (integration-tests/http/rbac.spec.ts proves the checks through the app.)
 */
const API = join(__dirname, "../../..")

/** `METHOD /path` of every route file under src/api/admin/servicescan. */
function routeFiles(): string[] {
  const found: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory() && entry.name !== "__tests__") {
        walk(path)
      } else if (entry.name === "route.ts") {
        const route = `/${relative(API, dir).split(sep).join("/")}`.replace(/\[(\w+)\]/g, ":$1")
        for (const [, method] of readFileSync(path, "utf8").matchAll(/export (?:const|async function|function) (GET|POST|PUT|PATCH|DELETE)\b/g)) {
          found.push(`${method} ${route}`)
        }
      }
    }
  }
  walk(join(API, "admin/servicescan"))
  return found.sort()
}

const key = (policies: readonly { resource: string; operation: string }[]) => policies.map((p) => `${p.resource}:${p.operation}`).join(", ")

describe("admin route policies", () => {
  it("every admin route file of the plugin has its policies, and nothing else is listed", () => {
    expect(ADMIN_ROUTE_POLICIES.map((r) => `${r.method} ${r.matcher}`).sort()).toEqual(routeFiles())
  })

  it("reads ask to read disputes, answers ask to read and write them, health asks for the settings", () => {
    const byRoute = Object.fromEntries(ADMIN_ROUTE_POLICIES.map((r) => [`${r.method} ${r.matcher}`, key(r.policies)]))
    expect(key(READ_DISPUTES)).toBe("servicescan_dispute:read")
    expect(key(ANSWER_DISPUTES)).toBe("servicescan_dispute:read, servicescan_dispute:write")
    expect(key(READ_SETTINGS)).toBe("servicescan_settings:read")
    for (const [route, policies] of Object.entries(byRoute)) {
      const expected = route.endsWith("/health") ? key(READ_SETTINGS) : route.startsWith("GET ") ? key(READ_DISPUTES) : key(ANSWER_DISPUTES)
      expect(`${route}: ${policies}`).toBe(`${route}: ${expected}`)
    }
  })

  it("the app's middlewares carry each route's policies, ahead of the route's other middlewares", () => {
    const routes = middlewares.routes ?? []
    for (const { method, matcher, policies } of ADMIN_ROUTE_POLICIES) {
      const same = routes.filter((r) => r.matcher === matcher && (r.methods ?? []).includes(method))
      expect(same.length).toBeGreaterThan(0)
      expect(`${method} ${matcher}: ${key((same[0].policies as { resource: string; operation: string }[] | undefined) ?? [])}`).toBe(
        `${method} ${matcher}: ${key(policies)}`
      )
      // No entry of the same route without them runs first, and none declares others.
      expect(same.slice(1).filter((r) => r.policies !== undefined)).toEqual([])
    }
  })

  it("the docs' table (docs/api.md) lists every route under its policy", () => {
    const readme = readFileSync(join(API, "..", "..", "docs", "api.md"), "utf8")
    const table = readme.slice(readme.indexOf("<!-- rbac-policies -->"), readme.indexOf("<!-- /rbac-policies -->"))
    expect(table.length).toBeGreaterThan(0)
    for (const { method, matcher, policies } of ADMIN_ROUTE_POLICIES) {
      const row = table.split("\n").find((line) => line.includes(`\`${method} ${matcher}\``))
      expect(`${method} ${matcher}: ${row?.split("|")[1]?.trim()}`).toBe(
        `${method} ${matcher}: ${policies.map((p) => `\`${p.resource}:${p.operation}\``).join(" + ")}`
      )
    }
  })
})
