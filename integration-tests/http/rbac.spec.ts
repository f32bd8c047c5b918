import { appTestRunner } from "../helpers/app-runner"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { createUserAccountWorkflow } from "@medusajs/core-flows"
import type { AxiosResponse } from "axios"
import jwt from "jsonwebtoken"
import { ADMIN_ROUTE_POLICIES } from "../../src/api/admin/servicescan/route-policies"
import { syncServiceScanProofRequests } from "../../src/jobs/sync-servicescan-proof-requests"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import type { DisputeCaseRow } from "../../src/modules/servicescan/types"
import { importServiceScanDisputeCases } from "../../src/jobs/_run-dispute-case-import"
import { checkoutWithCard } from "../helpers/checkout"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"
import { outsideWorldpayAuthorization } from "../helpers/outside-authorization"

/**
 * Only the right admin acts: with Medusa's RBAC on, every admin route of the
 * plugin asks for its policy. Roles are made and granted through Medusa's own
 * RBAC admin API, users sign in with emailpass, so their tokens carry the
 * roles Medusa gave them. Three roles:
 * - a catalog editor (products only): 403 on every plugin route;
 * - a disputes viewer (servicescan_dispute:read): reads evidence, answers nothing;
 * - a disputes agent (read, write, settings): every route passes.
 * Refusals are counted at the sandbox (nothing reached ServiceScan or
 * Worldpay) and in our tables. The real app, real PostgreSQL, the sandbox over HTTP.
 */
reserveSandboxUrl()
// Medusa reads its flags before the app boots (and its RBAC module only with
// the flag on at that moment): this file's process only, like Medusa's own RBAC specs.
process.env.MEDUSA_FF_RBAC = "true"
jest.setTimeout(300_000)

const APPROVE = "4457119922390123"
const HOUR = 60 * 60 * 1000
const PASSWORD = "correct horse battery staple"
/** The sandbox's routes that change something at ServiceScan or Worldpay. */
const WRITES_AT_SANDBOX = [
  "cnp.online",
  "disputes.proofRequest.create",
  "chargebacks.update",
  "chargebacks.document.upload",
  "chargebacks.document.replace",
  "chargebacks.document.delete",
]

type Need = "read" | "write" | "settings"
type Fixtures = {
  /** Evidence ready (a valid scan, archived), its case awaiting the merchant: represented by the agent. */
  represent: { chargebackId: string; caseId: string; caseRowId: string; scanId: string; orderId: string }
  /** Its case awaiting the merchant: the agent accepts liability. */
  accept: { chargebackId: string; caseId: string }
  /** Recorded by hand: scans, check and outcome act on it. */
  manual: { chargebackId: string; orderId: string; scanId: string }
  /** A case that matched no payment, and the order the agent assigns it to. */
  unmatched: { caseRowId: string; orderId: string }
}
type RouteCall = { method: "GET" | "POST"; route: string; needs: Need; path: string; body?: unknown; what: string }

/** Every admin route of the plugin, by its file path's route, with a request that succeeds for an admin allowed to make it. */
function routeCalls(f: Fixtures): RouteCall[] {
  const cb = f.represent.chargebackId
  const calls: RouteCall[] = [
    { what: "list chargebacks", method: "GET", route: "/admin/servicescan/chargebacks", needs: "read", path: "/admin/servicescan/chargebacks" },
    { what: "read a chargeback and its evidence", method: "GET", route: "/admin/servicescan/chargebacks/:id", needs: "read", path: `/admin/servicescan/chargebacks/${cb}` },
    { what: "scan sources", method: "GET", route: "/admin/servicescan/chargebacks/:id/scan-sources", needs: "read", path: `/admin/servicescan/chargebacks/${cb}/scan-sources` },
    { what: "download the evidence pack", method: "GET", route: "/admin/servicescan/chargebacks/:id/evidence-pack", needs: "read", path: `/admin/servicescan/chargebacks/${cb}/evidence-pack` },
    { what: "view a card scan", method: "GET", route: "/admin/servicescan/scans/:scanId/image", needs: "read", path: `/admin/servicescan/scans/${f.represent.scanId}/image` },
    { what: "list cases", method: "GET", route: "/admin/servicescan/cases", needs: "read", path: "/admin/servicescan/cases" },
    { what: "read a case", method: "GET", route: "/admin/servicescan/cases/:id", needs: "read", path: `/admin/servicescan/cases/${f.represent.caseRowId}` },
    { what: "dispute analytics", method: "GET", route: "/admin/servicescan/analytics", needs: "read", path: "/admin/servicescan/analytics" },
    {
      what: "record a chargeback",
      method: "POST",
      route: "/admin/servicescan/chargebacks",
      needs: "write",
      path: "/admin/servicescan/chargebacks",
      body: { external_id: `rbac_${Date.now().toString(36)}`, order_id: f.manual.orderId, amount: "1.00", currency_code: "usd" },
    },
    { what: "attach scans", method: "POST", route: "/admin/servicescan/chargebacks/:id/scans", needs: "write", path: `/admin/servicescan/chargebacks/${f.manual.chargebackId}/scans`, body: { scan_ids: [f.manual.scanId] } },
    { what: "check now", method: "POST", route: "/admin/servicescan/chargebacks/:id/check", needs: "write", path: `/admin/servicescan/chargebacks/${f.manual.chargebackId}/check`, body: {} },
    { what: "set the outcome", method: "POST", route: "/admin/servicescan/chargebacks/:id/outcome", needs: "write", path: `/admin/servicescan/chargebacks/${f.manual.chargebackId}/outcome`, body: { outcome: "won" } },
    { what: "send the evidence (represent)", method: "POST", route: "/admin/servicescan/chargebacks/:id/respond", needs: "write", path: `/admin/servicescan/chargebacks/${cb}/respond`, body: { action: "represent" } },
    { what: "accept liability", method: "POST", route: "/admin/servicescan/chargebacks/:id/respond", needs: "write", path: `/admin/servicescan/chargebacks/${f.accept.chargebackId}/respond`, body: { action: "accept" } },
    { what: "assign a case to an order", method: "POST", route: "/admin/servicescan/cases/:id/assign", needs: "write", path: `/admin/servicescan/cases/${f.unmatched.caseRowId}/assign`, body: { order_id: f.unmatched.orderId } },
    { what: "import now", method: "POST", route: "/admin/servicescan/cases/import", needs: "write", path: "/admin/servicescan/cases/import", body: {} },
    { what: "health and settings", method: "GET", route: "/admin/servicescan/health", needs: "settings", path: "/admin/servicescan/health" },
  ]
  return calls
}

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let fixtures: Fixtures
    const tokens: Record<"owner" | "editor" | "viewer" | "agent", string> = { owner: "", editor: "", viewer: "", agent: "" }
    const policyIds = new Map<string, string>()

    const as = (who: keyof typeof tokens) => ({ headers: { authorization: `Bearer ${tokens[who]}` }, validateStatus: () => true })
    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)

    /** An admin user as Medusa makes one: an emailpass identity, a user on it, roles, then a sign-in whose token carries them. */
    async function adminUser(email: string, roles: string[] = []): Promise<string> {
      const { data: registered } = await api.post("/auth/user/emailpass/register", { email, password: PASSWORD })
      const { auth_identity_id } = jwt.decode(registered.token) as { auth_identity_id: string }
      await createUserAccountWorkflow(container).run({ input: { authIdentityId: auth_identity_id, userData: { email, roles } } })
      return signIn(email)
    }
    async function signIn(email: string): Promise<string> {
      const { data } = await api.post("/auth/user/emailpass", { email, password: PASSWORD })
      return data.token
    }
    async function userId(email: string): Promise<string> {
      const { data } = await api.get(`/admin/users?q=${encodeURIComponent(email)}`, as("owner"))
      return data.users[0].id
    }
    /** A role made through Medusa's RBAC admin API with the policies it names (those Medusa knows), granted to a new user. */
    async function userWithRole(email: string, role: string, keys: string[]): Promise<string> {
      const ids = keys.map((key) => policyIds.get(key)).filter((id): id is string => Boolean(id))
      const created = await api.post("/admin/rbac/roles", { name: role, policy_ids: ids }, as("owner"))
      expect(created.status).toBe(200)
      await adminUser(email)
      const granted = await api.post(`/admin/users/${await userId(email)}/roles`, { roles: [created.data.role.id] }, as("owner"))
      expect(granted.status).toBe(200)
      return signIn(email)
    }

    async function paidOrder() {
      const { formId, result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true })
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      const { body } = await sandboxFetch<{ items: { cnpTxnId: string; duplicate?: boolean }[] }>("/__sandbox/processor/transactions?type=authorization")
      const authorization = body.items.filter((t) => !t.duplicate).at(-1) as { cnpTxnId: string }
      for (let i = 0; i < 50 && !(await service().listPaymentRefs({ order_id: result.order.id })).length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      return { orderId: result.order.id, scanId: formId, cnpTxnId: authorization.cnpTxnId }
    }
    async function raiseCase(cnpTxnId: string): Promise<string> {
      const { status, body } = await sandboxFetch<{ caseId: string }>("/__sandbox/chargebacks", { body: { cnpTxnId } })
      expect(status).toBe(201)
      return body.caseId
    }
    async function caseRow(caseId: string): Promise<DisputeCaseRow> {
      const [row] = (await service().listDisputeCases({ case_id: caseId }, { take: 1 })) as DisputeCaseRow[]
      return row
    }
    async function chargebackOfCase(caseId: string): Promise<string> {
      const [chargeback] = await service().listChargebacks({ external_id: caseId })
      return chargeback.id
    }

    /** What a refused request could have changed: calls at the sandbox, and our rows. */
    async function footprint() {
      const { body: stats } = await sandboxFetch<{ total: number; requests: Record<string, number> }>("/__sandbox/stats")
      const chargebacks = await service().listChargebacks({}, { select: ["id", "status"], take: null })
      const cases = (await service().listDisputeCases({}, { take: null })) as DisputeCaseRow[]
      return {
        sandboxRequests: stats.total,
        sandboxWrites: WRITES_AT_SANDBOX.map((route) => `${route}: ${stats.requests[route] ?? 0}`),
        chargebacks: chargebacks.map((c) => `${c.id}:${c.status}`).sort(),
        cases: cases.map((c) => `${c.id}:${c.status}:${c.response_status}:${c.order_id}`).sort(),
      }
    }

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)

      // The store owner: Medusa's super admin role, which holds every policy.
      tokens.owner = await adminUser("owner@servicescan.test", ["role_super_admin"])
      const { data: policies } = await api.get(
        "/admin/rbac/policies?resource[]=product&resource[]=servicescan_dispute&resource[]=servicescan_settings&limit=100",
        as("owner")
      )
      for (const policy of policies.policies as { id: string; key: string }[]) {
        policyIds.set(policy.key, policy.id)
      }
      tokens.editor = await userWithRole("editor@servicescan.test", "Catalog editor", ["product:read", "product:update"])
      tokens.viewer = await userWithRole("viewer@servicescan.test", "Disputes viewer", ["servicescan_dispute:read"])
      tokens.agent = await userWithRole("agent@servicescan.test", "Disputes agent", [
        "servicescan_dispute:read",
        "servicescan_dispute:write",
        "servicescan_settings:read",
      ])

      // Two orders whose cases reach the store from Worldpay; one's scan is proven valid and archived.
      const represented = await paidOrder()
      const accepted = await paidOrder()
      const target = await paidOrder()
      const representCase = await raiseCase(represented.cnpTxnId)
      const acceptCase = await raiseCase(accepted.cnpTxnId)
      const outsideCase = await raiseCase(await outsideWorldpayAuthorization("rbac"))
      await importServiceScanDisputeCases(container)
      await sandboxFetch(`/__sandbox/scans/${represented.scanId}/label`, { body: { groundTruth: "valid" } })
      await syncServiceScanProofRequests(container, { now: () => new Date(Date.now() + 4 * HOUR) })
      const manual = await api.post(
        "/admin/servicescan/chargebacks",
        { external_id: `manual_${Date.now().toString(36)}`, order_id: target.orderId, amount: "2.00", currency_code: "usd" },
        as("owner")
      )
      expect(manual.status).toBe(201)

      fixtures = {
        represent: {
          chargebackId: await chargebackOfCase(representCase),
          caseId: representCase,
          caseRowId: (await caseRow(representCase)).id,
          scanId: represented.scanId,
          orderId: represented.orderId,
        },
        accept: { chargebackId: await chargebackOfCase(acceptCase), caseId: acceptCase },
        manual: { chargebackId: manual.data.chargeback.id, orderId: target.orderId, scanId: target.scanId },
        unmatched: { caseRowId: (await caseRow(outsideCase)).id, orderId: target.orderId },
      }
      const [ready] = await service().listChargebacks({ id: fixtures.represent.chargebackId })
      expect(ready.status).toBe("evidence_ready")
    })

    afterEach(async () => {
      await sandboxFetch("/__sandbox/faults", { method: "DELETE" })
    })

    afterAll(async () => {
      await sandbox?.close()
    })

    it("the calls below reach every admin route of the plugin", async () => {
      // ADMIN_ROUTE_POLICIES is compared with the route files on disk by route-policies.unit.spec.ts.
      const listed = [...new Set(routeCalls(fixtures).map((c) => `${c.method} ${c.route}`))].sort()
      expect(listed).toEqual(ADMIN_ROUTE_POLICIES.map((r) => `${r.method} ${r.matcher}`).sort())
    })

    it("Medusa's RBAC knows the plugin's policies, so a role can be granted them", async () => {
      expect([...policyIds.keys()].filter((key) => key.startsWith("servicescan_")).sort()).toEqual([
        "servicescan_dispute:read",
        "servicescan_dispute:write",
        "servicescan_settings:read",
      ])
    })

    it("a role without the dispute policies (a catalog editor): 403 on every plugin route, nothing sent, nothing changed", async () => {
      // The role is real: Medusa's own product routes let it in.
      expect((await api.get("/admin/products", as("editor"))).status).toBe(200)

      const before = await footprint()
      const answers: string[] = []
      for (const call of routeCalls(fixtures)) {
        const res: AxiosResponse = call.method === "GET" ? await api.get(call.path, as("editor")) : await api.post(call.path, call.body, as("editor"))
        answers.push(`${call.what}: ${res.status} ${res.status === 403 ? res.data.message : ""}`.trim())
      }
      const policy = (need: Need) =>
        need === "settings" ? "servicescan_settings:read" : need === "read" ? "servicescan_dispute:read" : "servicescan_dispute:read, servicescan_dispute:write"
      expect(answers).toEqual(routeCalls(fixtures).map((c) => `${c.what}: 403 Insufficient permissions. Required policies: ${policy(c.needs)}`))
      expect(await footprint()).toEqual(before)
    })

    it("a disputes viewer reads the evidence but answers nothing: accepting liability is refused before the processor hears of it", async () => {
      const calls = routeCalls(fixtures)
      const before = await footprint()
      for (const call of calls.filter((c) => c.needs === "read")) {
        const res = await api.get(call.path, as("viewer"))
        expect(`${call.what}: ${res.status}`).toBe(`${call.what}: 200`)
      }
      const refused: string[] = []
      for (const call of calls.filter((c) => c.needs !== "read")) {
        const res = call.method === "GET" ? await api.get(call.path, as("viewer")) : await api.post(call.path, call.body, as("viewer"))
        refused.push(`${call.what}: ${res.status}`)
      }
      expect(refused).toEqual(calls.filter((c) => c.needs !== "read").map((c) => `${c.what}: 403`))
      // The reads may build the pack and fetch an image; the refused answers add no call and change no row.
      const after = await footprint()
      expect(after.sandboxWrites).toEqual(before.sandboxWrites)
      expect(after.chargebacks).toEqual(before.chargebacks)
      expect(after.cases).toEqual(before.cases)
      const { body: atProcessor } = await sandboxFetch<{ activities: { activityType: string }[] }>(`/__sandbox/chargebacks/${fixtures.accept.caseId}`)
      expect(atProcessor.activities.map((a) => a.activityType)).not.toContain("Merchant Accepts Liability")
    })

    it("a disputes agent (the dispute and settings policies) passes every route, and the processor hears the answers", async () => {
      const answers: string[] = []
      for (const call of routeCalls(fixtures)) {
        const res: AxiosResponse = call.method === "GET" ? await api.get(call.path, as("agent")) : await api.post(call.path, call.body, as("agent"))
        answers.push(`${call.what}: ${res.status >= 200 && res.status < 300 ? "ok" : `${res.status} ${JSON.stringify(res.data).slice(0, 200)}`}`)
      }
      expect(answers).toEqual(routeCalls(fixtures).map((c) => `${c.what}: ok`))
      const { body: accepted } = await sandboxFetch<{ activities: { activityType: string }[] }>(`/__sandbox/chargebacks/${fixtures.accept.caseId}`)
      expect(accepted.activities.map((a) => a.activityType)).toContain("Merchant Accepts Liability")
      expect(await caseRow(fixtures.accept.caseId)).toMatchObject({ response_status: "liability_accepted" })
      const { body: represented } = await sandboxFetch<{ activities: { activityType: string }[]; documents: unknown[] }>(
        `/__sandbox/chargebacks/${fixtures.represent.caseId}`
      )
      expect(represented.activities.map((a) => a.activityType)).toContain("Merchant Represent")
      expect(represented.documents).toHaveLength(1)
    })

    it("with no role at all (a token from before RBAC was turned on): 403 on the plugin's routes", async () => {
      const res = await api.get("/admin/servicescan/chargebacks", { ...store.adminHeaders, validateStatus: () => true })
      expect(res.status).toBe(403)
    })
  },
})
