import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { appTestRunner } from "../helpers/app-runner"
import { launchChromium } from "../../scripts/chromium.cjs"
import { signUpCustomer } from "../helpers/customer"
import { lastSeq, movesSince, PROCESSORS } from "../helpers/processors"
import { reserveSandboxUrl, sandboxFetch, startTestSandbox, TestSandbox } from "../helpers/sandbox"
import { SeededStore, seedStore } from "../helpers/store"
import { startStorefrontPage } from "../helpers/storefront-page"

/**
 * A shopper pays in Chromium, once per processor (helpers/processors.ts): the widget's card
 * form renders the hosted form's iframe, the card is typed into it, and `payWithServiceScan`
 * completes the cart with the provider the page names. Counted at the sandbox: one exchange and
 * one authorization at that processor, for the order's payment. The page is the saved-cards
 * page (helpers/saved-card-page.tsx): a signed-in shopper without saved cards sees the card form.
 */
reserveSandboxUrl()
jest.setTimeout(180_000)

/** SCREENSHOTS=1 writes the README's storefront picture (the first processor's form, card typed) into docs/screenshots. */
const DOC_SHOTS = process.env.SCREENSHOTS === "1" ? join(__dirname, "../../docs/screenshots") : ""

const APPROVE = "4457119922390123"
const PASSWORD = "correct horse battery staple"

appTestRunner({
  testSuite: ({ api, getContainer }) => {
    let sandbox: TestSandbox
    let store: SeededStore

    beforeAll(async () => {
      sandbox = await startTestSandbox()
      store = await seedStore(getContainer())
    })

    afterAll(async () => {
      await sandbox?.close()
    })

    const stats = async () => (await sandboxFetch<{ requests: Record<string, number> }>("/__sandbox/stats")).body.requests

    it.each(PROCESSORS)("pays with $name: the card typed into the hosted form's iframe, one exchange and one authorization", async (processor) => {
      const shopper = await signUpCustomer(api, store, `browser-${processor.name}@example.com`, PASSWORD)
      const { data: cart } = await api.post(
        "/store/carts",
        { region_id: store.regionId, items: [{ variant_id: store.variantId, quantity: 1 }], email: shopper.email },
        shopper.headers
      )
      const storefront = await startStorefrontPage(join(__dirname, "../helpers/saved-card-page.tsx"), String(api.defaults.baseURL), {
        publishableKey: store.publishableKey,
        cartId: cart.cart.id,
        email: shopper.email,
        password: PASSWORD,
        providerId: processor.providerId,
      })
      const browser = await launchChromium()
      try {
        const page = await browser.newPage()
        const problems: string[] = []
        page.on("pageerror", (error) => problems.push(String(error)))
        await page.goto(storefront.url)

        // No saved card yet: the card form, the hosted form's iframe.
        const frame = page.frameLocator("iframe")
        await frame.locator('input[autocomplete="cc-number"]').waitFor({ timeout: 30_000 })
        for (const [field, value] of [
          ["cc-number", APPROVE],
          ["cc-exp", "12/30"],
          ["cc-csc", "123"],
        ]) {
          await frame.locator(`input[autocomplete="${field}"]`).pressSequentially(value)
        }
        // What the shopper sees (and the README's picture shows): the page's checkout, the
        // hosted form with the card typed into it, and the pay button.
        await page.getByRole("heading", { name: "Checkout" }).waitFor()
        expect(await page.getByRole("button", { name: "Pay" }).isVisible()).toBe(true)
        expect(await frame.locator('input[autocomplete="cc-number"]').inputValue()).toMatch(/4457\D*1199\D*2239\D*0123/)
        if (DOC_SHOTS && processor === PROCESSORS[0]) {
          await mkdir(DOC_SHOTS, { recursive: true })
          // A checkout column's width, as a shopper's page would give the form.
          await page.setViewportSize({ width: 720, height: 480 })
          await page.screenshot({ path: join(DOC_SHOTS, "storefront-card-form.png"), fullPage: true })
        }

        const mark = await lastSeq(processor)
        const before = await stats()
        await page.click("#pay")
        await page.waitForFunction(() => !!document.querySelector("#result")?.textContent, undefined, { timeout: 60_000 })
        const result = JSON.parse((await page.textContent("#result")) as string)
        expect(result).toEqual({ order_id: expect.stringMatching(/^order_/) })
        expect(problems).toEqual([])

        // At the sandbox: one exchange, one authorization at this processor and none at the other.
        const after = await stats()
        expect((after["token.exchange"] ?? 0) - (before["token.exchange"] ?? 0)).toBe(1)
        expect((after[processor.routes.authorize] ?? 0) - (before[processor.routes.authorize] ?? 0)).toBe(1)
        for (const other of PROCESSORS.filter((candidate) => candidate !== processor)) {
          expect(after[other.routes.authorize] ?? 0).toBe(before[other.routes.authorize] ?? 0)
        }
        const moves = movesSince(await processor.moves(), mark)
        expect(moves).toEqual([expect.objectContaining({ kind: "authorization", amount: 1050, ok: true, shopper: shopper.id })])
      } finally {
        await browser.close()
        await storefront.close()
      }
    })
  },
})
