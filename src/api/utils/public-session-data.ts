import type { MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"

/** Providers of this plugin are registered as `pp_servicescan_<id>`. */
const OUR_PROVIDER_PREFIX = "pp_servicescan_"
/** Deeper than any Medusa store answer nests a payment session (order → collections → sessions → context → customer → holders → data). */
const MAX_DEPTH = 16

/** What a storefront needs of a session to render the hosted form and show a chosen saved card. */
const SESSION_KEYS = [
  "client_script_url",
  "shareable_key",
  "processor",
  "form_config",
  "currency_code",
  "amount",
  "save_card",
  "payment_method_id",
] as const
/** What a storefront may show of an authorized payment. */
const PAYMENT_KEYS = ["status", "source", "card", "currency_code", "amount", "capture_mode"] as const

type Json = Record<string, unknown>

/**
 * Global middleware of `/store`: every JSON answer of the store API passes
 * through {@link publicStoreBody} before it is sent.
 *
 * Why: Medusa returns a payment session's `data` and `context` to anyone who
 * holds the cart id (every cart route answers with
 * `*payment_collection.payment_sessions` by default, and `fields` reaches them
 * through the payment collection, cart-complete and order routes too). For
 * this provider that was a bearer credential: the hosted form id (exchanged
 * for the card's processor token), and a saved card's sealed token and
 * fingerprint (in `data.saved_card` and in `context.account_holder`). One
 * filter on the way out covers every route, Medusa's and any other plugin's,
 * whatever fields were asked for; Medusa's stored rows are untouched.
 */
export function hideServiceScanSecrets(_req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction): void {
  const send = res.json.bind(res)
  res.json = (body?: unknown) => send(publicStoreBody(body))
  next()
}

/**
 * The answer with every ServiceScan payment session, payment and account
 * holder reduced to what a browser may see: a session's `data` keeps what the
 * widget reads (`client_script_url`, `shareable_key`, `processor`,
 * `form_config`, amount and currency, `save_card`, and of a chosen saved card
 * its id, brand and last four); a payment's `data` keeps its status and card
 * brand and last four; `context` is emptied (Medusa copies the customer and
 * their account holder, saved cards included, into it; no storefront reads
 * it); an account holder's cards keep id, brand, last four and date. No form
 * id, scan id, token, sealed token or fingerprint is left.
 *
 * Recognised by `provider_id` or, when the answer's fields left it out, by the
 * shape of the data. Objects are copied where they change, never mutated: an
 * answer may share them with a cache.
 */
export function publicStoreBody<T>(body: T): T {
  return scrub(body, 0) as T
}

function scrub(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || !value || typeof value !== "object") {
    return value
  }
  // Plain loops, no per-node allocation: every store answer passes here, product lists included.
  if (Array.isArray(value)) {
    let items: unknown[] | null = null
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      if (!item || typeof item !== "object") {
        continue
      }
      const scrubbed = scrub(item, depth + 1)
      if (scrubbed !== item) {
        items ??= value.slice()
        items[i] = scrubbed
      }
    }
    return items ?? value
  }
  if (!isPlainObject(value)) {
    return value
  }
  const record = value
  const ours = typeof record.provider_id === "string" && record.provider_id.startsWith(OUR_PROVIDER_PREFIX)
  const data = record.data
  const shape = dataShape(data)
  let out: Json | null = null
  const dataReplaced = "data" in record && (shape !== null || ours)
  if (dataReplaced) {
    out = { ...record, data: publicData(data, shape) }
  }
  const contextReplaced = "context" in record && !!record.context && (ours || shape === "session" || shape === "payment")
  if (contextReplaced) {
    out = { ...(out ?? record), context: {} }
  }
  for (const key in record) {
    const child = record[key]
    if (!child || typeof child !== "object" || (dataReplaced && key === "data") || (contextReplaced && key === "context")) {
      continue
    }
    const scrubbed = scrub(child, depth + 1)
    if (scrubbed !== child) {
      out ??= { ...record }
      out[key] = scrubbed
    }
  }
  return out ?? value
}

type Shape = "session" | "payment" | "account_holder" | null

/** Which of this provider's data a value is, by its shape (the keys only this provider writes together). */
function dataShape(data: unknown): Shape {
  if (!isPlainObject(data)) {
    return null
  }
  if (typeof data.client_script_url === "string" || (isPlainObject(data.form_config) && "shareable_key" in data)) {
    return "session"
  }
  if (typeof data.request_id === "string" && typeof data.capture_mode === "string" && Array.isArray(data.captures)) {
    return "payment"
  }
  if (Array.isArray(data.cards) && data.cards.some((card) => isPlainObject(card) && "sealed_token" in card)) {
    return "account_holder"
  }
  return null
}

function publicData(data: unknown, shape: Shape): Json {
  if (!isPlainObject(data)) {
    return {}
  }
  switch (shape) {
    case "session": {
      const out = pick(data, SESSION_KEYS)
      if (isPlainObject(data.saved_card)) {
        out.saved_card = pick(data.saved_card, ["id", "brand", "last4"])
      }
      return out
    }
    case "payment": {
      const out = pick(data, PAYMENT_KEYS)
      if (isPlainObject(data.saved_card)) {
        out.saved_card = pick(data.saved_card, ["id"])
      }
      return out
    }
    case "account_holder":
      return {
        ...pick(data, ["customer_id"]),
        cards: (data.cards as unknown[]).filter(isPlainObject).map((card) => pick(card, ["id", "brand", "last4", "saved_at"])),
      }
    default:
      // This provider's, in no shape it writes: nothing of it is known to be safe.
      return {}
  }
}

function pick(source: Json, keys: readonly string[]): Json {
  const out: Json = {}
  for (const key of keys) {
    if (key in source) {
      out[key] = source[key]
    }
  }
  return out
}

function isPlainObject(value: unknown): value is Json {
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return false
  }
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}
