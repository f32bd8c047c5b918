/** Payment providers registered from this plugin's provider, whatever id the store gave them. */
export const SERVICESCAN_PROVIDER_PREFIX = "pp_servicescan_"

/**
 * The `name` of the cart error a completion answers with when the storefront
 * must start a new payment session (a new form submission) before paying:
 * the session's payment was canceled, its form id already paid elsewhere, or
 * the cart holds a second session Medusa could charge instead.
 * The storefront widget (medusa-servicescan-storefront, `pay.ts`) matches it
 * and starts over by itself; keep the two in step.
 */
export const NEW_SESSION_REQUIRED = "ServiceScanNewSessionRequired"

/** Payment session statuses Medusa's cart completion picks a session from, in its own order. */
const PROCESSABLE = new Set(["pending", "requires_more", "authorized", "captured", "pending_authorization"])

export type CheckoutSession = {
  id: string
  provider_id: string
  status: string
  data: Record<string, unknown> | null
  payment: { id: string; canceled_at: Date | string | null } | null
}

/**
 * The session Medusa's `completeCartWorkflow` will authorize (the first
 * processable one), if it is a ServiceScan session; otherwise null: the cart
 * is paid some other way and none of our checks apply.
 */
export function pickServiceScanSession(sessions: readonly (CheckoutSession | null)[]): CheckoutSession | null {
  const chosen = sessions.find((session) => session && PROCESSABLE.has(session.status))
  return chosen && chosen.provider_id.startsWith(SERVICESCAN_PROVIDER_PREFIX) ? chosen : null
}

/**
 * Whether a completion cannot know which session it would charge: the
 * collection holds more than one session Medusa could authorize, and one of
 * them is ServiceScan's. Medusa authorizes the first of a read in no set
 * order, so the guard's checks could pass on one session while the other is
 * charged. Creating a session replaces the collection's others, but two
 * requests for a session at the same moment (a double-clicked pay button, a
 * storefront retrying) can each replace only what they saw, and leave two.
 * Such a cart starts its payment again (a new session replaces both).
 */
export function hasRivalSessions(sessions: readonly (CheckoutSession | null)[]): boolean {
  const processable = sessions.filter((session): session is CheckoutSession => !!session && PROCESSABLE.has(session.status))
  return processable.length > 1 && processable.some((session) => session.provider_id.startsWith(SERVICESCAN_PROVIDER_PREFIX))
}

/**
 * The `name` of the cart error a completion answers with when the session
 * names a saved card its customer has removed since. Not
 * {@link NEW_SESSION_REQUIRED}: starting over with the same card cannot help;
 * the shopper picks another card or enters one.
 */
export const SAVED_CARD_REMOVED = "ServiceScanSavedCardRemoved"

export const NEW_SESSION_MESSAGES = {
  rivalSessions:
    "This cart has more than one payment in progress, so it is not clear which one to charge. Please enter your card details again.",
  canceled: "Your earlier payment attempt was canceled, so it cannot pay for this order. Please enter your card details again.",
  formSpent: "These card details were already used for another payment. Please enter your card details again.",
  savedCardRemoved: "This saved card was removed from your account. Please choose another card or enter your card details.",
} as const

export type CheckoutRefusal = keyof typeof NEW_SESSION_MESSAGES

/** The cart error's `name` for a refusal: what the storefront does next depends on it. */
export function refusalName(refusal: CheckoutRefusal): string {
  return refusal === "savedCardRemoved" ? SAVED_CARD_REMOVED : NEW_SESSION_REQUIRED
}

/**
 * Decides whether a completion of `session` may go ahead; answers why not, or null.
 *
 * - `canceled`: the session's payment was canceled. Medusa would return that
 *   canceled payment as "already authorized" and place an order with nothing
 *   paid (its idempotency shortcut never calls the provider).
 * - `formSpent`: the hosted form id already paid through another session; a
 *   form id is spent once it has paid.
 * - `savedCardRemoved`: the session pays with a saved card that is no longer
 *   on its customer's account (deleted since the session was created). A
 *   saved card has no "spent" state: it pays as often as its customer wants,
 *   while it is saved, and each session pays once (its processor request id
 *   is the session's).
 * Anything else goes ahead, including a session that holds a live payment
 * (Medusa answers a repeated completion with the order).
 */
export function checkoutRefusal(
  session: CheckoutSession,
  paidElsewhere: readonly string[],
  savedCardGone = false
): CheckoutRefusal | null {
  if (session.payment?.canceled_at) {
    return "canceled"
  }
  if (!session.payment && paidElsewhere.length > 0) {
    return "formSpent"
  }
  if (!session.payment && savedCardGone) {
    return "savedCardRemoved"
  }
  return null
}

/** The saved card a session pays with, when it names one. */
export function sessionSavedCard(session: CheckoutSession): { card_id: string; customer_id: string | null } | null {
  const cardId = session.data?.payment_method_id
  if (typeof cardId !== "string" || !cardId || typeof session.data?.form_id === "string") {
    return null
  }
  const formConfig = session.data?.form_config as { customerId?: unknown } | undefined
  return { card_id: cardId, customer_id: typeof formConfig?.customerId === "string" ? formConfig.customerId : null }
}
