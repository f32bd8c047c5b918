// The demo storefront's `POST /demo/customer`: "Sign in as the demo customer" asks the storefront's
// server to make sure the demo's returning shopper exists and has a saved card, then the page signs
// in with Medusa itself. The saved card comes the way every saved card comes: an earlier purchase,
// made here through the store API as the shopper would (the card typed into the sandbox's hosted
// form, scanned, "Save this card" ticked), which the plugin saved when that order was placed. So
// the card is a real one at the sandbox (the sandbox forgets its tokens on restart, so a card
// seeded into the cached database would not be), and a chargeback on a later order paid with it
// shows which earlier order its scan came from.

/** The demo's returning shopper. Not a secret: anyone trying the demo signs in as them. */
export const DEMO_CUSTOMER = { email: "returning-shopper@servicescan.test", password: "servicescan-demo-shopper" }
/** The sandbox's approved Visa test card. */
const SAVED_CARD = { number: "4457119922390123", cvv: "123", expiry: "12/30" }
const SAVE_WAIT_MS = 15_000

/**
 * `providerId` is the ServiceScan provider (so the processor) the page pays through: a card saved
 * at one processor is a token there only, so the shopper gets a saved card at that one.
 * @param {{ headers: Record<string, string | string[] | undefined>, providerId: string, port: number,
 *           medusaUrl: string, publishableKey: string, regionId: string }} input
 * @returns {Promise<{ status: number, body: Record<string, unknown> }>}
 */
export async function handleDemoCustomer({ headers, providerId, port, medusaUrl, publishableKey, regionId }) {
  const origin = typeof headers.origin === "string" ? headers.origin : undefined
  if (!origin || ![`http://localhost:${port}`, `http://127.0.0.1:${port}`].includes(origin)) {
    return { status: 403, body: { message: "Only the demo storefront's own page may prepare the demo customer" } }
  }
  const medusa = medusaClient(medusaUrl, publishableKey)
  try {
    const token = await signIn(medusa)
    const cards = await savedCards(medusa, token, providerId)
    if (!cards.length) {
      await pastPurchase(medusa, token, { regionId, origin, providerId })
    }
    return { status: 200, body: { email: DEMO_CUSTOMER.email, password: DEMO_CUSTOMER.password } }
  } catch (error) {
    console.error(`storefront: preparing the demo customer failed: ${error?.stack ?? error}`)
    return { status: 502, body: { message: `Could not prepare the demo customer: ${error?.message ?? error}` } }
  }
}

function medusaClient(baseUrl, publishableKey) {
  return async function call(path, { method = "GET", body, token } = {}) {
    const res = await fetch(new URL(path, baseUrl), {
      method,
      headers: {
        "content-type": "application/json",
        "x-publishable-api-key": publishableKey,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const data = await res.json().catch(() => ({}))
    return { status: res.status, data }
  }
}

const expectOk = (answer, what) => {
  if (answer.status >= 300) throw new Error(`${what}: HTTP ${answer.status} ${answer.data?.message ?? ""}`.trim())
  return answer.data
}

/** Signs the demo customer in, registering them first when this store has never seen them. */
async function signIn(call) {
  const login = await call("/auth/customer/emailpass", { method: "POST", body: DEMO_CUSTOMER })
  if (login.status === 200) return login.data.token
  const registered = expectOk(await call("/auth/customer/emailpass/register", { method: "POST", body: DEMO_CUSTOMER }), "registering the demo customer")
  expectOk(
    await call("/store/customers", {
      method: "POST",
      token: registered.token,
      body: { email: DEMO_CUSTOMER.email, first_name: "Robin", last_name: "Returning" },
    }),
    "creating the demo customer"
  )
  return expectOk(await call("/auth/customer/emailpass", { method: "POST", body: DEMO_CUSTOMER }), "signing the demo customer in").token
}

async function savedCards(call, token, providerId) {
  const { payment_methods: cards } = expectOk(await call("/store/servicescan/payment-methods", { token }), "listing the saved cards")
  return cards.filter((card) => card.provider_id === providerId)
}

/** The shopper's earlier visit: one sticker, paid with the scanned card, "Save this card" ticked. */
async function pastPurchase(call, token, { regionId, origin, providerId }) {
  const { products } = expectOk(await call(`/store/products?region_id=${regionId}&fields=id,*variants&limit=20`), "listing products")
  const variantId = (products.find((p) => p.handle === "scanner-sticker") ?? products[0])?.variants?.[0]?.id
  if (!variantId) throw new Error("the store has no product to buy")
  const { cart } = expectOk(
    await call("/store/carts", { method: "POST", token, body: { region_id: regionId, email: DEMO_CUSTOMER.email, items: [{ variant_id: variantId, quantity: 1 }] } }),
    "creating the earlier purchase's cart"
  )
  const { payment_collection: collection } = expectOk(
    await call("/store/payment-collections", { method: "POST", token, body: { cart_id: cart.id } }),
    "creating its payment collection"
  )
  const started = expectOk(
    await call(`/store/payment-collections/${collection.id}/payment-sessions`, { method: "POST", token, body: { provider_id: providerId } }),
    "starting its payment session"
  )
  const session = started.payment_collection.payment_sessions.find((s) => s.provider_id === providerId)
  // What the hosted form's iframe sends when the shopper presses "Scan card", then submits.
  const formUrl = new URL("/api/v1/forms", session.data.client_script_url)
  const formAnswer = await fetch(formUrl, {
    method: "POST",
    headers: { "content-type": "application/json", origin },
    body: JSON.stringify({ key: session.data.shareable_key, card: SAVED_CARD, scanned: true, config: session.data.form_config }),
  })
  const form = await formAnswer.json().catch(() => ({}))
  if (formAnswer.status !== 200 || form.responseCode !== "870") {
    throw new Error(`the sandbox's form refused the demo card: HTTP ${formAnswer.status} ${JSON.stringify(form)}`)
  }
  expectOk(
    await call(`/store/payment-collections/${collection.id}/payment-sessions`, {
      method: "POST",
      token,
      body: { provider_id: providerId, data: { form_id: form.formId, response_code: form.responseCode, save_card: true } },
    }),
    "paying the earlier purchase"
  )
  const done = expectOk(await call(`/store/carts/${cart.id}/complete`, { method: "POST", token }), "completing the earlier purchase")
  if (done.type !== "order") throw new Error(`the earlier purchase was not placed: ${done.error?.message ?? "no order"}`)
  // The plugin saves the card once the order is placed (a subscriber): wait for it.
  const deadline = Date.now() + SAVE_WAIT_MS
  while (Date.now() < deadline) {
    if ((await savedCards(call, token, providerId)).length) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`the card of order ${done.order.id} was not saved within ${SAVE_WAIT_MS / 1000} s`)
}
