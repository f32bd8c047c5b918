import { appTestRunner } from "../../../../integration-tests/helpers/app-runner"
import type { INotificationModuleService, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { copyFile, mkdir } from "node:fs/promises"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
// The repository's one browser finder: CHROMIUM_PATH, a system Chromium, or the packaged one.
import { launchChromium } from "../../../../scripts/chromium.cjs"
import { createAdmin, requireAdminBuild, startAdminServer } from "./support/admin-app"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, type TestSandbox } from "../../../../integration-tests/helpers/sandbox"
import { seedStore, type SeededStore } from "../../../../integration-tests/helpers/store"
import { checkoutWithCard } from "../../../../integration-tests/helpers/checkout"
import { waitFor } from "../../../../integration-tests/helpers/wait"
import { alertDueServiceScanCases } from "../../../jobs/alert-servicescan-due-cases"
import { importServiceScanDisputeCases } from "../../../jobs/_run-dispute-case-import"

/**
 * The case alerts in the real dashboard, in real Chromium, against the real
 * app and the real sandbox: a case raised at the sandbox's Worldpay, due in 3
 * days, is imported; the due-soon job announces it through Medusa's
 * Notification Module; an admin who logs in sees it in the bell's drawer
 * (Medusa's own, reading the `feed` channel), once, even after the job ran
 * again. Run alone with `node src/admin/__tests__/e2e/run.mjs --testPathPattern admin-alerts`
 * (run.mjs passes jest `--testMatch`, which would take a bare pattern as a second glob). With
 * E2E_DOCS_SCREENSHOTS the README's bell screenshot goes there too.
 */
reserveSandboxUrl()
jest.setTimeout(240_000)

const SHOTS = process.env.E2E_SCREENSHOTS ?? "/tmp/servicescan-admin-e2e"
const DOC_SHOTS = process.env.E2E_DOCS_SCREENSHOTS ?? ""
const APPROVE = "4457119922390123"
const EMAIL = "alerts@example.com"
const PASSWORD = "correct-horse-battery-staple"
const DAY = 24 * 60 * 60 * 1000

/**
 * Whether a notification is the plugin's due-soon alert, by its idempotency key: the module stores
 * the key, but NotificationDTO's type (@medusajs/types 2.21) does not declare it.
 */
function isDueSoonAlert(notification: object): boolean {
  return (
    "idempotency_key" in notification &&
    typeof notification.idempotency_key === "string" &&
    notification.idempotency_key.startsWith("servicescan:case.due_soon:")
  )
}

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let server: Server
    let browser: Browser
    let page: Page
    let adminUrl: string
    let orderId: string
    const consoleErrors: string[] = []
    const serverErrors: string[] = []

    beforeAll(async () => {
      requireAdminBuild()
      await mkdir(SHOTS, { recursive: true })
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)

      await createAdmin(container, EMAIL, PASSWORD)

      const { result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true })
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      orderId = result.order.id

      server = await startAdminServer(new URL(api.defaults.baseURL as string))
      adminUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      browser = await launchChromium()
      page = await browser.newPage({ viewport: { width: 1440, height: 1000 } })
      // The machine is offline; the dashboard's country flags come from a CDN.
      await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) =>
        route.fulfill({ status: 200, contentType: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg"/>' })
      )
      page.on("console", (message) => {
        if (message.type() === "error") {
          consoleErrors.push(message.text())
        }
      })
      page.on("response", (response) => {
        if (response.status() >= 500) {
          serverErrors.push(`${response.request().method()} ${new URL(response.url()).pathname} ${response.status()}`)
        }
      })
    })

    afterAll(async () => {
      await browser?.close()
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
      await sandbox?.close()
    })

    it("shows a case due in 3 days in the admin's bell, once, after the job ran twice", async () => {
      // The case, on the order's authorization at the processor, due in 3 days.
      const { data } = await container.resolve(ContainerRegistrationKeys.QUERY).graph({
        entity: "order",
        fields: ["id", "display_id", "payment_collections.payments.data"],
        filters: { id: orderId },
      })
      const cnpTxnId = (data[0].payment_collections[0].payments[0].data as Record<string, unknown>).cnp_txn_id
      const replyBy = new Date(Date.now() + 3 * DAY).toISOString().slice(0, 10)
      const raised = await sandboxFetch<{ caseId: number | string }>("/__sandbox/chargebacks", {
        body: { cnpTxnId, reasonCode: "10.4", replyBy },
      })
      expect(raised.status).toBe(201)
      const caseId = String(raised.body.caseId)
      expect(await importServiceScanDisputeCases(container)).toMatchObject({ matched: 1 })

      expect(await alertDueServiceScanCases(container)).toEqual({ alerted: 1 })
      expect(await alertDueServiceScanCases(container)).toEqual({ alerted: 0 })
      const notifications = container.resolve<INotificationModuleService>(Modules.NOTIFICATION)
      const feed = await waitFor(
        () => notifications.listNotifications({ channel: "feed" }, { take: null }),
        (items) => items.some(isDueSoonAlert),
        10_000
      )
      expect(feed.filter(isDueSoonAlert)).toHaveLength(1)

      await page.goto(`${adminUrl}/app/login`)
      await page.locator('input[name="email"]').fill(EMAIL)
      await page.locator('input[name="password"]').fill(PASSWORD)
      await page.getByRole("button", { name: "Continue with Email" }).click()
      await page.waitForURL(/\/app\/orders/, { timeout: 60_000 })

      // The bell: Medusa's drawer trigger in the top bar (the only dialog trigger there).
      const bell = page.locator('button[aria-haspopup="dialog"]').filter({ has: page.locator("svg") }).last()
      await bell.waitFor()
      await bell.click()
      const drawer = page.getByRole("dialog")
      const title = drawer.getByText("Chargeback case due in 3 days", { exact: true })
      await title.waitFor({ timeout: 30_000 })
      await expect(title.count()).resolves.toBe(1)
      await drawer
        .getByText(`Worldpay case ${caseId} on order #${data[0].display_id} waits for an answer by ${replyBy}.`, { exact: true })
        .waitFor()
      const path = join(SHOTS, "alerts-bell.png")
      await page.screenshot({ path })
      if (DOC_SHOTS) {
        await mkdir(DOC_SHOTS, { recursive: true })
        await copyFile(path, join(DOC_SHOTS, "admin-bell-alert.png"))
      }

      expect(serverErrors).toEqual([])
      expect(consoleErrors).toEqual([])
    })
  },
})
