// `npm run demo -- --smoke`: checks the running demo end to end, for each processor in turn
// (Worldpay, then Adyen; only DEMO_PROCESSOR's when it is set):
//   1. a checkout through the store API, the card submitted to the sandbox's form API (scanned),
//      counted at the sandbox: one token exchange and one authorization at the processor;
//   2. a capture and two partial refunds, counted at the processor;
//   3. a declined card gives a plain-language error and no order;
//   4. a chargeback through the signed webhook reaches "evidence ready" by itself, and the
//      admin image proxy serves the scan's picture; a chargeback raised at the processor is
//      imported (Worldpay) or pushed (Adyen), proven and represented by itself (smoke-evidence-loop.mjs);
//   5. in Chromium (scripts/chromium.cjs: CHROMIUM_PATH, a system one, or the packaged one): the
//      storefront page paying through that processor, the approving card typed into the hosted
//      form's iframe, a screenshot.
// Then, once, the admin's order page in Chromium, a screenshot. Ends with one line per processor
// saying how its processor chargeback ended ("represented").
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { sendChargeback } from "./chargeback.mjs"
import { checkEvidenceLoop } from "./smoke-evidence-loop.mjs"
import { findChromium, launchChromium } from "../../../scripts/chromium.cjs"
import { bold, dim, formatDuration, green, red, sleep, yellow } from "./util.mjs"

const APPROVE = "4457119922390123"
const DECLINE = "4000000000009995"

class Check {
  constructor(label) {
    this.label = label
    this.started = Date.now()
  }
  pass(detail = "") {
    process.stdout.write(`  ${green("✓")} ${this.label}${detail ? dim(` · ${detail}`) : ""} ${dim(formatDuration(Date.now() - this.started))}\n`)
  }
  fail(error) {
    process.stdout.write(`  ${red("✗")} ${this.label}: ${red(error instanceof Error ? error.message : String(error))}\n`)
  }
}

function assert(condition, message) {
  if (!condition) throw new Error(message)
}

async function json(url, { method = "GET", body, headers = {} } = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  })
  const text = await res.text()
  let parsed
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    parsed = text
  }
  return { status: res.status, body: parsed, text }
}

/** A checkout through the store API, as the storefront does, with the card sent to the sandbox's form API. */
async function apiCheckout({ urls, seed, sandbox }, card, { scanned, providerId }) {
  const store = { "x-publishable-api-key": seed.publishableKey }
  const { body: productsBody } = await json(`${urls.medusa}/store/products?handle=scanner-sticker&region_id=${seed.regionId}`, { headers: store })
  const variantId = productsBody?.products?.[0]?.variants?.[0]?.id
  assert(variantId, `no product "scanner-sticker" in the store API: ${JSON.stringify(productsBody).slice(0, 200)}`)
  const cart = await json(`${urls.medusa}/store/carts`, {
    method: "POST",
    headers: store,
    body: { region_id: seed.regionId, email: "smoke@example.com", items: [{ variant_id: variantId, quantity: 2 }] },
  })
  assert(cart.status === 200, `creating the cart answered ${cart.status}: ${cart.text.slice(0, 300)}`)
  const cartId = cart.body.cart.id
  const pc = await json(`${urls.medusa}/store/payment-collections`, { method: "POST", headers: store, body: { cart_id: cartId } })
  assert(pc.status === 200, `creating the payment collection answered ${pc.status}: ${pc.text.slice(0, 300)}`)
  const collectionId = pc.body.payment_collection.id
  const sessionUrl = `${urls.medusa}/store/payment-collections/${collectionId}/payment-sessions`
  const started = await json(sessionUrl, { method: "POST", headers: store, body: { provider_id: providerId } })
  assert(started.status === 200, `starting the payment session answered ${started.status}: ${started.text.slice(0, 300)}`)
  const session = started.body.payment_collection.payment_sessions.find((s) => s.provider_id === providerId)
  assert(session?.data?.client_script_url && session.data.shareable_key, `the session lacks the form's data: ${JSON.stringify(session?.data)}`)
  const secrets = ["ptk_test_servicescan_demo", "sk_test_servicescan_demo", "demo-password", "AQE_test_servicescan_demo_adyen_api_key", "5934AD24EED2B42F39D1F8BBAA602FF05E7D291AC95BC71EA5538AC41B6F0F56", "demo-webhook-password"]
  for (const secret of secrets) {
    assert(!started.text.includes(secret), `the store API sent a secret to the browser (${secret.slice(0, 4)}…)`)
  }
  // What the hosted form's iframe does when the shopper presses Pay.
  const { formConfig = {} } = { formConfig: session.data.form_config }
  const config = Object.fromEntries(["customerId", "id", "reportGroup"].filter((k) => formConfig[k]).map((k) => [k, formConfig[k]]))
  const form = await json(`${sandbox.url}/api/v1/forms`, {
    method: "POST",
    headers: { origin: urls.storefront },
    body: { key: session.data.shareable_key, card: { number: card, cvv: "123", expiry: "12/30" }, config, scanned },
  })
  assert(form.status === 200, `the sandbox's form API answered ${form.status}: ${form.text.slice(0, 300)}`)
  const sent = await json(sessionUrl, {
    method: "POST",
    headers: store,
    body: { provider_id: providerId, data: { form_id: form.body.formId, response_code: form.body.responseCode } },
  })
  assert(sent.status === 200, `sending the form id answered ${sent.status}: ${sent.text.slice(0, 300)}`)
  const done = await json(`${urls.medusa}/store/carts/${cartId}/complete`, { method: "POST", headers: store, body: {} })
  return { result: done.body, status: done.status, formId: form.body.formId, cartId }
}

async function adminToken(urls, email, password) {
  const res = await json(`${urls.medusa}/auth/user/emailpass`, { method: "POST", body: { email, password } })
  assert(res.status === 200 && res.body?.token, `admin login answered ${res.status}: ${res.text.slice(0, 200)}`)
  return res.body.token
}

export async function runSmoke(ctx) {
  const { urls, running, adminEmail, adminPassword, processors } = ctx
  const outDir = await mkdtemp(join(tmpdir(), "servicescan-demo-smoke-"))
  let ok = true
  const step = async (label, fn) => {
    const check = new Check(label)
    try {
      const detail = await fn()
      check.pass(detail)
      return true
    } catch (error) {
      ok = false
      check.fail(error)
      return false
    }
  }
  const token = await adminToken(urls, adminEmail, adminPassword)
  const found = await findChromium().catch((error) => error)
  const browser = found instanceof Error ? null : await launchChromium()
  running.browser = browser
  /** How each processor's chargeback raised at the processor ended, for the last lines. */
  const outcomes = []
  let lastOrder
  for (const processor of processors) {
    process.stdout.write(`\n  ${bold(`Smoke test · ${processor.label}`)} ${dim(`(${processor.providerId})`)}\n`)
    const order = await smokeProcessor({ ctx, processor, token, step, browser, outDir, outcomes })
    if (order?.chargebackId) lastOrder = order
  }

  if (!browser) {
    process.stdout.write(`  ${yellow("–")} Browser checks skipped: ${found.message}\n`)
  } else {
    await step("Admin in Chromium: log in, the order page shows the chargeback's evidence", async () => {
      assert(lastOrder?.chargebackId, "no chargeback to show")
      // A tall viewport: the admin scrolls inside its own container, so a full-page shot would stop at the fold.
      const page = await browser.newPage({ viewport: { width: 1440, height: 2400 } })
      page.setDefaultTimeout(60_000)
      await page.goto(`${urls.medusa}/app/login`)
      await page.locator('input[name="email"]').fill(adminEmail)
      await page.locator('input[name="password"]').fill(adminPassword)
      await page.locator('button[type="submit"]').click()
      await page.waitForURL((u) => !u.pathname.endsWith("/login"))
      await page.goto(`${urls.medusa}/app/orders/${lastOrder.id}`)
      await page.getByRole("heading", { name: "Chargebacks" }).waitFor()
      // The evidence's thumbnail is served by the admin image proxy.
      await page.locator(`img[src*="/admin/servicescan/scans/"]`).first().waitFor()
      await page.waitForLoadState("networkidle")
      const shot = join(outDir, "admin-order-chargeback.png")
      await page.screenshot({ path: shot })
      await page.goto(`${urls.medusa}/app/disputes`)
      await page.getByRole("heading", { name: "Disputes" }).waitFor()
      await page.waitForLoadState("networkidle")
      const list = join(outDir, "admin-disputes.png")
      await page.setViewportSize({ width: 1440, height: 900 })
      await page.screenshot({ path: list })
      await page.close()
      return `screenshots ${shot}, ${list}`
    })
    await browser.close()
    running.browser = null
  }

  process.stdout.write(`\n  ${bold("Chargebacks raised at the processor")}\n`)
  for (const { processor, outcome } of outcomes) {
    process.stdout.write(`    ${processor.label.padEnd(10)} ${outcome === "represented" ? green(outcome) : red(outcome)}\n`)
  }
  process.stdout.write(`\n  ${ok ? green(bold("Smoke test passed.")) : red(bold("Smoke test failed."))} ${dim(`Screenshots: ${outDir}`)}\n`)
  return ok
}

/** One processor's checks (see the top of this file); answers the API checkout's order. */
async function smokeProcessor({ ctx, processor, token, step, browser, outDir, outcomes }) {
  const { urls, sandbox } = ctx
  const { providerId } = processor
  const auth = { authorization: `Bearer ${token}` }
  let order
  let transactionId
  await step("Checkout through the store API (card scanned in the hosted form)", async () => {
    const before = (await json(`${sandbox.url}/__sandbox/stats`)).body.requests
    const { result, status, formId } = await apiCheckout(ctx, APPROVE, { scanned: true, providerId })
    assert(status === 200 && result?.type === "order", `cart completion answered ${status}: ${JSON.stringify(result).slice(0, 300)}`)
    order = result.order
    const after = (await json(`${sandbox.url}/__sandbox/stats`)).body.requests
    const calls = ["token.exchange", processor.paymentRoutes.authorize].map((k) => (after[k] ?? 0) - (before[k] ?? 0))
    // Exactly one exchange and one authorization: a second would be a second charge attempt.
    assert(calls[0] === 1 && calls[1] === 1, `the sandbox counted ${calls[0]} exchanges and ${calls[1]} authorizations (expected 1 and 1)`)
    order.formId = formId
    return `order ${order.id}, ${order.total} ${order.currency_code.toUpperCase()}, sandbox calls: ${calls[0]} exchange + ${calls[1]} ${processor.paymentRoutes.authorize}`
  })

  await step("The payment is authorized (admin API)", async () => {
    assert(order, "no order")
    const { status, body } = await json(`${urls.medusa}/admin/orders/${order.id}?fields=id,payment_status,*payment_collections.payments`, { headers: auth })
    assert(status === 200, `GET /admin/orders answered ${status}`)
    assert(body.order.payment_status === "authorized", `payment_status is ${body.order.payment_status}`)
    const payment = body.order.payment_collections?.[0]?.payments?.[0]
    assert(payment?.provider_id === providerId, `payment provider is ${payment?.provider_id}`)
    transactionId = payment.data?.cnp_txn_id
    assert(transactionId, `the payment holds no processor transaction id: ${JSON.stringify(payment.data)}`)
    return `payment_status authorized, provider ${payment.provider_id}, ${processor.label} id ${transactionId}`
  })

  await step(`Capture, then two partial refunds (admin API, counted at the sandbox's ${processor.label})`, async () => {
    assert(order && transactionId, "no order")
    const { body } = await json(`${urls.medusa}/admin/orders/${order.id}?fields=id,*payment_collections.payments`, { headers: auth })
    const paymentId = body.order.payment_collections[0].payments[0].id
    const capture = await json(`${urls.medusa}/admin/payments/${paymentId}/capture`, { method: "POST", headers: auth, body: {} })
    assert(capture.status === 200, `capture answered ${capture.status}: ${capture.text.slice(0, 300)}`)
    for (const amount of [5, 2.5]) {
      const refund = await json(`${urls.medusa}/admin/payments/${paymentId}/refund`, { method: "POST", headers: auth, body: { amount } })
      assert(refund.status === 200, `refund of ${amount} answered ${refund.status}: ${refund.text.slice(0, 300)}`)
    }
    const { body: after } = await json(`${urls.medusa}/admin/orders/${order.id}?fields=id,payment_status`, { headers: auth })
    const moves = await processor.moves({ sandboxUrl: sandbox.url, transactionId })
    const refunds = moves.filter((m) => m.startsWith("refund")).length
    assert(moves.filter((m) => m.startsWith("capture")).length === 1 && refunds === 2, `the processor saw ${moves.join(", ")} (expected one capture and two refunds)`)
    return `payment_status ${after.order.payment_status}; processor: ${moves.join(", ")}`
  })

  await step("A declined card gives a plain-language error and no order", async () => {
    const { result, status } = await apiCheckout(ctx, DECLINE, { scanned: false, providerId })
    assert(result?.type === "cart", `expected the cart back, got ${status} ${JSON.stringify(result).slice(0, 200)}`)
    const message = result.error?.message ?? ""
    // One sentence for every card decline: the reason stays with the merchant (card testing).
    assert(/declined/i.test(message) && !/insufficient|security code|cvv|expired|limit/i.test(message), `unexpected message: "${message}"`)
    return `"${message}"`
  })

  await step("Chargeback through the signed webhook reaches evidence_ready by itself", async () => {
    assert(order, "no order")
    // The order as it stands after the refunds above: a chargeback may not exceed its total (the webhook says 400).
    const { body: current } = await json(`${urls.medusa}/admin/orders/${order.id}?fields=id,total`, { headers: auth })
    order.total = current.order.total
    const sent = await sendChargeback({ medusaUrl: urls.medusa, orderId: order.id, amount: order.total, currencyCode: order.currency_code })
    assert(sent.status === 200 && sent.body?.chargeback_id, `the webhook answered ${sent.status}: ${JSON.stringify(sent.body)}`)
    const id = sent.body.chargeback_id
    const again = await sendChargeback({
      medusaUrl: urls.medusa,
      orderId: order.id,
      amount: order.total,
      currencyCode: order.currency_code,
      externalId: sent.externalId,
    })
    assert(again.status === 200 && again.body?.created === false, `a repeated delivery answered ${again.status} ${JSON.stringify(again.body)}`)
    const deadline = Date.now() + 90_000
    let chargeback
    const seen = []
    for (;;) {
      const res = await json(`${urls.medusa}/admin/servicescan/chargebacks/${id}`, { headers: auth })
      assert(res.status === 200, `GET chargeback answered ${res.status}: ${res.text.slice(0, 200)}`)
      chargeback = res.body.chargeback
      if (seen.at(-1) !== chargeback.status) seen.push(chargeback.status)
      if (!["open", "evidence_pending"].includes(chargeback.status)) break
      assert(Date.now() < deadline, `still ${chargeback.status} after 90 s`)
      await sleep(1000)
    }
    assert(chargeback.status === "evidence_ready", `status ${chargeback.status} (expected evidence_ready)`)
    const scans = chargeback.proof_requests.flatMap((p) => p.scans ?? [])
    const scan = scans.find((s) => s.scan_id?.toLowerCase() === order.formId.toLowerCase())
    assert(scan?.ground_truth === "valid", `the order's scan is ${JSON.stringify(scan)}`)
    const image = await fetch(`${urls.medusa}/admin/servicescan/scans/${scan.scan_id}/image`, { headers: auth })
    const bytes = Buffer.from(await image.arrayBuffer())
    assert(image.status === 200 && bytes[0] === 0xff && bytes[1] === 0xd8, `the image proxy answered ${image.status} ${image.headers.get("content-type")}`)
    order.chargebackId = id
    return `${seen.join(" → ")}, scan valid, image ${bytes.length} bytes`
  })

  let outcome = "not raised (the checkout failed)"
  await step(`Chargeback raised at ${processor.label} is ${processor.name === "adyen" ? "pushed by webhook" : "imported"}, proven and represented by itself`, async () => {
    assert(order, "no order")
    outcome = "not represented"
    const detail = await checkEvidenceLoop({ urls, sandbox, token, order, processor })
    outcome = "represented"
    return detail
  })
  outcomes.push({ processor, outcome })

  if (browser) {
    await step(`Storefront in Chromium (${processor.label}): a declined card, then the approving card typed into the hosted form`, async () => {
      const pageErrors = []
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      page.on("pageerror", (e) => pageErrors.push(e.message))
      page.setDefaultTimeout(30_000)
      await page.goto(`${urls.storefront}/?processor=${processor.name}`)
      const product = page.locator('[data-testid="product"]', { hasText: "Scanner sticker" })
      await product.getByRole("button", { name: "Add to cart" }).click()
      await page.locator('[data-testid="pay"]:enabled').waitFor()
      const frame = page.frameLocator("iframe[title]")
      const typeCard = async (number) => {
        for (const [field, value] of [["cc-number", number], ["cc-exp", "12/30"], ["cc-csc", "123"]]) {
          const input = frame.locator(`input[autocomplete="${field}"]`)
          await input.fill("")
          await input.pressSequentially(value)
        }
      }
      // A decline first: the shopper reads it (no reason: card testing) and tries another card in the same form.
      await typeCard(DECLINE)
      await page.click('[data-testid="pay"]')
      const declined = (await page.locator('[data-testid="error"]').textContent({ timeout: 30_000 })) ?? ""
      assert(/declined/i.test(declined) && !/insufficient/i.test(declined), `after the declining card the page says "${declined}"`)
      const declineShot = join(outDir, `storefront-${processor.name}-declined.png`)
      await page.locator('[data-testid="pay"]:enabled').waitFor()
      await page.screenshot({ path: declineShot, fullPage: true })
      await typeCard(APPROVE)
      await page.click('[data-testid="pay"]')
      await page.locator('[data-testid="order"]').waitFor()
      const browserOrderId = (await page.locator('[data-testid="order-id"]').textContent())?.trim()
      assert(/^order_/.test(browserOrderId ?? ""), "no order id on the page")
      const shot = join(outDir, `storefront-${processor.name}-order-placed.png`)
      await page.screenshot({ path: shot, fullPage: true })
      assert(pageErrors.length === 0, `page errors: ${pageErrors.join("; ")}`)
      await page.close()
      // The order the page placed was paid through this processor's provider.
      const { body } = await json(`${urls.medusa}/admin/orders/${browserOrderId}?fields=id,*payment_collections.payments`, { headers: auth })
      const paidWith = body?.order?.payment_collections?.[0]?.payments?.[0]?.provider_id
      assert(paidWith === providerId, `the page's order was paid through ${paidWith}, not ${providerId}`)
      return `"${declined.trim()}", then order ${browserOrderId} paid through ${paidWith}; screenshots ${declineShot}, ${shot}`
    })
  }
  return order
}
