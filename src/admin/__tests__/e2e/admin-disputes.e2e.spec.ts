import { appTestRunner } from "../../../../integration-tests/helpers/app-runner"
import type { MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys } from "@medusajs/framework/utils"
import { copyFile, mkdir, readFile } from "node:fs/promises"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { Browser, Locator, Page } from "playwright-core"
// The repository's one browser finder: CHROMIUM_PATH, a system Chromium, or the packaged one.
import { launchChromium } from "../../../../scripts/chromium.cjs"
import { createAdmin, requireAdminBuild, startAdminServer } from "./support/admin-app"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, type TestSandbox } from "../../../../integration-tests/helpers/sandbox"
import { seedStore, type SeededStore } from "../../../../integration-tests/helpers/store"
import { checkoutWithCard } from "../../../../integration-tests/helpers/checkout"

/**
 * The admin extension in the real dashboard, in real Chromium, against the
 * real app and the real sandbox: an admin logs in, records a chargeback on a
 * paid order from the order page, attaches a second scan, checks now, and
 * sees ServiceScan's verdicts with the image served by the admin proxy; then
 * the Disputes list and a dispute's page. Then the processor's side: a case
 * raised at the sandbox's Worldpay on the order's authorization is imported
 * ("Import now"), shown on the order with its timeline, its evidence pack
 * downloaded, and the evidence sent to Worldpay; a case on a payment the store
 * never saw waits under "Unmatched cases" until it is assigned to the order.
 * Last, the health page.
 *
 * Run with `node src/admin/__tests__/e2e/run.mjs` (it builds the dashboard
 * with this plugin's extensions and provides a database). Screenshots go to
 * E2E_SCREENSHOTS; with E2E_DOCS_SCREENSHOTS (`run.mjs --docs-screenshots`)
 * the ones the README shows go there too.
 */
// The app's disputeGateway (medusa-config.ts) is this sandbox's Worldpay Chargeback API.
reserveSandboxUrl()
jest.setTimeout(240_000)

const SHOTS = process.env.E2E_SCREENSHOTS ?? "/tmp/servicescan-admin-e2e"
const DOC_SHOTS = process.env.E2E_DOCS_SCREENSHOTS ?? ""
const APPROVE = "4457119922390123"
const EMAIL = "merchant@example.com"
const PASSWORD = "correct-horse-battery-staple"
const SECRET_KEY = "sk_test_servicescan_demo"

appTestRunner({
  testSuite: ({ api, getContainer, dbUtils }) => {
    let sandbox: TestSandbox
    let store: SeededStore
    let container: MedusaContainer
    let server: Server
    let browser: Browser
    let page: Page
    let adminUrl: string
    let orderId: string
    /** The order as the admin names it ("#1") and its customer (name, else email). */
    let orderNumber: string
    let orderCustomer: string
    let orderScanId: string
    let extraScanId: string
    let chargebackId: string
    const consoleErrors: string[] = []
    const requestFailures: string[] = []
    let inFlight = 0
    /** Resolves once no request has been in flight for a moment (or after 10 s). */
    const settle = async () => {
      const until = Date.now() + 10_000
      let quietSince = Date.now()
      while (Date.now() < until) {
        if (inFlight > 0) {
          quietSince = Date.now()
        } else if (Date.now() - quietSince > 500) {
          return
        }
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
    /** Every URL the page requested: the list's filters must reach the server as query parameters. */
    const apiCalls: string[] = []
    /** Failed calls to the plugin's admin API, with the server's answer, for the failure report. */
    const apiFailures: string[] = []
    /** Failures a step provokes on purpose (the server's message is what it checks), left out of the last step's check. */
    const expectedFailures: { method: string; path: RegExp; status: number }[] = []
    const expected = (method: string, url: string, status: number) =>
      expectedFailures.some((f) => f.method === method && f.status === status && f.path.test(new URL(url).pathname))

    /**
     * The dashboard scrolls inside its own container, so a full-page shot shows
     * the viewport: scroll to what matters. `docName`: the README shows this one.
     */
    const shot = async (name: string, focus?: Locator, docName?: string) => {
      await focus?.evaluate((element) => element.scrollIntoView({ block: "start" }))
      const path = join(SHOTS, `${name}.png`)
      await page.screenshot({ path })
      if (DOC_SHOTS && docName) {
        await mkdir(DOC_SHOTS, { recursive: true })
        await copyFile(path, join(DOC_SHOTS, docName))
      }
    }

    /** The order's authorization at the processor: what a Worldpay case names as its transaction. */
    const orderCnpTxnId = async () => {
      const query = container.resolve(ContainerRegistrationKeys.QUERY)
      const { data } = await query.graph({
        entity: "order",
        fields: ["id", "payment_collections.payments.data"],
        filters: { id: orderId },
      })
      const payment = data[0].payment_collections[0].payments[0]
      const id = (payment.data as Record<string, unknown>).cnp_txn_id
      if (typeof id !== "string") {
        throw new Error(`the order's payment has no cnp_txn_id: ${JSON.stringify(payment.data)}`)
      }
      return id
    }

    /** An authorization the store never saw (a phone order keyed into a virtual terminal): its case matches no order. */
    const authorizeOutsideTheStore = async (reference: string, amountMinor: number) => {
      const response = await fetch(`${sandbox.url}/cnp/online`, {
        method: "POST",
        headers: { "content-type": "text/xml" },
        body: `<cnpOnlineRequest version="12.30" xmlns="http://www.vantivcnp.com/schema" merchantId="1234567">
  <authentication><user>demo-user</user><password>demo-password</password></authentication>
  <authorization id="phone-1" reportGroup="Phone orders">
    <orderId>${reference}</orderId><amount>${amountMinor}</amount><orderSource>telephone</orderSource>
    <token><cnpToken>1111000276870123</cnpToken><expDate>1230</expDate></token>
  </authorization>
</cnpOnlineRequest>`,
      })
      const xml = await response.text()
      const id = /<cnpTxnId>(\d+)<\/cnpTxnId>/.exec(xml)?.[1]
      if (!id || !xml.includes("<response>000</response>")) {
        throw new Error(`the phone authorization failed: ${xml}`)
      }
      return id
    }

    type SandboxCase = { caseId: number | string; activities: { activityType: string }[]; documents: { documentId: string }[] }
    const raiseCase = async (body: Record<string, unknown>) => {
      const { status, body: raised } = await sandboxFetch<SandboxCase>("/__sandbox/chargebacks", { body })
      if (status !== 201) {
        throw new Error(`raising a case failed: ${status} ${JSON.stringify(raised)}`)
      }
      return String(raised.caseId)
    }

    beforeAll(async () => {
      requireAdminBuild()
      await mkdir(SHOTS, { recursive: true })
      sandbox = await startTestSandbox()
      container = getContainer()
      store = await seedStore(container)

      // An admin who logs in through the dashboard's own form.
      await createAdmin(container, EMAIL, PASSWORD)

      // A paid order whose payment carries a scan id (its hosted form id).
      const { formId, result } = await checkoutWithCard(api, store, { number: APPROVE }, { scanned: true })
      if (result.type !== "order") {
        throw new Error(`checkout failed: ${JSON.stringify(result)}`)
      }
      orderId = result.order.id
      orderScanId = formId
      {
        const query = container.resolve(ContainerRegistrationKeys.QUERY)
        const {
          data: [order],
        } = await query.graph({
          entity: "order",
          fields: ["display_id", "email", "customer.first_name", "customer.last_name"],
          filters: { id: orderId },
        })
        orderNumber = `#${order.display_id}`
        const name = [order.customer?.first_name, order.customer?.last_name].filter(Boolean).join(" ")
        orderCustomer = name || (order.email as string)
      }

      server = await startAdminServer(new URL(api.defaults.baseURL as string))
      adminUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      browser = await launchChromium()
      page = await browser.newPage({ viewport: { width: 1440, height: 1100 } })
      // This machine is offline; the dashboard's own country flags come from a
      // CDN. Answer them locally so the console only shows what is ours.
      await page.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) =>
        route.fulfill({ status: 200, contentType: "image/svg+xml", body: '<svg xmlns="http://www.w3.org/2000/svg"/>' })
      )
      // The dashboard's bell polls Medusa's notifications every minute, on its own clock. A poll
      // that lands while the runner snapshots or restores the database between two steps gets a
      // 500 that says nothing about our pages, so it is answered here (no notification).
      await page.route(/\/admin\/notifications(\?|$)/, (route) =>
        route.fulfill({ json: { notifications: [], count: 0, offset: 0, limit: 1 } })
      )
      page.on("request", (request) => {
        inFlight++
        apiCalls.push(request.url())
      })
      page.on("requestfinished", () => {
        inFlight--
      })
      page.on("requestfailed", (request) => {
        inFlight--
        requestFailures.push(`${request.method()} ${request.url()} ${request.failure()?.errorText ?? ""}`)
      })
      page.on("response", async (response) => {
        const ours = response.url().includes("/admin/servicescan/")
        if (expected(response.request().method(), response.url(), response.status())) {
          return
        }
        if ((ours && response.status() >= 400) || response.status() >= 500) {
          const body = await response.text().catch(() => "")
          const request = response.request()
          apiFailures.push(
            `${request.method()} ${new URL(response.url()).pathname} ${response.status()} ${body.slice(0, 300)} ` +
              `(request body ${request.postData() ?? "none"}, headers ${JSON.stringify(await request.allHeaders())})`
          )
        }
      })
      page.on("console", (message) => {
        if (message.type() !== "error") {
          return
        }
        // Chromium logs every 4xx; the ones a step asked for are not errors of the page.
        const status = /status of (\d{3})/.exec(message.text())?.[1]
        const url = message.location().url
        if (status && url && expectedFailures.some((f) => f.status === Number(status) && f.path.test(new URL(url).pathname))) {
          return
        }
        consoleErrors.push(message.text())
      })
    })

    // The runner restores the database before each test; these tests are the
    // steps of one story, so each step's end state becomes the next one's start.
    // Snapshotting ends the database's connections, so requests the dashboard
    // still has in flight are let finish first.
    // Playwright's "networkidle" only covers real navigations, and the
    // dashboard fetches after client-side ones: count requests ourselves.
    afterEach(async () => {
      await settle()
      await dbUtils.snapshot()
    })

    afterAll(async () => {
      await browser?.close()
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)))
      await sandbox?.close()
    })

    it("logs in through the dashboard", async () => {
      await page.goto(`${adminUrl}/app/login`)
      await page.locator('input[name="email"]').fill(EMAIL)
      await page.locator('input[name="password"]').fill(PASSWORD)
      await page.getByRole("button", { name: "Continue with Email" }).click()
      await page.waitForURL(/\/app\/orders/, { timeout: 60_000 })
      // The sidebar has the Disputes entry.
      await page.getByRole("link", { name: "Disputes", exact: true }).waitFor()
    })

    it("shows the order's scan id and an empty state on the order page", async () => {
      await page.goto(`${adminUrl}/app/orders/${orderId}`)
      const widget = page.locator("text=Card-scan evidence from ServiceScan for disputes on this order.")
      await widget.waitFor({ timeout: 60_000 })
      await page.getByText("No chargebacks", { exact: true }).waitFor()
      await page.getByRole("list", { name: "Scan ids of this order's payments" }).getByText(orderScanId).waitFor()
      await shot("01-order-empty", page.getByRole("heading", { name: "Chargebacks" }))
    })

    it("records a chargeback from the order page; the order's scan goes to ServiceScan", async () => {
      await page.getByRole("button", { name: "Record chargeback" }).first().click()
      const drawer = page.getByRole("dialog", { name: "Record chargeback" })
      await drawer.waitFor()
      await drawer.getByRole("textbox", { name: "Processor dispute ID" }).fill("dp_e2e_1")
      await drawer.getByRole("textbox", { name: "Reason (optional)" }).fill("Fraudulent transaction")
      await drawer.getByRole("textbox", { name: "Reason code (optional)" }).fill("10.4")
      const due = new Date(Date.now() + 2 * 24 * 60 * 60 * 1000)
      const dueText = `${due.getFullYear()}-${String(due.getMonth() + 1).padStart(2, "0")}-${String(due.getDate()).padStart(2, "0")}`
      await drawer.getByLabel("Respond by (optional)").fill(dueText)
      await shot("02-record-form")
      await drawer.getByRole("button", { name: "Record chargeback" }).click()
      await page.getByText("Chargeback recorded").waitFor()
      await page.getByRole("heading", { name: "Chargeback dp_e2e_1" }).waitFor()
      await page.getByText("Evidence pending").first().waitFor()
      await page.getByText("Awaiting verdict").first().waitFor()

      const { data } = await api.get(`/admin/servicescan/chargebacks?order_id=${orderId}`, store.adminHeaders)
      chargebackId = data.items[0].id
      await shot("03-order-pending", page.getByRole("heading", { name: "Chargeback dp_e2e_1" }))
    })

    it("refuses a malformed scan id before sending, then attaches a second scan", async () => {
      const { body } = await sandboxFetch<{ scanId: string }>("/__sandbox/scans", {
        body: { accountId: sandbox.demo.accountId },
      })
      extraScanId = body.scanId
      await page.getByRole("button", { name: "Actions for chargeback dp_e2e_1" }).click()
      await page.getByRole("menuitem", { name: "Attach scan ids" }).click()
      const drawer = page.getByRole("dialog", { name: "Attach scan ids" })
      const field = drawer.getByRole("textbox", { name: "Scan ids" })
      await field.fill("not-a-uuid")
      await drawer.getByRole("button", { name: "Attach and send" }).click()
      await drawer.getByText('"not-a-uuid" is not a valid scan id.').waitFor()
      await shot("04-attach-invalid")
      await field.fill(extraScanId)
      await drawer.getByRole("button", { name: "Attach and send" }).click()
      await page.getByText("Scan id attached").waitFor()
    })

    it("checks now and shows the verdicts, with the image from the admin proxy", async () => {
      // ServiceScan labels the order's scan valid and the extra one fraudulent (the real service's word).
      await sandboxFetch(`/__sandbox/scans/${orderScanId}/label`, { body: { groundTruth: "valid" } })
      await sandboxFetch(`/__sandbox/scans/${extraScanId}/label`, { body: { groundTruth: "fraud" } })

      await page.getByRole("button", { name: "Check now" }).click()
      await page.getByText("Evidence received").waitFor()
      await page.getByText("Evidence ready").first().waitFor()
      await page.getByText("Worth disputing").first().waitFor()
      await page.getByText("Likely true fraud").first().waitFor()

      const thumbnail = page.getByRole("img", { name: `Card scan ${orderScanId} (worth disputing)` })
      await thumbnail.waitFor()
      await thumbnail.scrollIntoViewIfNeeded()
      await page.waitForFunction(
        (alt) => {
          const img = [...document.images].find((candidate) => candidate.alt === alt)
          return Boolean(img && img.complete && img.naturalWidth > 0)
        },
        `Card scan ${orderScanId} (worth disputing)`
      )
      expect(await thumbnail.getAttribute("src")).toBe(`/admin/servicescan/scans/${orderScanId}/image`)
      // Only the valid scan has an image; nothing on the page points at the service.
      expect(await page.getByRole("img", { name: /card scan/i }).count()).toBe(1)
      const html = await page.content()
      expect(html).not.toContain(sandbox.url)
      expect(html).not.toContain("/disputes/image/")
      expect(html).not.toContain(SECRET_KEY)
      await shot("05-order-evidence")

      // The download link is the proxy with download=1, answered as an attachment.
      const href = await page.getByRole("link", { name: `Download image of scan ${orderScanId}` }).getAttribute("href")
      expect(href).toBe(`/admin/servicescan/scans/${orderScanId}/image?download=1`)
      const download = await page.evaluate(async (url) => {
        const response = await fetch(url, { credentials: "include" })
        const bytes = new Uint8Array(await response.arrayBuffer())
        return {
          status: response.status,
          type: response.headers.get("content-type"),
          disposition: response.headers.get("content-disposition"),
          // A JPEG starts with FF D8.
          jpeg: bytes.length > 2 && bytes[0] === 0xff && bytes[1] === 0xd8,
        }
      }, href as string)
      expect(download).toEqual({
        status: 200,
        type: "image/jpeg",
        disposition: `attachment; filename="${orderScanId}.jpg"`,
        jpeg: true,
      })
    })

    it("opens the image large in a modal and closes it with Escape", async () => {
      await page.getByRole("button", { name: `Open a larger view of the image of scan ${orderScanId}` }).click()
      const dialog = page.getByRole("dialog")
      await dialog.getByText(`Scan ${orderScanId}`).waitFor()
      await page.waitForFunction(() =>
        [...document.querySelectorAll('[role="dialog"] img')].some(
          (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0
        )
      )
      await shot("06-image-modal")
      await page.keyboard.press("Escape")
      await dialog.waitFor({ state: "detached" })
    })

    /** The Disputes list: a DataTable whose <table> is named for screen readers. */
    const disputesTable = () => page.getByRole("table", { name: "Chargebacks" })
    const disputeRow = (text: string) => disputesTable().getByRole("row").filter({ hasText: text })

    it("lists the dispute on the Disputes page with the order's number and customer, filters it, and opens it", async () => {
      await page.getByRole("link", { name: "Disputes", exact: true }).click()
      await page.getByRole("heading", { name: "Disputes", level: 1 }).waitFor()
      const row = disputeRow("dp_e2e_1")
      await row.waitFor()
      // The order as Medusa's own lists name it, linking to it, and its customer; not the raw id.
      const orderLink = row.getByRole("link", { name: `Order ${orderNumber}` })
      expect(await orderLink.textContent()).toBe(orderNumber)
      expect(await orderLink.getAttribute("href")).toBe(`/app/orders/${orderId}`)
      await row.getByText(orderCustomer, { exact: true }).waitFor()
      expect(await row.textContent()).not.toContain(orderId)
      await row.getByText("1 worth disputing · 1 likely true fraud").waitFor()
      await row.getByText("Due in 2 days").waitFor()
      await shot("07-disputes-list")

      // The DataTable's controls have names, and the keyboard reaches them: from the
      // search box, Shift+Tab goes back through the column, sort and filter menus.
      const search = page.getByRole("searchbox", { name: "Search chargebacks" })
      await search.focus()
      const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent ?? "")
      await page.keyboard.press("Shift+Tab")
      expect(await focused()).toBe("Columns")
      await page.keyboard.press("Shift+Tab")
      expect(await focused()).toBe("Sort")
      await page.keyboard.press("Shift+Tab")
      expect(await focused()).toBe("Add filter")
      // Enter opens the filter menu; its filters are menu items, the arrows move between
      // them and Enter picks one. That opens its options (the DataTable's own popover,
      // its search box focused), where Tab reaches each option and Space ticks Lost.
      // Keyboard alone: no click from here until the list is filtered.
      await page.keyboard.press("Enter")
      const statusItem = page.getByRole("menuitem", { name: "Status" })
      await statusItem.waitFor()
      expect(await page.getByRole("menuitem").allTextContents()).toEqual(["Status", "Respond by"])
      // Radix focuses the first item once the menu is open; an arrow pressed before moves to it instead.
      const isFocused = (name: string) =>
        page.waitForFunction((text) => document.activeElement?.textContent === text, name, { timeout: 5_000 })
      await isFocused("Status")
      await page.keyboard.press("ArrowDown")
      await isFocused("Respond by")
      await page.keyboard.press("ArrowUp")
      await isFocused("Status")
      await page.keyboard.press("Enter")
      await statusItem.waitFor({ state: "detached" })
      // The options' search box has the focus (components/filter-focus.ts), not the funnel button.
      await page.waitForFunction(() => document.activeElement?.getAttribute("placeholder") === "Search...", undefined, {
        timeout: 5_000,
      })
      // Each Tab is one option: the decorative checkbox inside each is no tab stop of its own.
      const tabbed: string[] = []
      while (tabbed.length < 15 && tabbed.at(-1) !== "Lost") {
        await page.keyboard.press("Tab")
        tabbed.push(await focused())
      }
      expect(tabbed).toEqual(["Open", "Evidence pending", "Evidence ready", "No evidence", "Won", "Lost"])
      await page.keyboard.press("Space")
      await page.waitForURL(/status=lost/)
      await page.keyboard.press("Escape")
      await page.getByText("No chargebacks match").waitFor()
      const listCalls = apiCalls.filter((url) => url.includes("/admin/servicescan/chargebacks?"))
      // Filtered by the server, through the list route's query parameters.
      expect(listCalls.some((url) => new URL(url).searchParams.get("status") === "lost")).toBe(true)
      await shot("07b-disputes-filtered")
      await page.getByRole("button", { name: "Clear all" }).click()
      await row.waitFor()

      // Search by the order's number, as the admin knows it.
      await search.fill(orderNumber)
      await page.waitForURL(/q=%23\d+/)
      await row.waitFor()
      // Tab from the search box into the table reaches the row's link; Enter opens the dispute.
      await search.focus()
      let reached = false
      for (let i = 0; i < 30 && !reached; i++) {
        await page.keyboard.press("Tab")
        reached = await page.evaluate(() => document.activeElement?.textContent === "dp_e2e_1")
      }
      expect(reached).toBe(true)
      await page.keyboard.press("Enter")
      await page.waitForURL(new RegExp(`/app/disputes/${chargebackId}$`))
      await page.getByRole("heading", { level: 1, name: "Chargeback dp_e2e_1" }).waitFor()
      // The breadcrumb names the dispute by the processor's id, not the internal one.
      await page.locator("ol").getByText("dp_e2e_1", { exact: true }).waitFor()
      await page.getByRole("link", { name: `Order ${orderNumber}` }).waitFor()
      await page.getByText(orderCustomer, { exact: true }).first().waitFor()
      await shot("08-dispute-page")
    })

    it("sets the outcome after confirmation", async () => {
      await page.getByRole("button", { name: "Actions for chargeback dp_e2e_1" }).click()
      await page.getByRole("menuitem", { name: "Mark as won" }).click()
      await page.getByRole("alertdialog").getByRole("button", { name: "Confirm" }).click()
      await page.getByText("Marked as won").waitFor()
      await page.getByText("Won", { exact: true }).first().waitFor()
    })

    let caseId: string
    let unmatchedCaseId: string
    const casePanel = () => page.getByTestId("dispute-case").filter({ hasText: `Worldpay case ${caseId}` })

    it("imports a case raised at Worldpay on the order's authorization, with Import now", async () => {
      caseId = await raiseCase({ cnpTxnId: await orderCnpTxnId() })
      // And one on a payment the store never saw.
      unmatchedCaseId = await raiseCase({ cnpTxnId: await authorizeOutsideTheStore("phone-order-77", 500) })

      // From the sidebar (the dispute page's breadcrumb links to Disputes too).
      await page.getByRole("navigation").getByRole("link", { name: "Disputes", exact: true }).first().click()
      await page.getByRole("heading", { name: "Disputes", level: 1 }).waitFor()
      await page.getByRole("button", { name: "Import now" }).click()
      // The scheduled job may have run first; either way the import went through.
      await page.getByText(/^(Imported \d+ cases?|Up to date)$/).first().waitFor()
      await disputeRow(caseId).waitFor()
      await page.getByRole("tab", { name: "Unmatched cases 1 waiting" }).waitFor()
    })

    it("shows the case on the order page: reason, reply-by countdown, queue and timeline", async () => {
      await page.goto(`${adminUrl}/app/orders/${orderId}`)
      const panel = casePanel()
      await panel.getByRole("heading", { name: `Worldpay case ${caseId}` }).waitFor({ timeout: 60_000 })
      await panel.getByText("First Chargeback").waitFor()
      await panel.getByText("10.4 · Other Fraud - Card Absent Environment").waitFor()
      await panel.getByTestId("reply-by-countdown").getByText("14 days left").waitFor()
      await panel.getByText("Waiting for you").waitFor()
      await panel.getByTestId("response-status").getByText("Not answered").waitFor()
      await panel.getByTestId("case-activity").getByText("Chargeback assigned to you").waitFor()
      expect(await panel.getByTestId("case-activity").count()).toBe(1)

      // The case's chargeback sent the order's scan to ServiceScan (labelled valid earlier): until the verdict is in, no representment.
      const send = panel.getByRole("button", { name: "Send evidence to Worldpay" })
      const section = page.getByTestId("chargeback-section").filter({ has: panel })
      if (await send.isDisabled()) {
        await panel.getByText("The evidence is not ready: ServiceScan has not returned its verdict yet.").waitFor()
        await section.getByRole("button", { name: "Check now" }).click()
      }
      await section.getByText("Worth disputing").first().waitFor()
      await page.waitForFunction(
        (name) => {
          const button = [...document.querySelectorAll("button")].find((b) => b.textContent?.trim() === name)
          return Boolean(button && !button.disabled)
        },
        "Send evidence to Worldpay"
      )
      await panel.getByRole("button", { name: "Accept liability" }).waitFor()
    })

    it("downloads the case's evidence pack as a PDF", async () => {
      const [download] = await Promise.all([
        page.waitForEvent("download", { timeout: 60_000 }),
        casePanel().getByRole("link", { name: "Download evidence pack" }).click(),
      ])
      expect(download.suggestedFilename()).toMatch(/\.pdf$/)
      const file = await download.path()
      const bytes = await readFile(file as string)
      expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-")
      // With the valid scan's image in it, not an empty shell.
      expect(bytes.length).toBeGreaterThan(10_000)
    })

    it("sends the evidence to Worldpay after confirmation, and the timeline shows the representment", async () => {
      const panel = casePanel()
      await panel.getByRole("button", { name: "Send evidence to Worldpay" }).click()
      const prompt = page.getByRole("alertdialog")
      await prompt.getByText("Send evidence to Worldpay?").waitFor()
      await shot("10-send-evidence-confirm")
      await prompt.getByRole("button", { name: "Send evidence" }).click()
      await page.getByText("Evidence sent to Worldpay").first().waitFor({ timeout: 60_000 })

      // The timeline changed: the processor's new activity on top, our answer recorded.
      const newest = panel.getByTestId("case-activity").first()
      await newest.getByText("Evidence sent: chargeback represented").waitFor()
      expect(await panel.getByTestId("case-activity").count()).toBe(2)
      await panel.getByTestId("response-status").getByText("Evidence sent").waitFor()
      await panel.getByText(/^Already answered: the evidence was sent on /).waitFor()
      expect(await panel.getByRole("button", { name: "Send evidence to Worldpay" }).isDisabled()).toBe(true)
      expect(await panel.getByRole("button", { name: "Accept liability" }).isDisabled()).toBe(true)
      await shot("11-order-case-represented", panel.getByRole("heading", { name: `Worldpay case ${caseId}` }))

      // At Worldpay: one document on the case and one representment.
      const { body } = await sandboxFetch<SandboxCase>(`/__sandbox/chargebacks/${caseId}`)
      expect(body.documents).toHaveLength(1)
      expect(body.activities.filter((a) => a.activityType === "Merchant Represent")).toHaveLength(1)
    })

    it("reads Represented in the list and at the top of the represented chargeback's page, as its case panel says", async () => {
      await page.getByRole("navigation").getByRole("link", { name: "Disputes", exact: true }).first().click()
      const row = disputeRow(caseId)
      await row.getByText("Represented", { exact: true }).waitFor()
      expect(await row.getByText("Evidence ready").count()).toBe(0)
      // The README's list: the recorded dispute (won) and the imported case (represented), each with its order.
      await disputeRow("dp_e2e_1").getByText("Won", { exact: true }).waitFor()
      expect(await row.getByRole("link", { name: `Order ${orderNumber}` }).count()).toBe(1)
      await shot("11a-disputes-represented", undefined, "admin-disputes.png")
      await row.getByRole("link", { name: caseId }).click()
      const heading = page.getByRole("heading", { level: 1, name: `Chargeback ${caseId}` })
      await heading.waitFor()
      const top = page.getByTestId("chargeback-section").first()
      await top.getByText("Represented", { exact: true }).first().waitFor()
      await top.getByText("The evidence pack is on the case and the chargeback was represented; the card network decides next.").first().waitFor()
      await page.getByTestId("response-status").getByText("Evidence sent").waitFor()
      expect(await page.getByText("Evidence ready", { exact: true }).count()).toBe(0)
      // The case panel and its timeline, as the README shows them.
      const caseSection = casePanel()
      await caseSection.getByRole("heading", { name: `Worldpay case ${caseId}` }).waitFor()
      await caseSection.getByText(`Activity at Worldpay`).waitFor()
      await caseSection.getByTestId("case-activity").first().getByText("Evidence sent: chargeback represented").waitFor()
      await shot("11b-dispute-represented", caseSection, "admin-dispute-case.png")
    })

    it("lists the unmatched case with the processor's data, and assigns it to the order", async () => {
      await page.getByRole("navigation").getByRole("link", { name: "Disputes", exact: true }).first().click()
      await page.getByRole("tab", { name: /^Unmatched cases/ }).click()
      await page.waitForURL(/view=unmatched/)
      // The DataTable, as the chargeback list: a named table, its search box and sort menu.
      const table = page.getByRole("table", { name: "Unmatched cases" })
      const row = table.getByRole("row").filter({ hasText: unmatchedCaseId })
      await row.waitFor()
      await page.getByRole("searchbox", { name: "Search cases" }).waitFor()
      await page.getByRole("button", { name: "Sort" }).waitFor()
      await row.getByText("Order ref. phone-order-77").waitFor()
      await row.getByText("$5.00").waitFor()
      await row.getByText("14 days left").waitFor()
      await shot("12-unmatched-cases", page.getByRole("tab", { name: /^Unmatched cases/ }))

      await row.getByRole("button", { name: /^Assign to order/ }).click()
      const drawer = page.getByRole("dialog", { name: "Assign to order" })
      const field = drawer.getByRole("textbox", { name: "Order ID" })
      await field.fill("#1001")
      await drawer.getByRole("button", { name: "Assign to order" }).click()
      await drawer.getByText(/looks like the order's display number/).waitFor()

      // An order that does not exist: the server's message, in the form.
      expectedFailures.push({ method: "POST", path: /\/admin\/servicescan\/cases\/[^/]+\/assign$/, status: 404 })
      await field.fill("order_01JZZZZZZZZZZZZZZZZZZZZZZZ")
      await drawer.getByRole("button", { name: "Assign to order" }).click()
      await drawer.getByRole("alert").getByText(/order_01JZZZZZZZZZZZZZZZZZZZZZZZ/).waitFor()

      await field.fill(orderId)
      await drawer.getByRole("button", { name: "Assign to order" }).click()
      await page.getByText(`Case ${unmatchedCaseId} assigned`).waitFor()
      await page.getByText("No unmatched cases").waitFor()
      const { data } = await api.get(`/admin/servicescan/chargebacks?order_id=${orderId}&limit=50`, store.adminHeaders)
      expect(data.items.map((item: { external_id: string }) => item.external_id)).toEqual(
        expect.arrayContaining(["dp_e2e_1", caseId, unmatchedCaseId])
      )
    })

    it("shows the service's health without any key", async () => {
      await page.goto(`${adminUrl}/app/settings/servicescan`)
      await page.getByRole("heading", { name: "ServiceScan", level: 1 }).waitFor()
      await page.getByText("Reachable").waitFor()
      await page.getByText("Disputes secret key").waitFor()
      // The processor's chargeback API: which one, never its URL or password; and the policy in words.
      await page.getByText("Dispute gateway").waitFor()
      await page.getByText("Worldpay", { exact: true }).waitFor()
      await page.getByText("Off: an admin answers each case").waitFor()
      const html = await page.content()
      expect(html).not.toContain("demo-password")
      expect(html).not.toContain(SECRET_KEY)
      expect(html).not.toContain("whsec_test_servicescan_demo")
      await shot("09-health")
    })

    it("shows the plugin's pages in German once the admin switches their language to German", async () => {
      await page.goto(`${adminUrl}/app/settings/profile/edit`)
      const drawer = page.getByRole("dialog")
      await drawer.getByRole("combobox").click()
      await page.getByRole("option", { name: "Deutsch" }).click()
      await drawer.getByRole("button", { name: "Save" }).click()
      await drawer.waitFor({ state: "detached" })

      await page.goto(`${adminUrl}/app/disputes`)
      await page.getByRole("heading", { level: 1, name: "Streitfälle" }).waitFor({ timeout: 60_000 })
      // The sidebar entry (its label a key of the plugin's namespace), the tabs, the table.
      await page.getByRole("navigation").getByRole("link", { name: "Streitfälle", exact: true }).first().waitFor()
      await page.getByRole("tab", { name: "Rückbuchungen" }).waitFor()
      const table = page.getByRole("table", { name: "Rückbuchungen" })
      await table.getByText("Antwort bis").waitFor()
      await table.getByRole("link", { name: `Bestellung ${orderNumber}` }).first().waitFor()
      await table.getByRole("row").filter({ hasText: caseId }).getByText("Widersprochen", { exact: true }).waitFor()
      await page.getByRole("searchbox", { name: "Rückbuchungen durchsuchen" }).waitFor()
      expect(await page.getByText("Chargebacks on your orders", { exact: false }).count()).toBe(0)
      await shot("13-disputes-german")
      // The other tab, its DataTable and Import now speak German too.
      await page.getByRole("button", { name: "Jetzt importieren" }).waitFor()
      await page.getByRole("tab", { name: /^Nicht zugeordnete Fälle/ }).click()
      await page.getByText("Keine nicht zugeordneten Fälle").waitFor()
      await page.getByRole("searchbox", { name: "Fälle durchsuchen" }).waitFor()
      await page.getByRole("tab", { name: "Rückbuchungen" }).click()

      await table.getByRole("row").filter({ hasText: caseId }).getByRole("link", { name: caseId }).click()
      await page.getByRole("heading", { level: 1, name: `Rückbuchung ${caseId}` }).waitFor()
      await page.getByText("Alle Streitfälle").waitFor()
      await page.getByText("Strittiger Betrag").waitFor()

      // The order page's widget too.
      await page.goto(`${adminUrl}/app/orders/${orderId}`)
      await page.getByText("Kartenscan-Belege von ServiceScan für Streitfälle zu dieser Bestellung.").waitFor({ timeout: 60_000 })
      await shot("14-order-german")
    })

    it("logged no errors in the browser console and no failed admin API call", () => {
      expect(requestFailures).toEqual([])
      expect(apiFailures).toEqual([])
      expect(consoleErrors).toEqual([])
    })
  },
})
