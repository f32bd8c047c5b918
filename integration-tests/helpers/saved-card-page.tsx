// The storefront page of the saved-cards browser case: a signed-in shopper's checkout built from
// the widget's sources and the real @medusajs/js-sdk. It signs in through Medusa's auth route,
// lists the customer's saved cards from the store route, offers them with ServiceScanSavedCards
// next to the card form, and pays with payWithServiceScan.
import Medusa from "@medusajs/js-sdk"
import { StrictMode, useEffect, useRef, useState } from "react"
import { createRoot } from "react-dom/client"
import {
  payWithServiceScan,
  ServiceScanCardForm,
  ServiceScanSavedCards,
  type ServiceScanCardFormHandle,
  type ServiceScanSavedCard,
} from "../../storefront-widget/src/index"

declare global {
  interface Window {
    __PAGE__: { publishableKey: string; cartId: string; email: string; password: string; providerId?: string }
  }
}

const config = window.__PAGE__
// Same origin: the page's server forwards /auth and /store to Medusa.
const sdk = new Medusa({
  baseUrl: window.location.origin,
  publishableKey: config.publishableKey,
  auth: { type: "jwt", jwtTokenStorageMethod: "memory" },
})
// Which ServiceScan provider pays (helpers/processors.ts): Worldpay's unless the test names another.
const PROVIDER_ID = config.providerId ?? "pp_servicescan_servicescan"
const FIELDS = "*payment_collection,*payment_collection.payment_sessions"

type Cart = Awaited<ReturnType<typeof sdk.store.cart.retrieve>>["cart"]

// Sign-in, the saved cards and the payment session, started once for the page. In the effect,
// StrictMode's second run would sign in and start a session twice, and the later of the two runs
// would reset the shopper's choice of card after they had changed it (seen on a slow CI machine).
const setup = (async () => {
  await sdk.auth.login("customer", "emailpass", { email: config.email, password: config.password })
  const listed = await sdk.client.fetch<{ payment_methods: ServiceScanSavedCard[] }>("/store/servicescan/payment-methods")
  let { cart } = await sdk.store.cart.retrieve(config.cartId, { fields: FIELDS })
  if (!cart.payment_collection?.payment_sessions?.length) {
    await sdk.store.payment.initiatePaymentSession(cart, { provider_id: PROVIDER_ID })
    cart = (await sdk.store.cart.retrieve(config.cartId, { fields: FIELDS })).cart
  }
  return { cart, cards: listed.payment_methods }
})()

function App() {
  const [cart, setCart] = useState<Cart | null>(null)
  const [cards, setCards] = useState<ServiceScanSavedCard[] | null>(null)
  const [choice, setChoice] = useState("")
  const [save, setSave] = useState(false)
  const [error, setError] = useState("")
  const [result, setResult] = useState("")
  const form = useRef<ServiceScanCardFormHandle>(null)

  useEffect(() => {
    // Applied once, however often React runs the effect (StrictMode runs it twice in development).
    let current = true
    setup.then(
      ({ cart, cards }) => {
        if (!current) return
        setCart(cart)
        setCards(cards)
        // The most recently saved card first: what a returning shopper most likely wants.
        setChoice(cards[0]?.id ?? "")
      },
      (e) => current && setResult(JSON.stringify({ setup: String(e) }))
    )
    return () => {
      current = false
    }
  }, [])

  async function pay() {
    if (!cart) return
    setError("")
    const paid = await payWithServiceScan(sdk, cart, { form: form.current, paymentMethodId: choice || undefined, saveCard: save, providerId: PROVIDER_ID })
    if (paid.type == "order") return setResult(JSON.stringify({ order_id: paid.order.id }))
    if (paid.error.kind != "validation") setError(paid.error.message)
    setResult(JSON.stringify({ error: paid.error.kind }))
  }

  if (!cart || !cards) return <p>Loading…</p>
  const session = cart.payment_collection?.payment_sessions?.find((s) => s.provider_id == PROVIDER_ID)
  return (
    <main>
      <h1>Checkout</h1>
      <ServiceScanSavedCards cards={cards} value={choice} onChange={setChoice} save={save} onSaveChange={setSave} error={error} />
      {!choice && <ServiceScanCardForm ref={form} session={session} />}
      <button id="pay" type="button" onClick={pay}>
        Pay
      </button>
      <output id="result">{result}</output>
    </main>
  )
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>
)
