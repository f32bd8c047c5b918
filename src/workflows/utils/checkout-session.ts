import { CHECKOUT_TRUST_REFUSALS } from "../../providers/servicescan/messages"
import { formCustomerId } from "../../providers/servicescan/ids"

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
  /** The cart's payment collection: with the session's customer, the checkout a form id is bound to. */
  payment_collection_id: string
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

/**
 * The `name` of the cart error a completion answers with when the session
 * names a saved card and the request is not signed in as the card's owner.
 * Not {@link NEW_SESSION_REQUIRED}: a new session cannot help whoever is not
 * the owner; the owner signs in first.
 */
export const SAVED_CARD_OWNER_REQUIRED = "ServiceScanSavedCardOwnerRequired"

export const NEW_SESSION_MESSAGES = {
  rivalSessions:
    "This cart has more than one payment in progress, so it is not clear which one to charge. Please enter your card details again.",
  canceled: "Your earlier payment attempt was canceled, so it cannot pay for this order. Please enter your card details again.",
  formSpent: "These card details were already used for another payment. Please enter your card details again.",
  savedCardRemoved: "This saved card was removed from your account. Please choose another card or enter your card details.",
  formBoundElsewhere: CHECKOUT_TRUST_REFUSALS.formBoundElsewhere,
  savedCardSignIn: CHECKOUT_TRUST_REFUSALS.savedCardSignIn,
  savedCardNotYours: CHECKOUT_TRUST_REFUSALS.savedCardNotYours,
  savedCardChooseAgain: CHECKOUT_TRUST_REFUSALS.savedCardChooseAgain,
} as const

export type CheckoutRefusal = keyof typeof NEW_SESSION_MESSAGES

/** The cart error's `name` for a refusal: what the storefront does next depends on it. */
export function refusalName(refusal: CheckoutRefusal): string {
  switch (refusal) {
    case "savedCardRemoved":
      return SAVED_CARD_REMOVED
    case "savedCardSignIn":
    case "savedCardNotYours":
      return SAVED_CARD_OWNER_REQUIRED
    default:
      // A new form (formBoundElsewhere) or the saved card chosen again (savedCardChooseAgain) in a new session.
      return NEW_SESSION_REQUIRED
  }
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

/**
 * Whether the request may complete a session that pays with a saved card:
 * only its owner, signed in (the store route authenticates customers
 * optionally, so a cart id alone reaches it), and only while the session is
 * young. A saved-card session is a charge authority: whoever holds the cart id
 * could otherwise pay with it, to an address of their choosing, at any later
 * time. Its deadline (`saved_card.expires_at`) was set by the provider when the
 * card was chosen (`savedCards.sessionLifetimeMs`); a session without one (made
 * before the deadline existed, or not by the provider) counts as expired.
 * Null for a session without a saved card, or one that already holds a payment.
 */
export function savedCardSessionRefusal(
  session: CheckoutSession,
  requesterCustomerId: string | null,
  now: Date = new Date()
): CheckoutRefusal | null {
  const card = session.payment ? null : sessionSavedCard(session)
  if (!card) {
    return null
  }
  if (!requesterCustomerId) {
    return "savedCardSignIn"
  }
  if (requesterCustomerId !== card.customer_id) {
    return "savedCardNotYours"
  }
  const deadline = card.expires_at ? Date.parse(card.expires_at) : Number.NaN
  return Number.isFinite(deadline) && deadline > now.getTime() ? null : "savedCardChooseAgain"
}

/**
 * The lock one completion at a time holds: a form id pays once, whichever
 * session carries it; a saved card pays in as many sessions as its customer
 * starts, each once, so its session is what one completion at a time is about.
 * Whatever else changes such a session (the shipping-address guard) takes it too.
 */
export function checkoutLockKey(session: Pick<CheckoutSession, "id" | "data">): string {
  const formId = session.data?.form_id
  return `servicescan:checkout:${typeof formId === "string" ? formId.toLowerCase() : session.id}`
}

/** The customer a session was created for (the hosted form's `customerId`), or null for a guest. */
export function sessionCustomerId(session: CheckoutSession): string | null {
  const formConfig = session.data?.form_config as { customerId?: unknown } | undefined
  return typeof formConfig?.customerId === "string" ? (formCustomerId(formConfig.customerId) ?? null) : null
}

/** The saved card a session pays with, when it names one, and until when the session may pay with it. */
export function sessionSavedCard(
  session: CheckoutSession
): { card_id: string; customer_id: string | null; expires_at: string | null } | null {
  const cardId = session.data?.payment_method_id
  if (typeof cardId !== "string" || !cardId || typeof session.data?.form_id === "string") {
    return null
  }
  const saved = session.data?.saved_card as { expires_at?: unknown } | undefined
  return {
    card_id: cardId,
    customer_id: sessionCustomerId(session),
    expires_at: typeof saved?.expires_at === "string" ? saved.expires_at : null,
  }
}
