import type {
  CreateAccountHolderOutput,
  ListPaymentMethodsOutput,
  SavePaymentMethodOutput,
  UpdateAccountHolderOutput,
} from "@medusajs/framework/types"
import { z } from "@medusajs/framework/zod"
import { accountHolderError, savedCardRefusal } from "./errors"
import { formCustomerId } from "./ids"
import type { ProviderLog } from "./provider-log"
import {
  accountHolderDataSchema,
  findSavedCard,
  openToken,
  publicSavedCard,
  readAccountHolderData,
  resealSavedCards,
  SavedCard,
  SavedCardKeys,
  savedCardIdFor,
  sameFingerprint,
  sealToken,
  ServiceScanAccountHolderData,
  tokenFingerprint,
  withSavedCard,
} from "./saved-cards"
import type { ParsedSessionData, ServiceScanSessionSavedCard } from "./types"

/**
 * What the provider's saved-card methods decide (createAccountHolder,
 * updateAccountHolder, listPaymentMethods, savePaymentMethod, and the saved
 * card a session pays with), over the account holder's data and the keys of
 * saved-cards.ts. `keys` is undefined when the `savedCards` option is off.
 * No network call: the provider makes the one exchange savePaymentMethod needs.
 */

/**
 * Checks what a session asks of saved cards, before anything is stored: a
 * card to pay with must be one of this customer's (their account holder's,
 * which Medusa loads for the signed-in customer), and saving needs a
 * signed-in customer. Answers the card, copied with its sealed token and a
 * deadline `lifetimeMs` from now, for authorization to use.
 *
 * @throws MedusaError NOT_ALLOWED / INVALID_DATA with a sentence the shopper can act on.
 */
export function savedCardForSession(
  keys: SavedCardKeys | undefined,
  lifetimeMs: number,
  storefront: ParsedSessionData,
  customerId: string | undefined,
  accountHolderData: unknown
): ServiceScanSessionSavedCard | undefined {
  if (storefront.form_id && storefront.payment_method_id) {
    throw savedCardRefusal("formAndCard")
  }
  if (storefront.save_card && storefront.payment_method_id) {
    throw savedCardRefusal("saveSavedCard")
  }
  if (storefront.save_card) {
    if (!keys) {
      throw savedCardRefusal("disabled")
    }
    if (!formCustomerId(customerId)) {
      throw savedCardRefusal("signInToSave")
    }
  }
  if (!storefront.payment_method_id) {
    return undefined
  }
  if (!keys) {
    throw savedCardRefusal("disabled")
  }
  if (!formCustomerId(customerId)) {
    throw savedCardRefusal("signInToPay")
  }
  const holder = readAccountHolderData(accountHolderData)
  const card = holder?.customer_id === customerId ? findSavedCard(holder, storefront.payment_method_id) : undefined
  if (!card) {
    throw savedCardRefusal("notYours")
  }
  const { id, sealed_token, fingerprint, brand, last4, scan_id } = card
  // A saved-card session is a charge authority: it pays for a bounded time after the card was chosen.
  const expires_at = new Date(Date.now() + lifetimeMs).toISOString()
  return { id, sealed_token, fingerprint, brand, last4, scan_id, expires_at }
}

/** The saved card's token, when its seal opens for this customer; undefined otherwise. */
export function openSavedCard(
  keys: SavedCardKeys | undefined,
  card: { id: string; sealed_token: string },
  customerId: string
): string | undefined {
  return keys ? openToken(keys, card.sealed_token, { customerId, cardId: card.id }) : undefined
}

/** createAccountHolder: the record kept already, or a new one for the customer, with no cards. */
export function newAccountHolder(context: {
  account_holder?: { data?: unknown }
  customer?: { id?: string }
}): CreateAccountHolderOutput {
  const existing = readAccountHolderData(context.account_holder?.data)
  if (existing) {
    return { id: existing.customer_id, data: existing }
  }
  const customerId = context.customer?.id
  if (!customerId) {
    throw accountHolderError({ reason: "noCustomer" })
  }
  const data: ServiceScanAccountHolderData = { customer_id: customerId, cards: [] }
  return { id: customerId, data }
}

/**
 * updateAccountHolder: the account holder's data as it should be stored,
 * normalised by `resealSavedCards`, with one log line for each kind of change.
 */
export function storedAccountHolder(
  keys: SavedCardKeys | undefined,
  accountHolderData: unknown,
  log: Pick<ProviderLog, "write">
): UpdateAccountHolderOutput {
  const parsed = accountHolderDataSchema.safeParse(accountHolderData ?? {})
  if (!parsed.success) {
    throw accountHolderError({ reason: "notOurs", issue: parsed.error.issues[0] })
  }
  const holder = parsed.data
  if (!keys) {
    return { data: holder }
  }
  const { cards: usable, resealed, unopened, dropped } = resealSavedCards(keys, holder)
  if (dropped) {
    log.write("info", {
      operation: "update_account_holder",
      event: "saved_cards_dropped",
      customer_id: holder.customer_id,
      dropped,
      detail: "cards whose sealed token its own key refuses for this customer were dropped",
    })
  }
  if (unopened.length) {
    log.write("warn", {
      operation: "update_account_holder",
      event: "saved_cards_unopened",
      customer_id: holder.customer_id,
      kept: unopened.length,
      key_ids: [...new Set(unopened)].join(","),
      detail: "cards sealed under keys savedCards.secret does not hold were kept, unusable until those keys are back",
    })
  }
  if (resealed) {
    log.write("info", { operation: "update_account_holder", event: "saved_cards_resealed", customer_id: holder.customer_id, resealed })
  }
  const data = usable.reduce(withSavedCard, { ...holder, cards: [] as SavedCard[] })
  return { data }
}

/** listPaymentMethods: the cards whose seal opens here, as a shopper recognises them. */
export function listedSavedCards(keys: SavedCardKeys | undefined, accountHolderData: unknown): ListPaymentMethodsOutput {
  const holder = readAccountHolderData(accountHolderData)
  if (!keys || !holder) {
    return []
  }
  return holder.cards
    .filter((card) => openToken(keys, card.sealed_token, { customerId: holder.customer_id, cardId: card.id }) !== undefined)
    .map((card) => ({ id: card.id, data: publicSavedCard(card) }))
}

/** What the save workflow passes to savePaymentMethod: the paying form and what the authorization learnt. */
const saveCardInputSchema = z.object({
  form_id: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, {
    error: "must be the hosted form id the card was paid with",
  }),
  token_fingerprint: z.string().min(1).optional(),
  card: z.object({ last4: z.string().regex(/^\d{4}$/).nullable(), type: z.string().max(16).nullable() }).optional(),
  payment_id: z.string().min(1).optional(),
})

/** A save request savePaymentMethod can serve. */
export type SaveCardRequest = {
  keys: SavedCardKeys
  holder: ServiceScanAccountHolderData
  request: z.infer<typeof saveCardInputSchema>
}

/**
 * savePaymentMethod, before the exchange: saved cards enabled, the customer's
 * account holder in context, and the request's `data` well formed.
 */
export function readSaveCardRequest(
  keys: SavedCardKeys | undefined,
  input: { data?: Record<string, unknown>; context?: { account_holder?: { data?: unknown } } }
): SaveCardRequest {
  if (!keys) {
    throw savedCardRefusal("disabled")
  }
  const holder = readAccountHolderData(input.context?.account_holder?.data)
  if (!holder) {
    throw accountHolderError({ reason: "saveWithoutHolder" })
  }
  const request = saveCardInputSchema.safeParse(input.data ?? {})
  if (!request.success) {
    throw accountHolderError({ reason: "saveRequest", issue: request.error.issues[0] })
  }
  return { keys, holder, request: request.data }
}

/**
 * savePaymentMethod, after the exchange answered `token`: the card already
 * saved with this token, or a new one with the token sealed to the customer.
 * Undefined when the token is not the one the payment was made with.
 */
export function savedCardFrom({ keys, holder, request }: SaveCardRequest, token: string): SavePaymentMethodOutput | undefined {
  const { form_id, token_fingerprint, card, payment_id } = request
  const fingerprint = tokenFingerprint(keys, token)
  if (token_fingerprint && !sameFingerprint(token_fingerprint, fingerprint)) {
    return undefined
  }
  const already = holder.cards.find((saved) => sameFingerprint(saved.fingerprint, fingerprint))
  if (already) {
    return { id: already.id, data: already }
  }
  const id = savedCardIdFor(keys, holder.customer_id, fingerprint)
  const saved: SavedCard = {
    id,
    sealed_token: sealToken(keys, token, { customerId: holder.customer_id, cardId: id }),
    fingerprint,
    brand: card?.type ?? null,
    last4: card?.last4 ?? null,
    scan_id: form_id,
    payment_id: payment_id ?? null,
    saved_at: new Date().toISOString(),
  }
  return { id, data: saved }
}
