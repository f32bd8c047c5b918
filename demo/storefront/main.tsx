// The demo storefront: one page, React + @medusajs/js-sdk + medusa-servicescan-storefront.
// Products come from Medusa's store API; the card is typed into ServiceScan's hosted form (an
// iframe served by the sandbox); payWithServiceScan() submits the form, sends the form id to
// Medusa as payment session data and completes the cart.
import Medusa from "@medusajs/js-sdk"
import type { HttpTypes } from "@medusajs/types"
import {
  payWithServiceScan,
  ServiceScanCardForm,
  ServiceScanSavedCards,
  type ServiceScanCardFormHandle,
  type ServiceScanSavedCard,
} from "medusa-servicescan-storefront"
import { StrictMode, useCallback, useEffect, useMemo, useRef, useState } from "react"
import { createRoot } from "react-dom/client"

/** Injected by the demo's storefront server (scripts/lib/storefront.mjs). */
declare global {
  interface Window {
    __DEMO__: {
      medusaUrl: string
      adminUrl: string
      publishableKey: string
      regionId: string
      sandboxUrl: string
      /** The ServiceScan provider the page pays through (DEMO_PROCESSOR), and every one by processor name. */
      providerId: string
      providers: Record<string, string>
    }
  }
}

const config = window.__DEMO__
/**
 * The demo store has a ServiceScan provider per processor (Worldpay, Adyen); the page pays through
 * the one the demo was started with, or the one `?processor=` names (the smoke test uses both).
 */
const PROVIDER_ID = config.providers[new URLSearchParams(location.search).get("processor") ?? ""] ?? config.providerId
const CART_KEY = "servicescan-demo-cart"
const CART_FIELDS = "*items,*payment_collection,*payment_collection.payment_sessions"

const sdk = new Medusa({ baseUrl: config.medusaUrl, publishableKey: config.publishableKey })

type Cart = HttpTypes.StoreCart
type Order = HttpTypes.StoreOrder
type Product = HttpTypes.StoreProduct

const TEST_CARDS = [
  { number: "4457119922390123", outcome: "Approved" },
  { number: "4000000000009995", outcome: "Declined: insufficient funds" },
  { number: "4457119922390124", outcome: "Invalid number (fails the Luhn check)" },
  { number: "4000000000000259", outcome: "Approved; its scan is judged fraudulent in a dispute" },
]

function money(amount: number | null | undefined, currency = "usd") {
  return new Intl.NumberFormat("en-US", { style: "currency", currency: currency.toUpperCase() }).format(amount ?? 0)
}

function messageOf(error: unknown): string {
  if (error && typeof error === "object" && "message" in error) return String((error as { message: unknown }).message)
  return String(error)
}

const sessionOf = (cart: Cart | null) =>
  cart?.payment_collection?.payment_sessions?.find((s) => s.provider_id === PROVIDER_ID)

function App() {
  const [products, setProducts] = useState<Product[] | null>(null)
  const [cart, setCart] = useState<Cart | null>(null)
  const [email, setEmail] = useState("shopper@example.com")
  const [busy, setBusy] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [order, setOrder] = useState<Order | null>(null)
  const [formReady, setFormReady] = useState(false)
  const form = useRef<ServiceScanCardFormHandle>(null)
  // Signed in: the customer's saved cards, the one chosen ("" for a new card) and "Save this card".
  const [customer, setCustomer] = useState<{ email: string } | null>(null)
  const [cards, setCards] = useState<ServiceScanSavedCard[]>([])
  const [cardId, setCardId] = useState("")
  const [saveCard, setSaveCard] = useState(false)

  useEffect(() => {
    sdk.store.product
      .list({ region_id: config.regionId, fields: "id,title,description,thumbnail,*variants,*variants.calculated_price", limit: 20 })
      .then(({ products }) => {
        const price = (p: Product) => p.variants?.[0]?.calculated_price?.calculated_amount ?? 0
        setProducts([...products].sort((a, b) => price(a) - price(b)))
      })
      .catch((e) => setError(`Could not load the products from Medusa (${config.medusaUrl}): ${messageOf(e)}`))
    const saved = localStorage.getItem(CART_KEY)
    if (saved) {
      sdk.store.cart
        .retrieve(saved, { fields: CART_FIELDS })
        .then(({ cart }) => (cart.completed_at ? localStorage.removeItem(CART_KEY) : setCart(cart)))
        .catch(() => localStorage.removeItem(CART_KEY))
    }
  }, [])

  const loadCards = useCallback(async () => {
    // The route also says which provider each card was saved with (`provider_id`).
    const { payment_methods } = await sdk.client.fetch<{ payment_methods: (ServiceScanSavedCard & { provider_id: string })[] }>("/store/servicescan/payment-methods")
    // A card saved at one processor is a token there only: offer the cards of the provider in use.
    const usable = payment_methods.filter((card) => card.provider_id === PROVIDER_ID)
    setCards(usable)
    setCardId(usable[0]?.id ?? "")
  }, [])

  // A reload keeps the sign-in: the SDK keeps the token in localStorage (asked only when there is one).
  useEffect(() => {
    if (!localStorage.getItem("medusa_auth_token")) return
    sdk.store.customer
      .retrieve()
      .then(({ customer }) => {
        setCustomer({ email: customer.email })
        setEmail(customer.email)
        return loadCards()
      })
      .catch(() => undefined)
  }, [loadCards])

  async function signIn() {
    setBusy("sign-in")
    setError(null)
    try {
      // The demo's server makes sure the returning shopper exists with a saved card (an earlier purchase).
      const res = await fetch("/demo/customer", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ provider_id: PROVIDER_ID }) })
      const body = await res.json()
      if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`)
      await sdk.auth.login("customer", "emailpass", { email: body.email, password: body.password })
      setCustomer({ email: body.email })
      setEmail(body.email)
      if (cart) setCart((await sdk.store.cart.transferCart(cart.id, { fields: CART_FIELDS })).cart)
      await loadCards()
    } catch (e) {
      setError(`Could not sign in as the demo customer: ${messageOf(e)}`)
    } finally {
      setBusy(null)
    }
  }

  async function signOut() {
    await sdk.auth.logout().catch(() => undefined)
    setCustomer(null)
    setCards([])
    setCardId("")
    setSaveCard(false)
    // The cart belongs to the customer now; a guest starts a new one.
    localStorage.removeItem(CART_KEY)
    setCart(null)
  }

  const refresh = useCallback(async (id: string) => {
    const { cart } = await sdk.store.cart.retrieve(id, { fields: CART_FIELDS })
    setCart(cart)
    return cart
  }, [])

  // The hosted form needs a ServiceScan payment session (script URL, shareable key, form config).
  // Medusa drops the sessions when the cart total changes, so one is (re)started as needed.
  const itemCount = cart?.items?.length ?? 0
  const hasSession = Boolean(sessionOf(cart))
  useEffect(() => {
    if (!cart || !itemCount || hasSession || order) return
    let cancelled = false
    sdk.store.payment
      .initiatePaymentSession(cart, { provider_id: PROVIDER_ID })
      .then(async () => {
        if (!cancelled) await refresh(cart.id)
      })
      .catch((e) => {
        if (!cancelled) setError(`Could not start the payment: ${messageOf(e)}`)
      })
    return () => {
      cancelled = true
    }
  }, [cart, itemCount, hasSession, order, refresh])

  async function addToCart(variantId: string) {
    setBusy(`add:${variantId}`)
    setError(null)
    try {
      if (!cart) {
        const { cart: created } = await sdk.store.cart.create({
          region_id: config.regionId,
          email: email || undefined,
          items: [{ variant_id: variantId, quantity: 1 }],
        })
        localStorage.setItem(CART_KEY, created.id)
        await refresh(created.id)
      } else {
        await sdk.store.cart.createLineItem(cart.id, { variant_id: variantId, quantity: 1 })
        await refresh(cart.id)
      }
    } catch (e) {
      setError(`Could not add to the cart: ${messageOf(e)}`)
    } finally {
      setBusy(null)
    }
  }

  async function setQuantity(lineId: string, quantity: number) {
    if (!cart) return
    setBusy(`line:${lineId}`)
    setError(null)
    try {
      if (quantity <= 0) await sdk.store.cart.deleteLineItem(cart.id, lineId)
      else await sdk.store.cart.updateLineItem(cart.id, lineId, { quantity })
      await refresh(cart.id)
    } catch (e) {
      setError(`Could not update the cart: ${messageOf(e)}`)
    } finally {
      setBusy(null)
    }
  }

  async function pay(event: React.FormEvent) {
    event.preventDefault()
    if (!cart || (!cardId && !form.current)) return
    setBusy("pay")
    setError(null)
    try {
      let current = cart
      if (current.email !== email) current = (await sdk.store.cart.update(cart.id, { email }, { fields: CART_FIELDS })).cart
      const result = await payWithServiceScan(sdk, current, {
        form: form.current,
        paymentMethodId: cardId || undefined,
        saveCard: !cardId && saveCard,
        providerId: PROVIDER_ID,
      })
      if (result.type === "order") {
        localStorage.removeItem(CART_KEY)
        setOrder(result.order)
        // A card saved with this order shows up at the next checkout.
        if (customer) loadCards().catch(() => undefined)
        return
      }
      // Validation problems are announced next to the form by the widget itself.
      if (result.error.kind !== "validation") setError(result.error.message)
      await refresh(cart.id).catch(() => undefined)
    } finally {
      setBusy(null)
    }
  }

  function startOver() {
    setOrder(null)
    setCart(null)
    setError(null)
    setFormReady(false)
  }

  const session = sessionOf(cart)
  // Errors show where the shopper is looking: next to the Pay button during checkout.
  const inCheckout = Boolean(itemCount) && !order
  const total = cart?.total ?? 0
  const currency = cart?.currency_code ?? "usd"

  return (
    <div className="page">
      <header className="header">
        <div>
          <h1>ServiceScan Demo Store</h1>
          <p className="subtle">A Medusa store paying through the ServiceScan hosted card form.</p>
        </div>
        <div className="row">
          {customer ? (
            <span className="small" data-testid="signed-in">
              Signed in as {customer.email} ·{" "}
              <button type="button" className="link" onClick={signOut}>
                Sign out
              </button>
            </span>
          ) : (
            <button type="button" className="secondary" onClick={signIn} disabled={busy !== null}>
              {busy === "sign-in" ? "Signing in…" : "Sign in as the demo customer"}
            </button>
          )}
          <span className="badge" title={`Sandbox at ${config.sandboxUrl}`}>
            Test mode · sandbox
          </span>
        </div>
      </header>

      {error && !inCheckout && <ErrorAlert text={error} />}

      {order ? (
        <OrderPlaced order={order} onStartOver={startOver} />
      ) : (
        <main className="layout">
          <section aria-labelledby="products-title">
            <h2 id="products-title">Products</h2>
            {!products && !error && <p className="subtle">Loading products…</p>}
            <div className="grid">
              {products?.map((product) => {
                const variant = product.variants?.[0]
                const price = variant?.calculated_price?.calculated_amount
                return (
                  <article className="card" key={product.id} data-testid="product">
                    {product.thumbnail && <img src={product.thumbnail} alt="" />}
                    <div className="card-body">
                      <h3>{product.title}</h3>
                      <p className="subtle small">{product.description}</p>
                      <div className="row">
                        <strong>{money(price, variant?.calculated_price?.currency_code ?? "usd")}</strong>
                        <button
                          type="button"
                          onClick={() => variant && addToCart(variant.id)}
                          disabled={!variant || busy !== null}
                        >
                          {busy === `add:${variant?.id}` ? "Adding…" : "Add to cart"}
                        </button>
                      </div>
                    </div>
                  </article>
                )
              })}
            </div>
          </section>

          <aside aria-labelledby="cart-title" className="panel">
            <h2 id="cart-title">Your cart</h2>
            {!itemCount ? (
              <p className="subtle">Your cart is empty. Add a product to check out.</p>
            ) : (
              <form onSubmit={pay} noValidate>
                <ul className="lines">
                  {cart!.items!.map((line) => (
                    <li key={line.id}>
                      <span>{line.product_title ?? line.title}</span>
                      <span className="qty">
                        <button type="button" className="link" aria-label="One less" onClick={() => setQuantity(line.id, line.quantity - 1)} disabled={busy !== null}>
                          −
                        </button>
                        {line.quantity}
                        <button type="button" className="link" aria-label="One more" onClick={() => setQuantity(line.id, line.quantity + 1)} disabled={busy !== null}>
                          +
                        </button>
                      </span>
                      <span>{money(line.total, currency)}</span>
                    </li>
                  ))}
                </ul>
                <p className="row total">
                  <span>Total</span>
                  <strong data-testid="total">{money(total, currency)}</strong>
                </p>

                <label className="field">
                  <span>Email</span>
                  <input type="email" name="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
                </label>

                {customer && (
                  <div className="field saved-cards">
                    <ServiceScanSavedCards
                      cards={cards}
                      value={cardId}
                      onChange={(id) => {
                        setCardId(id)
                        setFormReady(false)
                      }}
                      save={saveCard}
                      onSaveChange={setSaveCard}
                    />
                  </div>
                )}
                {!cardId && (
                  <div className="field">
                    <span>Card</span>
                    {session ? (
                      <ServiceScanCardForm
                        ref={form}
                        session={session}
                        className="card-form"
                        onReady={() => setFormReady(true)}
                        onError={(e) => {
                          console.error(e)
                          setError(`This browser cannot reach the sandbox at ${config.sandboxUrl}, which serves the card form. Is the demo running on this machine?`)
                        }}
                      />
                    ) : (
                      <p className="subtle small">Preparing the secure card form…</p>
                    )}
                  </div>
                )}

                {error && <ErrorAlert text={error} />}
                <button type="submit" className="pay" data-testid="pay" disabled={(!cardId && (!session || !formReady)) || busy !== null || !/\S+@\S+\.\S+/.test(email)}>
                  {busy === "pay" ? "Paying…" : `Pay ${money(total, currency)}`}
                </button>
                <p className="subtle small">
                  The card number stays inside ServiceScan's form; this page only receives a form id.
                </p>
              </form>
            )}
            <TestCards />
          </aside>
        </main>
      )}
    </div>
  )
}

function ErrorAlert({ text }: { text: string }) {
  return (
    <div className="alert" role="alert" data-testid="error">
      {text}
    </div>
  )
}

function OrderPlaced({ order, onStartOver }: { order: Order; onStartOver: () => void }) {
  const [chargeback, setChargeback] = useState<{ state: "idle" | "sending" | "sent" | "error"; text?: string }>({ state: "idle" })
  const adminOrderUrl = `${config.adminUrl}/orders/${order.id}`

  async function simulateChargeback() {
    setChargeback({ state: "sending" })
    try {
      const res = await fetch("/demo/chargeback", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ order_id: order.id, amount: order.total, currency_code: order.currency_code }),
      })
      const body = await res.json()
      if (!res.ok) throw new Error(body.message ?? `HTTP ${res.status}`)
      setChargeback({ state: "sent", text: body.chargeback_id })
    } catch (e) {
      setChargeback({ state: "error", text: messageOf(e) })
    }
  }

  return (
    <main className="panel success" data-testid="order">
      <h2>Thank you! Order #{order.display_id} is placed.</h2>
      <p>
        <strong>{money(order.total, order.currency_code)}</strong> was <em>authorized</em> on the card; capture it from the admin.
      </p>
      <p className="small">
        Order id <code data-testid="order-id">{order.id}</code> ·{" "}
        <a href={adminOrderUrl} target="_blank" rel="noreferrer">
          Open it in the admin
        </a>
      </p>
      <div className="demo-tools">
        <h3>Try a dispute</h3>
        <p className="small subtle">
          Play the card network: send this order a chargeback through the plugin's signed webhook, then
          watch the evidence arrive on the order in the admin (the sandbox answers in about 20 seconds;
          only cards filled with the form's "Scan card" button leave a scan to use as evidence).
        </p>
        {chargeback.state === "sent" ? (
          <p className="small" data-testid="chargeback">
            Chargeback <code>{chargeback.text}</code> recorded.{" "}
            <a href={adminOrderUrl} target="_blank" rel="noreferrer">
              Watch it on the order
            </a>
          </p>
        ) : (
          <button type="button" className="secondary" onClick={simulateChargeback} disabled={chargeback.state === "sending"}>
            {chargeback.state === "sending" ? "Sending…" : "Simulate a chargeback"}
          </button>
        )}
        {chargeback.state === "error" && <p className="alert small">{chargeback.text}</p>}
      </div>
      <button type="button" onClick={onStartOver}>
        Shop again
      </button>
    </main>
  )
}

function TestCards() {
  const [copied, setCopied] = useState<string | null>(null)
  const copy = useMemo(
    () => (number: string) => {
      navigator.clipboard?.writeText(number).then(
        () => {
          setCopied(number)
          setTimeout(() => setCopied(null), 1500)
        },
        () => undefined
      )
    },
    []
  )
  return (
    <details className="test-cards" open>
      <summary>Test cards</summary>
      <p className="small subtle">Any future expiry (e.g. 12/30) and any 3-digit CVV. Or press "Scan card" in the form.</p>
      <ul>
        {TEST_CARDS.map((card) => (
          <li key={card.number}>
            <button type="button" className="link mono" onClick={() => copy(card.number)} title="Copy">
              {card.number.replace(/(\d{4})(?=\d)/g, "$1 ")}
            </button>
            <span className="small">{copied === card.number ? "Copied" : card.outcome}</span>
          </li>
        ))}
      </ul>
    </details>
  )
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>
)
