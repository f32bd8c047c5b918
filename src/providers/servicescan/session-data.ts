import type { InitiatePaymentInput, UpdatePaymentInput } from "@medusajs/framework/types"
import { MathBN } from "@medusajs/framework/utils"
import { roundToCurrencyPrecision, toMinorUnits } from "../../processors/money"
import {
  missingFormError,
  negativeAmountError,
  savedCardSessionExpiredError,
  serverOnlyKeyError,
  ServiceScanPaymentError,
  storefrontInputError,
  unusableSessionError,
} from "./errors"
import { formCustomerId, processorIdFor } from "./ids"
import { DEFAULT_SAVED_CARD_SESSION_LIFETIME_MS, ResolvedServiceScanOptions } from "./options"
import { openSavedCard, savedCardForSession } from "./saved-card-methods"
import type { SavedCardKeys } from "./saved-cards"
import {
  ParsedSessionData,
  SERVER_ONLY_KEYS,
  ServiceScanFormConfig,
  ServiceScanSessionData,
  ServiceScanSessionSavedCard,
  sessionDataSchema,
  StorefrontInput,
} from "./types"

/**
 * Building and reading the data this provider keeps on a payment session
 * before it is authorized (types.ts: its shapes and schemas; payment-data.ts
 * for what follows the authorization). Each provider method reads the data
 * through one of these, parsing it once, and gets either what it needs or the
 * error to throw. Pure: no call, no log.
 */

/** The options the session data is rendered from. */
export type SessionDataOptions = Pick<
  ResolvedServiceScanOptions,
  "clientScriptUrl" | "shareableKey" | "processor" | "formConfig" | "savedCards"
>

/**
 * initiatePayment: the session data for what the storefront sent (nothing,
 * a submitted form, or a saved card of the signed-in customer's, checked by
 * `savedCardForSession`), and the key the session is known by.
 */
export function initiatedSessionData(
  options: SessionDataOptions,
  keys: SavedCardKeys | undefined,
  input: InitiatePaymentInput
): { sessionKey?: string; data: ServiceScanSessionData } {
  const storefront = readStorefrontInput(input.data ?? {})
  const sessionKey = input.context?.idempotency_key ?? storefront.session_id
  const customerId = input.context?.customer?.id
  const savedCard = savedCardForSession(
    keys,
    options.savedCards?.sessionLifetimeMs ?? DEFAULT_SAVED_CARD_SESSION_LIFETIME_MS,
    storefront,
    customerId,
    input.context?.account_holder?.data
  )
  const data = buildSessionData(options, {
    amount: input.amount,
    currencyCode: input.currency_code,
    sessionKey,
    customerId,
    storefront,
    savedCard,
  })
  return { sessionKey, data }
}

/**
 * updatePayment, for a session not yet authorized: the session data rendered
 * again for a new amount, currency or customer. The saved card was put there
 * by initiatePayment; it stays only with the customer it was sealed for.
 */
export function updatedSessionData(
  options: SessionDataOptions,
  keys: SavedCardKeys | undefined,
  input: UpdatePaymentInput
): ServiceScanSessionData {
  const storefront = readStorefrontInput(input.data ?? {}, { keptSavedCard: true })
  const sessionKey = input.context?.idempotency_key ?? storefront.session_id
  const customerId = input.context?.customer?.id ?? storefront.form_config?.customerId
  const kept = storefront.saved_card
  const savedCard =
    kept && storefront.payment_method_id === kept.id && customerId && openSavedCard(keys, kept, customerId)
      ? kept
      : undefined
  return buildSessionData(options, {
    amount: input.amount,
    currencyCode: input.currency_code,
    sessionKey,
    formId: sessionKey ? undefined : storefront.form_config?.id,
    customerId,
    storefront: {
      form_id: storefront.form_id,
      response_code: storefront.response_code,
      save_card: storefront.save_card,
      payment_method_id: savedCard ? storefront.payment_method_id : undefined,
    },
    savedCard,
  })
}

/**
 * The session data the storefront renders the hosted form from, with what it
 * sent (`storefront`) and the saved card chosen. Fails at session creation,
 * not at checkout, when the amount cannot be charged.
 */
function buildSessionData(
  options: SessionDataOptions,
  input: {
    amount: InitiatePaymentInput["amount"]
    currencyCode: string
    sessionKey?: string
    formId?: string
    customerId?: string
    storefront: StorefrontInput
    savedCard?: ServiceScanSessionSavedCard
  }
): ServiceScanSessionData {
  const currencyCode = input.currencyCode.toLowerCase()
  const amountMinor = toMinorUnits(roundToCurrencyPrecision(input.amount, currencyCode), currencyCode)
  if (amountMinor < 0) {
    throw negativeAmountError()
  }
  const { formConfig } = options
  const form_config: ServiceScanFormConfig = {
    uiVersion: formConfig.uiVersion,
    showExplanation: formConfig.showExplanation,
    showResult: formConfig.showResult,
  }
  const id = input.sessionKey ? processorIdFor(input.sessionKey) : input.formId
  if (id) {
    form_config.id = id
  }
  const customerId = formCustomerId(input.customerId)
  if (customerId) {
    form_config.customerId = customerId
  }
  if (formConfig.reportGroup) {
    form_config.reportGroup = formConfig.reportGroup
  }
  const data: ServiceScanSessionData = {
    client_script_url: options.clientScriptUrl,
    shareable_key: options.shareableKey,
    processor: options.processor,
    form_config,
    currency_code: currencyCode,
    amount: MathBN.convert(input.amount).toFixed(),
  }
  if (input.storefront.form_id) {
    data.form_id = input.storefront.form_id
  }
  if (input.storefront.response_code) {
    data.response_code = input.storefront.response_code
  }
  if (input.storefront.save_card) {
    data.save_card = true
  }
  if (input.savedCard) {
    data.payment_method_id = input.savedCard.id
    data.saved_card = input.savedCard
  }
  return data
}

/**
 * Validates what the storefront sent. Medusa stores a new session's data as
 * `{ ...storefrontData, ...providerData }`, so keys describing an
 * authorization must be refused: otherwise a crafted request could make a
 * session look authorized. `keptSavedCard`: the data is a session's being
 * updated, whose `saved_card` initiatePayment put there.
 *
 * @throws MedusaError INVALID_DATA naming the field.
 */
function readStorefrontInput(
  data: Record<string, unknown>,
  { keptSavedCard = false }: { keptSavedCard?: boolean } = {}
): ParsedSessionData {
  const forbidden = SERVER_ONLY_KEYS.filter((key) => key in data && !(keptSavedCard && key === "saved_card"))
  if (forbidden.length > 0) {
    throw serverOnlyKeyError(forbidden[0])
  }
  const result = sessionDataSchema.safeParse(data)
  if (!result.success) {
    throw storefrontInputError(result.error.issues[0].message)
  }
  return result.data
}

/** What authorizePayment reads from a session's data. */
export type AuthorizationSession = {
  /** Exactly one of formId and savedCard is set. */
  formId?: string
  savedCard?: ServiceScanSessionSavedCard
  /** The form id, or the saved card's id: what names this payment when nothing else does. */
  reference: string
  responseCode?: string
  saveCard: boolean
  amount: string
  currencyCode: string
  customerId?: string
  formConfigId?: string
  sessionId?: string
}

/**
 * The session data authorizePayment can pay from, or the error it refuses
 * the session with (and the saved card it named, for the log line).
 */
export function readAuthorizationSession(
  data: Record<string, unknown>
): { session: AuthorizationSession } | { refusal: ServiceScanPaymentError; paymentMethodId?: string } {
  const parsed = sessionDataSchema.safeParse(data)
  if (!parsed.success) {
    return { refusal: unusableSessionError(false, parsed.error.issues[0].message) }
  }
  const { form_id, payment_method_id, response_code, amount, currency_code, form_config, session_id, save_card } =
    parsed.data
  if (!form_id && !payment_method_id) {
    return { refusal: missingFormError() }
  }
  const savedCard = payment_method_id ? parsed.data.saved_card : undefined
  const card = form_id ? undefined : savedCard
  const reference = form_id ?? card?.id
  const usable = form_id ? !payment_method_id : savedCard?.id === payment_method_id
  if (!usable || !reference || !amount || !currency_code) {
    return {
      refusal: unusableSessionError(
        !!payment_method_id,
        !usable || !reference
          ? "the session names a saved card it does not carry (it was not created by this provider)"
          : "the session data lacks amount or currency_code: it was not created by this provider"
      ),
    }
  }
  const deadline = card?.expires_at ? Date.parse(card.expires_at) : Number.NaN
  if (card && !(deadline > Date.now())) {
    // The completion's guard refuses it first; this holds for every other way to authorize.
    return { refusal: savedCardSessionExpiredError(card.expires_at), paymentMethodId: card.id }
  }
  return {
    session: {
      reference,
      formId: form_id,
      savedCard: card,
      responseCode: response_code,
      saveCard: save_card === true,
      amount,
      currencyCode: currency_code.toLowerCase(),
      customerId: formCustomerId(form_config?.customerId),
      formConfigId: form_config?.id,
      sessionId: session_id,
    },
  }
}

/**
 * The request id of a session that may have been authorized without its
 * answer reaching us: only a session whose form was submitted, or that names
 * a saved card, can have been. Undefined for any other data.
 */
export function submittedSessionOf(
  data: Record<string, unknown>
): { requestId: string; formId?: string; paymentMethodId?: string } | undefined {
  const parsed = sessionDataSchema.safeParse(data)
  if (!parsed.success || !(parsed.data.form_id || parsed.data.payment_method_id) || !parsed.data.form_config?.id) {
    return undefined
  }
  return {
    requestId: parsed.data.form_config.id,
    formId: parsed.data.form_id,
    paymentMethodId: parsed.data.payment_method_id,
  }
}

