import { appTestRunner } from "../helpers/app-runner"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { completeCart, checkoutWithCard, startCheckout } from "../helpers/checkout"
import { reserveSandboxUrl, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore, SYSTEM_PROVIDER_ID } from "../helpers/store"
import { waitFor } from "../helpers/wait"
import { SERVICESCAN_MODULE } from "../../src/modules/servicescan"
import type ServiceScanModuleService from "../../src/modules/servicescan/service"
import type { DisputeAnalytics, DisputeAnalyticsFigures } from "../../src/modules/servicescan/types"

/**
 * The dispute analytics' SQL on real PostgreSQL, through the admin route, on
 * known data: orders of this plugin's provider (one paid by a real checkout
 * through the sandbox, the rest seeded with their payment refs), an order paid
 * with Medusa's system provider (not counted), chargebacks won, lost, closed and
 * pending, with and without a processor case, scans with verdicts; over four
 * months and two currencies. Every figure is checked exactly: counts, ratios
 * as fractions and money to the cent; an empty month and a month with
 * chargebacks but no orders (ratio null, never NaN or Infinity).
 */
reserveSandboxUrl()
jest.setTimeout(180_000)

const APPROVE = "4457119922390123"
const DAY_MS = 24 * 60 * 60 * 1000
const day = (offsetDays: number) => new Date(Date.now() + offsetDays * DAY_MS).toISOString().slice(0, 10)

const EMPTY: DisputeAnalyticsFigures = {
  orders: 0,
  orders_with_scan: 0,
  scan_share: null,
  chargebacks: 0,
  chargeback_ratio: null,
  won: 0,
  lost: 0,
  closed: 0,
  pending: 0,
  win_rate: null,
  recovered: "0.00",
  lost_amount: "0.00",
  at_stake: "0.00",
  due_soon: 0,
  verdicts: { valid: 0, invalid: 0, unjudged: 0 },
  visa_exceeded: false,
  mastercard_exceeded: false,
}

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let realOrderId: string

    const service = () => container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const sql = (statement: string, bindings: string[]) =>
      container.resolve(ContainerRegistrationKeys.PG_CONNECTION).raw(statement, bindings)
    const get = (path: string) => api.get(path, { ...store.adminHeaders, validateStatus: () => true })

    let refs = 0
    /** An order of this plugin's provider, placed on `placedAt`: the order and the payment ref the plugin records for it. */
    async function pluginOrder(currency: string, placedAt: string, options: { scan?: boolean } = {}): Promise<string> {
      const order = await container.resolve(Modules.ORDER).createOrders({ currency_code: currency, email: "shopper@example.com" })
      await sql(`UPDATE "order" SET created_at = ? WHERE id = ?`, [placedAt, order.id])
      refs += 1
      await service().createPaymentRefs({
        payment_id: `pay_analytics_${refs}`,
        order_id: order.id,
        processor_transaction_id: `8000000000${refs}`,
        scan_id: options.scan === false ? null : randomUUID(),
      })
      return order.id
    }

    /** A chargeback recorded on `recordedAt`, with its processor case when `issuedOn` is given. */
    async function chargeback(input: {
      orderId: string
      amount: string
      currency: string
      status: "open" | "evidence_pending" | "evidence_ready" | "no_evidence" | "won" | "lost" | "closed"
      recordedAt: string
      issuedOn?: string
      replyBy?: string
      dueBy?: string
      scans?: { scan_id: string; ground_truth: "valid" | "invalid" | null }[][]
    }): Promise<string> {
      const created = await service().createChargebacks({
        external_id: `analytics_${randomUUID()}`,
        order_id: input.orderId,
        // The model takes a number; Medusa keeps it as an exact decimal (BigNumber from its shortest spelling).
        amount: Number(input.amount),
        currency_code: input.currency,
        status: input.status,
        due_by: input.dueBy ? new Date(input.dueBy) : null,
      })
      await sql(`UPDATE servicescan_chargeback SET created_at = ? WHERE id = ?`, [input.recordedAt, created.id])
      if (input.issuedOn) {
        await service().createDisputeCases({
          gateway: "worldpay",
          case_id: `case_${randomUUID()}`,
          status: "matched",
          chargeback_id: created.id,
          order_id: input.orderId,
          amount: Number(input.amount),
          currency_code: input.currency,
          issued_on: input.issuedOn,
          reply_by: input.replyBy ?? null,
        })
      }
      // Each inner list is one proof request (a resubmission asks about a scan again).
      for (const scans of input.scans ?? []) {
        const request = await service().createProofRequests({
          chargeback_id: created.id,
          status: "complete",
          scan_ids: scans.map((scan) => scan.scan_id),
        })
        await service().createScanEvidences(scans.map((scan) => ({ ...scan, proof_request_id: request.id })))
      }
      return created.id
    }

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)

      // A real checkout through the sandbox: the plugin records its payment ref itself (order.placed).
      const { result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true })
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      realOrderId = result.order.id
      await waitFor(() => service().listPaymentRefs({ order_id: realOrderId }), (rows) => rows.length === 1, 10_000)
      await sql(`UPDATE "order" SET created_at = ? WHERE id = ?`, ["2026-04-15T12:00:00Z", realOrderId])
      // Paid with Medusa's system provider in the same month: not this plugin's order, never counted.
      const system = await completeCart(api, store, await startCheckout(api, store, { providerId: SYSTEM_PROVIDER_ID }))
      if (system.type !== "order") {
        throw new Error(`system checkout failed: ${JSON.stringify(system)}`)
      }
      await sql(`UPDATE "order" SET created_at = ? WHERE id = ?`, ["2026-04-16T12:00:00Z", system.order.id])

      // January 2026: nothing. December 2025 and May 2026 sit just outside the range.
      const outside = await pluginOrder("usd", "2025-12-31T23:59:59Z")
      await pluginOrder("usd", "2026-05-01T00:00:00Z")
      await chargeback({ orderId: outside, amount: "1000.00", currency: "usd", status: "won", recordedAt: "2025-12-20T10:00:00Z" })

      // February 2026, USD: four orders, three with a scan (the fourth paid with a saved card).
      const feb = [
        await pluginOrder("usd", "2026-02-01T00:00:00Z"),
        await pluginOrder("usd", "2026-02-10T08:00:00Z"),
        await pluginOrder("usd", "2026-02-20T08:00:00Z"),
        await pluginOrder("usd", "2026-02-28T23:59:59Z", { scan: false }),
      ]
      const s1 = randomUUID()
      const s2 = randomUUID()
      // Won, recorded in March but its case was issued in February: it counts in February.
      await chargeback({
        orderId: feb[0],
        amount: "25.50",
        currency: "usd",
        status: "won",
        recordedAt: "2026-03-05T09:00:00Z",
        issuedOn: "2026-02-10",
        scans: [
          [
            { scan_id: s1, ground_truth: "valid" },
            { scan_id: s2, ground_truth: "invalid" },
          ],
          // s1 asked about again without an answer yet: still one scan, valid.
          [{ scan_id: s1, ground_truth: null }],
        ],
      })
      // Lost, without a case: the month it was recorded.
      await chargeback({ orderId: feb[1], amount: "10.00", currency: "usd", status: "lost", recordedAt: "2026-02-20T10:00:00Z" })
      // Pending, its reply-by day 7 days ahead: due soon (the window's last day).
      await chargeback({
        orderId: feb[2],
        amount: "99.99",
        currency: "usd",
        status: "evidence_pending",
        recordedAt: "2026-02-26T10:00:00Z",
        issuedOn: "2026-02-25",
        replyBy: day(7),
        scans: [[{ scan_id: randomUUID(), ground_truth: null }]],
      })

      // March 2026, USD: no order placed, two chargebacks (on February's orders).
      await chargeback({
        orderId: feb[3],
        amount: "0.01",
        currency: "usd",
        status: "evidence_ready",
        recordedAt: "2026-03-02T10:00:00Z",
        issuedOn: "2026-03-02",
        replyBy: day(8),
      })
      await chargeback({ orderId: feb[0], amount: "5.00", currency: "USD", status: "closed", recordedAt: "2026-03-31T23:59:59Z" })
      // Overdue (reply-by yesterday, no case: its due_by): pending, not due soon. Recorded in March.
      await chargeback({
        orderId: feb[1],
        amount: "0.49",
        currency: "usd",
        status: "open",
        recordedAt: "2026-03-15T10:00:00Z",
        dueBy: `${day(-1)}T12:00:00Z`,
      })

      // April 2026, USD: the real checkout's order and one more; no chargeback.
      await pluginOrder("usd", "2026-04-30T23:59:59Z", { scan: false })

      // February 2026, EUR: two orders, one chargeback won. Never in USD's figures.
      const eur = await pluginOrder("eur", "2026-02-14T12:00:00Z")
      await pluginOrder("eur", "2026-02-15T12:00:00Z")
      await chargeback({ orderId: eur, amount: "40.00", currency: "eur", status: "won", recordedAt: "2026-02-16T12:00:00Z" })
    })

    afterAll(async () => {
      await sandbox?.close()
    })

    it("answers every USD figure by month, to the cent, with an empty month and a month without orders", async () => {
      const response = await get("/admin/servicescan/analytics?from=2026-01&to=2026-04&currency_code=usd")
      expect(response.status).toBe(200)
      const analytics = response.data.analytics as DisputeAnalytics
      expect(analytics).toMatchObject({
        currency: "usd",
        from: "2026-01",
        to: "2026-04",
        due_window_days: 7,
        thresholds: { visa_ratio: 0.009, mastercard_ratio: 0.015, mastercard_min_chargebacks: 100 },
      })
      expect([...analytics.currencies].sort()).toEqual(["eur", "usd"])
      expect(analytics.months.map((m) => m.month)).toEqual(["2026-01", "2026-02", "2026-03", "2026-04"])
      const [jan, feb, mar, apr] = analytics.months

      expect(jan).toEqual({ month: "2026-01", ...EMPTY })
      expect(feb).toEqual({
        month: "2026-02",
        orders: 4,
        orders_with_scan: 3,
        scan_share: 0.75,
        chargebacks: 3,
        chargeback_ratio: 0.75,
        won: 1,
        lost: 1,
        closed: 0,
        pending: 1,
        win_rate: 0.5,
        recovered: "25.50",
        lost_amount: "10.00",
        at_stake: "99.99",
        due_soon: 1,
        verdicts: { valid: 1, invalid: 1, unjudged: 1 },
        visa_exceeded: true,
        // 75 % but 3 chargebacks: Mastercard's programme starts at 100.
        mastercard_exceeded: false,
      })
      expect(mar).toEqual({
        month: "2026-03",
        ...EMPTY,
        chargebacks: 3,
        closed: 1,
        pending: 2,
        at_stake: "0.50",
      })
      expect(apr).toEqual({
        month: "2026-04",
        ...EMPTY,
        orders: 2,
        orders_with_scan: 1,
        scan_share: 0.5,
        chargeback_ratio: 0,
      })
      expect(analytics.totals).toEqual({
        orders: 6,
        orders_with_scan: 4,
        scan_share: 4 / 6,
        chargebacks: 6,
        chargeback_ratio: 1,
        won: 1,
        lost: 1,
        closed: 1,
        pending: 3,
        win_rate: 0.5,
        recovered: "25.50",
        lost_amount: "10.00",
        at_stake: "100.49",
        due_soon: 1,
        verdicts: { valid: 1, invalid: 1, unjudged: 1 },
        visa_exceeded: true,
        mastercard_exceeded: false,
      })
    })

    it("keeps currencies apart: EUR has its own orders and chargebacks only", async () => {
      const response = await get("/admin/servicescan/analytics?from=2026-02&to=2026-02&currency_code=EUR")
      expect(response.status).toBe(200)
      const analytics = response.data.analytics as DisputeAnalytics
      expect(analytics.currency).toBe("eur")
      expect(analytics.months).toEqual([
        {
          month: "2026-02",
          ...EMPTY,
          orders: 2,
          orders_with_scan: 2,
          scan_share: 1,
          chargebacks: 1,
          chargeback_ratio: 0.5,
          won: 1,
          win_rate: 1,
          recovered: "40.00",
          visa_exceeded: true,
        },
      ])
    })

    it("answers null, not NaN or Infinity, for a ratio over no orders (read from the module, before JSON)", async () => {
      const analytics = await service().getDisputeAnalytics({ from: "2026-01", to: "2026-03", currency: "usd" })
      const [jan, , mar] = analytics.months
      expect(jan.chargeback_ratio).toBeNull()
      expect(jan.win_rate).toBeNull()
      expect(jan.scan_share).toBeNull()
      expect(mar.chargebacks).toBe(3)
      expect(mar.orders).toBe(0)
      expect(mar.chargeback_ratio).toBeNull()
      expect(mar.visa_exceeded).toBe(false)
    })

    it("refuses bad input with a 400 naming the field", async () => {
      const cases: [string, string][] = [
        ["from=2026-13&to=2026-12", "from"],
        ["from=2026-01&to=26-02", "to"],
        ["from=2026-05&to=2026-04", "to must not be before from"],
        ["from=2020-01&to=2026-01", "to must be at most 36 months after from"],
        ["from=2026-01&to=2026-02&currency_code=dollars", "currency_code"],
        ["from=2026-01&to=2026-02&currency_code=xyz", "currency_code"],
      ]
      for (const [query, field] of cases) {
        const response = await get(`/admin/servicescan/analytics?${query}`)
        expect(`${query}: ${response.status}`).toBe(`${query}: 400`)
        expect(String(response.data.message)).toContain(field)
      }
    })

    it("defaults to the last six months and the most used currency", async () => {
      const response = await get("/admin/servicescan/analytics")
      expect(response.status).toBe(200)
      const analytics = response.data.analytics as DisputeAnalytics
      expect(analytics.months).toHaveLength(6)
      const now = new Date()
      expect(analytics.to).toBe(`${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, "0")}`)
      expect(analytics.currency).toBe("usd")
    })
  },
})
