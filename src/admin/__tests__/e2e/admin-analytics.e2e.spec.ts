import { appTestRunner } from "../../../../integration-tests/helpers/app-runner"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { copyFile, mkdir } from "node:fs/promises"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { Browser, Locator, Page } from "playwright-core"
import { launchChromium } from "../../../../scripts/chromium.cjs"
import { createAdmin, requireAdminBuild, startAdminServer } from "./support/admin-app"
import { reserveSandboxUrl, startTestSandbox, type TestSandbox } from "../../../../integration-tests/helpers/sandbox"

/**
 * The module's generated create methods this spec seeds with, by their shape: importing the module
 * (its decorated service) would bring server code into the admin's type check.
 */
type Seeder = {
  createPaymentRefs(data: { payment_id: string; order_id: string; processor_transaction_id: string; scan_id: string | null }): Promise<unknown>
  createChargebacks(data: { external_id: string; order_id: string; amount: number; currency_code: string; status: string }): Promise<{ id: string }>
}
/** SERVICESCAN_MODULE (src/modules/servicescan/index.ts). */
const SERVICESCAN_MODULE = "servicescan"

/**
 * The Disputes analytics page in the real dashboard, in real Chromium, on
 * known data in real PostgreSQL: from the Disputes page's "Analytics" link, a
 * range picked in the URL, the chart (an SVG image with its accessible name,
 * one bar, "no orders" for months without orders, the Visa and Mastercard
 * lines) and its table with the seeded figures to the cent; then the currency
 * picker switches to EUR.
 *
 * Run with `node src/admin/__tests__/e2e/run.mjs admin-analytics` (it builds
 * the dashboard with this plugin's extensions and provides a database).
 */
reserveSandboxUrl()
jest.setTimeout(240_000)

const SHOTS = process.env.E2E_SCREENSHOTS ?? "/tmp/servicescan-admin-e2e"
const DOC_SHOTS = process.env.E2E_DOCS_SCREENSHOTS ?? ""
const EMAIL = "analyst@example.com"
const PASSWORD = "correct-horse-battery-staple"

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let container: MedusaContainer
    let server: Server
    let browser: Browser
    let page: Page
    let adminUrl: string
    const consoleErrors: string[] = []
    const apiFailures: string[] = []

    const service = () => container.resolve<Seeder>(SERVICESCAN_MODULE)
    const sql = (statement: string, bindings: string[]) => container.resolve(ContainerRegistrationKeys.PG_CONNECTION).raw(statement, bindings)

    let refs = 0
    /** An order of this plugin's provider placed at `placedAt`, with the payment ref the plugin records for it. */
    async function pluginOrder(currency: string, placedAt: string): Promise<string> {
      const order = await container.resolve(Modules.ORDER).createOrders({ currency_code: currency, email: "shopper@example.com" })
      await sql(`UPDATE "order" SET created_at = ? WHERE id = ?`, [placedAt, order.id])
      refs += 1
      await service().createPaymentRefs({
        payment_id: `pay_e2e_analytics_${refs}`,
        order_id: order.id,
        processor_transaction_id: `9000000000${refs}`,
        scan_id: randomUUID(),
      })
      return order.id
    }
    async function chargeback(orderId: string, amount: string, currency: string, status: "won" | "lost" | "evidence_pending", recordedAt: string) {
      const created = await service().createChargebacks({
        external_id: `e2e_analytics_${randomUUID()}`,
        order_id: orderId,
        // The model takes a number; Medusa keeps it as an exact decimal (BigNumber from its shortest spelling).
        amount: Number(amount),
        currency_code: currency,
        status,
      })
      await sql(`UPDATE servicescan_chargeback SET created_at = ? WHERE id = ?`, [recordedAt, created.id])
    }

    /** The text of each data cell in the table row headed `label`. */
    const rowCells = (table: Locator, label: string) =>
      table.locator("tr", { has: page.getByRole("rowheader", { name: label, exact: true }) }).locator("td").allTextContents()

    beforeAll(async () => {
      requireAdminBuild()
      await mkdir(SHOTS, { recursive: true })
      sandbox = await startTestSandbox()
      container = getContainer()

      await createAdmin(container, EMAIL, PASSWORD)

      // February 2026, USD: four orders; won $25.50, lost $10.00, pending $99.99 (ratio 75 %).
      const feb = [
        await pluginOrder("usd", "2026-02-02T10:00:00Z"),
        await pluginOrder("usd", "2026-02-09T10:00:00Z"),
        await pluginOrder("usd", "2026-02-16T10:00:00Z"),
        await pluginOrder("usd", "2026-02-23T10:00:00Z"),
      ]
      await chargeback(feb[0], "25.50", "usd", "won", "2026-02-20T10:00:00Z")
      await chargeback(feb[1], "10.00", "usd", "lost", "2026-02-21T10:00:00Z")
      await chargeback(feb[2], "99.99", "usd", "evidence_pending", "2026-02-22T10:00:00Z")
      // March 2026: no order, one pending chargeback of one cent (ratio n/a). January: nothing.
      await chargeback(feb[3], "0.01", "usd", "evidence_pending", "2026-03-03T10:00:00Z")
      // February 2026, EUR: two orders, one chargeback won (€40.00).
      const eur = await pluginOrder("eur", "2026-02-14T10:00:00Z")
      await pluginOrder("eur", "2026-02-15T10:00:00Z")
      await chargeback(eur, "40.00", "eur", "won", "2026-02-16T10:00:00Z")

      server = await startAdminServer(new URL(api.defaults.baseURL as string))
      adminUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      browser = await launchChromium()
      page = await browser.newPage({ viewport: { width: 1440, height: 1100 } })
      // Offline machine: the dashboard's CDN images are answered locally; the bell's poll is not ours.
      await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) =>
        route.fulfill({ status: 200, contentType: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg"/>' })
      )
      await page.route(/\/admin\/notifications(\?|$)/, (route) => route.fulfill({ json: { notifications: [], count: 0, offset: 0, limit: 1 } }))
      page.on("response", async (response) => {
        if (response.url().includes("/admin/servicescan/") && response.status() >= 400) {
          apiFailures.push(`${response.request().method()} ${response.url()} ${response.status()} ${(await response.text().catch(() => "")).slice(0, 300)}`)
        }
      })
      page.on("console", (message) => {
        if (message.type() === "error") {
          consoleErrors.push(message.text())
        }
      })
    })

    afterAll(async () => {
      await browser?.close()
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
      await sandbox?.close()
    })

    it("shows the chart and every seeded figure in its table, and switches currency", async () => {
      await page.goto(`${adminUrl}/app/login`)
      await page.locator('input[name="email"]').fill(EMAIL)
      await page.locator('input[name="password"]').fill(PASSWORD)
      await page.getByRole("button", { name: "Continue with Email" }).click()
      await page.waitForURL(/\/app\/orders/, { timeout: 60_000 })

      // From the Disputes page's link.
      await page.goto(`${adminUrl}/app/disputes`)
      await page.getByRole("link", { name: "Analytics", exact: true }).click()
      await page.waitForURL(/\/app\/disputes\/analytics/)
      await page.getByRole("heading", { name: "Dispute analytics" }).waitFor()

      await page.goto(`${adminUrl}/app/disputes/analytics?from=2026-01&to=2026-03&currency_code=usd`)
      const chart = page.getByRole("img", { name: "Chargeback ratio by month, USD", exact: true })
      await chart.waitFor({ timeout: 60_000 })
      expect(await chart.evaluate((element) => element.tagName.toLowerCase())).toBe("svg")
      expect(await chart.getAttribute("aria-describedby")).toBeTruthy()
      // One bar (February); January and March have no orders, so no ratio.
      expect(await chart.locator("rect").count()).toBe(1)
      expect(await chart.locator("rect title").textContent()).toBe("Feb 2026: 75%")
      expect(await chart.getByText("no orders").count()).toBe(2)
      await chart.getByText("Visa 0.9%").waitFor({ state: "attached" })
      await chart.getByText("Mastercard 1.5%").waitFor({ state: "attached" })

      const table = page.getByRole("table", { name: "Dispute figures by month, USD" })
      await table.waitFor()
      expect(await table.getByRole("columnheader").allTextContents()).toEqual(["Figure", "Jan 2026", "Feb 2026", "Mar 2026", "Total"])
      expect(await rowCells(table, "Orders")).toEqual(["0", "4", "0", "4"])
      expect(await rowCells(table, "Chargebacks")).toEqual(["0", "3", "1", "4"])
      expect(await rowCells(table, "Chargeback ratio")).toEqual(["n/a", "75%", "n/a", "100%"])
      expect(await rowCells(table, "Over the Visa line")).toEqual(["No", "Yes", "No", "Yes"])
      expect(await rowCells(table, "Won")).toEqual(["0", "1", "0", "1"])
      expect(await rowCells(table, "Lost")).toEqual(["0", "1", "0", "1"])
      expect(await rowCells(table, "Pending")).toEqual(["0", "1", "1", "2"])
      expect(await rowCells(table, "Win rate")).toEqual(["n/a", "50%", "n/a", "50%"])
      expect(await rowCells(table, "Recovered")).toEqual(["$0.00", "$25.50", "$0.00", "$25.50"])
      expect(await rowCells(table, "At stake (pending)")).toEqual(["$0.00", "$99.99", "$0.01", "$100.00"])
      expect(await rowCells(table, "Orders with a scan")).toEqual(["n/a", "100%", "n/a", "100%"])
      await chart.evaluate((element) => element.scrollIntoView({ block: "start" }))
      await page.screenshot({ path: join(SHOTS, "analytics.png") })
      if (DOC_SHOTS) {
        await mkdir(DOC_SHOTS, { recursive: true })
        await copyFile(join(SHOTS, "analytics.png"), join(DOC_SHOTS, "admin-analytics.png"))
      }

      // The currency picker (Medusa UI's Select) shows EUR's own figures.
      await page.getByRole("combobox", { name: "Currency" }).click()
      await page.getByRole("option", { name: "EUR" }).click()
      await page.waitForURL(/currency_code=eur/)
      const eurTable = page.getByRole("table", { name: "Dispute figures by month, EUR" })
      await eurTable.waitFor()
      expect(await rowCells(eurTable, "Orders")).toEqual(["0", "2", "0", "2"])
      expect(await rowCells(eurTable, "Recovered")).toEqual(["€0.00", "€40.00", "€0.00", "€40.00"])
      await page.getByRole("img", { name: "Chargeback ratio by month, EUR", exact: true }).waitFor()

      expect(apiFailures).toEqual([])
      expect(consoleErrors.filter((text) => !/favicon|Failed to load resource/.test(text))).toEqual([])
    })
  },
})
