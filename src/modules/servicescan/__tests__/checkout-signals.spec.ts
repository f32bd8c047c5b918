import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { moduleIntegrationTestRunner } from "@medusajs/test-utils"
import { join } from "node:path"
import { SERVICESCAN_MODULE } from ".."
import ServiceScanModuleService from "../service"

/**
 * A store that turned checkout signals off (`checkoutSignals: { enabled: false }`), on real
 * PostgreSQL: a completion records nothing, and the rows kept while they were on still leave at
 * their retention (the daily purge works the same). The recording itself, through a real checkout,
 * is integration-tests/http/checkout-signals.spec.ts.
 */
jest.setTimeout(60_000)

const DAY = 24 * 60 * 60 * 1000

moduleIntegrationTestRunner<ServiceScanModuleService>({
  moduleName: SERVICESCAN_MODULE,
  resolve: join(__dirname, ".."),
  pathToMigrations: join(__dirname, "..", "migrations"),
  moduleOptions: { baseUrl: "http://127.0.0.1:9", checkoutSignals: { enabled: false, retentionDays: 30 } },
  testSuite: ({ service, MikroOrmWrapper }) => {
    const count = async () => (await service.listCheckoutSignals({}, { select: ["id"], take: null })).length

    it("records nothing when signals are turned off", async () => {
      expect(service.getCheckoutSignalSettings()).toEqual({ enabled: false, retentionDays: 30 })
      const recorded = await service.recordCheckoutSignal({
        payment_session_id: "payses_off_1",
        cart_id: "cart_off_1",
        customer_id: "cus_1",
        ip_address: "203.0.113.7",
        user_agent: "Mozilla/5.0",
        device_id: "0b5e2f4c-9d1a-4c3e-8f7a-1e2d3c4b5a69",
      })
      expect(recorded).toBeNull()
      expect(await count()).toBe(0)
      expect(await service.linkCheckoutSignalPayments([{ payment_session_id: "payses_off_1", payment_id: "pay_1" }])).toEqual([])
    })

    it("still purges, in batches, only the rows older than the retention", async () => {
      const rows = await service.createCheckoutSignals(
        Array.from({ length: 7 }, (_, i) => ({ payment_session_id: `payses_old_${i}`, cart_id: `cart_${i}` }))
      )
      const manager = MikroOrmWrapper.forkManager() as SqlEntityManager
      // Five rows 31 days old (past the 30-day retention), one exactly 29, one fresh.
      const now = Date.now()
      const ages = [31, 31, 31, 40, 400, 29, 0]
      for (const [i, row] of rows.entries()) {
        await manager.execute(`UPDATE servicescan_checkout_signal SET created_at = ? WHERE id = ?`, [new Date(now - ages[i] * DAY), row.id])
      }
      expect(await service.purgeExpiredCheckoutSignals(new Date(now), 2)).toBe(2)
      expect(await service.purgeExpiredCheckoutSignals(new Date(now), 2)).toBe(2)
      expect(await service.purgeExpiredCheckoutSignals(new Date(now), 2)).toBe(1)
      expect(await service.purgeExpiredCheckoutSignals(new Date(now), 2)).toBe(0)
      const left = await service.listCheckoutSignals({}, { select: ["payment_session_id"], take: null })
      expect(left.map((row) => row.payment_session_id).sort()).toEqual(["payses_old_5", "payses_old_6"])
    })
  },
})
