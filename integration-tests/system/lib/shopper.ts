import type { HttpTypes } from "@medusajs/framework/types"
import Medusa from "@medusajs/js-sdk"
import { payWithServiceScan, type ServiceScanSdk } from "medusa-servicescan-storefront"
import type { SeededStore } from "../../helpers/store"
import { shopperCard, submitCardForm, type Sandbox, type SuiteAccount } from "./sandbox"
import { sleep } from "./processes"

/**
 * How the shopper's own connection to the store misbehaves on one completion
 * (the sandbox's faults cover the store's connection to the service):
 * - "lost": Medusa answered, but the answer never reached the browser;
 * - "impatient": the browser stopped waiting while Medusa was still working.
 */
export type ClientFault = "none" | "lost" | "impatient"

export type Attempt = { outcome: string; clientFault: ClientFault }

export type ShopperResult = {
  index: number
  card: string
  last4: string
  cartId: string
  orderId?: string
  attempts: Attempt[]
}

type Cart = HttpTypes.StoreCart
type Order = HttpTypes.StoreOrder

const networkError = () => Object.assign(new TypeError("fetch failed (the test dropped the answer)"), { status: undefined })

/**
 * One shopper paying for one cart as a storefront does: `payWithServiceScan`
 * from the published widget (its retry rule included: after an unsettled
 * answer it completes the same session again, after a settled one it starts a
 * new session), over Medusa's js-sdk, retrying on every failure until an order
 * or `maxAttempts`. The card's last four digits are the shopper's index, which
 * ties every processor transaction to this cart.
 */
export async function shop(options: {
  index: number
  medusaUrl: string
  store: SeededStore
  sandbox: Sandbox
  account: SuiteAccount
  rng: () => number
  clientFaultRate?: number
  maxAttempts?: number
  /** The payment provider paid through (helpers/processors.ts `PROCESSORS`); the widget's default, Worldpay's, when absent. */
  providerId?: string
}): Promise<ShopperResult> {
  const { index, medusaUrl, store, sandbox, account, rng, clientFaultRate = 0, maxAttempts = 8, providerId } = options
  const sdk = new Medusa({ baseUrl: medusaUrl, publishableKey: store.publishableKey })
  const card = shopperCard(index)
  const { cart } = await sdk.store.cart.create({
    region_id: store.regions.usd,
    email: `shopper${index}@example.com`,
    items: [{ variant_id: store.variantId, quantity: 1 }],
  })
  const result: ShopperResult = { index, card, last4: card.slice(-4), cartId: cart.id, attempts: [] }

  let clientFault: ClientFault = "none"
  const widgetSdk: ServiceScanSdk<Cart, Order> = {
    store: {
      payment: {
        initiatePaymentSession: (c, body) => sdk.store.payment.initiatePaymentSession(c, body),
      },
      cart: {
        complete: async (cartId) => {
          const completion = sdk.store.cart.complete(cartId)
          if (clientFault === "lost") {
            await completion.catch(() => undefined)
            throw networkError()
          }
          if (clientFault === "impatient") {
            // Gives up after a moment; Medusa carries on (its result is dropped).
            completion.catch(() => undefined)
            const raced = await Promise.race([completion.then(() => "answered" as const, () => "answered" as const), sleep(150).then(() => "waited" as const)])
            if (raced === "waited") throw networkError()
          }
          return completion
        },
      },
    },
  }
  const form = { submit: () => submitCardForm(sandbox, account, card) }

  for (let attempt = 0; attempt < maxAttempts; attempt++) {
    const roll = rng()
    clientFault = roll < clientFaultRate / 2 ? "lost" : roll < clientFaultRate ? "impatient" : "none"
    // A storefront pays with the cart it currently shows; a completed cart (an earlier
    // completion finished after its answer was lost) only needs its order looked up.
    const { cart: current } = await sdk.store.cart.retrieve(cart.id, { fields: "id,completed_at,*payment_collection" })
    if (current.completed_at) {
      result.orderId = await orderOfCompletedCart(sdk, cart.id)
      result.attempts.push({ outcome: "order (cart already completed)", clientFault: "none" })
      break
    }
    const paid = await payWithServiceScan(widgetSdk, current, { form, ...(providerId ? { providerId } : {}) })
    if (paid.type === "order") {
      result.orderId = paid.order.id
      result.attempts.push({ outcome: "order", clientFault })
      break
    }
    const { kind, message, status } = paid.error
    result.attempts.push({ outcome: `${kind}${status ? ` ${status}` : ""}: ${message}`, clientFault })
    await sleep(100 + Math.floor(rng() * 200))
  }
  return result
}

/** The order of a completed cart: completing it again answers with that order and charges nothing. */
export async function orderOfCompletedCart(sdk: Medusa, cartId: string): Promise<string | undefined> {
  const done = await sdk.store.cart.complete(cartId)
  return done.type === "order" ? done.order.id : undefined
}

/**
 * After the shoppers stop: a cart whose last completion was still running when
 * its shopper gave up may have become an order since. Looks each such cart up.
 */
export async function reconcileAbandoned(medusaUrl: string, store: SeededStore, shoppers: ShopperResult[]): Promise<void> {
  const sdk = new Medusa({ baseUrl: medusaUrl, publishableKey: store.publishableKey })
  for (const shopper of shoppers.filter((s) => !s.orderId)) {
    const { cart } = await sdk.store.cart.retrieve(shopper.cartId, { fields: "id,completed_at" })
    if (cart.completed_at) {
      shopper.orderId = await orderOfCompletedCart(sdk, shopper.cartId)
      shopper.attempts.push({ outcome: "order (found after the shopper gave up)", clientFault: "none" })
    }
  }
}

/** Runs `work(i)` for i in [0, count) with at most `concurrency` at once. */
export async function pool<T>(count: number, concurrency: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(count)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      for (;;) {
        const i = next++
        if (i >= count) return
        results[i] = await work(i)
      }
    })
  )
  return results
}
