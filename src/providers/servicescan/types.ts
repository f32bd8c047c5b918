import { z } from "@medusajs/framework/zod"
import { DEVICE_ID, DEVICE_ID_PROBLEM } from "../../lib/device-id"
import { UUID } from "../../lib/uuid"

/**
 * The data this provider keeps in Medusa. Two shapes:
 *
 * - {@link ServiceScanSessionData}: a payment session before authorization.
 *   Medusa returns it to the storefront (`payment_collection.payment_sessions[].data`),
 *   so it holds only what the browser needs to render the form. No secret
 *   ever goes in it.
 * - {@link ServiceScanPaymentData}: after authorization, on the session and
 *   the Payment. It holds the processor references that capture, refund and
 *   cancel need, the card's brand and last four digits, and the raw processor
 *   response. Never the processor token, never a key.
 */

/** The hosted form client's `config`, as the storefront passes it to `ServiceScan.Form`. */
export type ServiceScanFormConfig = {
  uiVersion: number
  showExplanation: boolean
  showResult: boolean
  /** At most 25 characters, derived from the payment session; the tokenization request's `id`. */
  id?: string
  /** The Medusa customer id when the shopper is logged in (at most 50 characters). */
  customerId?: string
  reportGroup?: string
}

/** Session data returned by initiatePayment / updatePayment. */
export type ServiceScanSessionData = {
  client_script_url: string
  shareable_key: string
  processor: string
  form_config: ServiceScanFormConfig
  currency_code: string
  /**
   * The session amount in major units (decimal string). authorizePayment gets
   * only the session data from Medusa, not the amount, so it travels here.
   */
  amount: string
  /** The form id from the form client's `getId()`, once the storefront sent it. */
  form_id?: string
  /** The form's validation response code ("870" = valid), once the storefront sent it. */
  response_code?: string
  /** The shopper asked to save the card entered in the form (saved after the authorization succeeds). */
  save_card?: boolean
  /** The saved card the shopper pays with, instead of a form. */
  payment_method_id?: string
  /** That card, copied from the customer's account holder when the session was created (token sealed). */
  saved_card?: ServiceScanSessionSavedCard
}

/** A saved card in session data: what authorization needs, the token sealed to the customer and card. */
export type ServiceScanSessionSavedCard = {
  id: string
  sealed_token: string
  fingerprint: string
  brand: string | null
  last4: string | null
  scan_id: string | null
  /**
   * Until when the session may pay with it (ISO 8601): set when the card was
   * chosen, `savedCards.sessionLifetimeMs` later. A session without it cannot pay.
   */
  expires_at?: string
}

/** One capture (or the sale) at the processor. */
export type ServiceScanCaptureRecord = {
  /** The capture's (or sale's) processor transaction id; "" when captured outside Medusa. */
  cnp_txn_id: string
  amount_minor: number
  /** The processor request id used (duplicate-detection key). */
  request_id: string
  /** Medusa's Capture id this capture was made for (absent for a sale). */
  idempotency_key?: string
  captured_at: string
} & LaterOutcome

/**
 * The processor's later word on an operation it took without deciding it
 * (Adyen's `201 received`): `pending` until its notification is applied
 * (operation-outcomes.ts), then `succeeded` or `failed`. Absent when the
 * processor decided at once (cnpAPI), which is as good as `succeeded`.
 */
export type LaterOutcome = {
  outcome?: "pending" | "succeeded" | "failed"
  /** The processor's words for a failure. */
  outcome_reason?: string
  /** When the processor decided (its notification's time). */
  outcome_at?: string
}

/** One refund at the processor. */
export type ServiceScanRefundRecord = {
  /** The credit's processor transaction id. */
  cnp_txn_id: string
  amount_minor: number
  /** The capture or sale this refund credits. */
  capture_cnp_txn_id: string
  /** The processor request id used (duplicate-detection key). */
  request_id: string
  /** Medusa's idempotency key of the refund (the Refund id), to recognise a retry. */
  idempotency_key?: string
  refunded_at: string
} & LaterOutcome

/** `authorized` until the captures add up to the authorization (partial captures keep it so), then `captured`. */
export type ServiceScanPaymentStatus = "authorized" | "captured" | "canceled"

/** Payment data after authorizePayment (and after capture, refund, cancel). */
export type ServiceScanPaymentData = {
  status: ServiceScanPaymentStatus
  /**
   * The scan id of this payment: its form id (the disputes feature reads
   * `payment.data.scan_id`). Null for a payment with a saved card: no form,
   * no scan; its evidence is the card's (`saved_card.scan_id`, and earlier
   * payments with the same `token_fingerprint`).
   */
  scan_id: string | null
  form_id: string | null
  /** How the card reached the processor: a hosted form, or a card the customer saved. Absent on older payments ("form"). */
  source?: "form" | "saved_card"
  /** The saved card paid with, and the scan id of the form that saved it. */
  saved_card?: { id: string; scan_id: string | null }
  /**
   * A keyed fingerprint of the processor token (never the token): finds the
   * other payments made with the same card. Set when saved cards are enabled.
   */
  token_fingerprint?: string
  /** The customer whose session this was (the hosted form's `customerId`), when signed in. */
  customer_id?: string
  /** The shopper ticked "Save this card"; the card is saved once the order is placed. */
  save_card?: boolean
  /** The service's processor path segment, e.g. "worldpay". */
  processor: string
  /** The gateway that moved the money, e.g. "worldpay" or a custom gateway's name. */
  gateway: string
  capture_mode: "manual" | "automatic"
  currency_code: string
  /** Authorized amount, major units (decimal string), as Medusa counts it. */
  amount: string
  /** Authorized amount in the currency's minor unit, as sent to the processor. */
  amount_minor: number
  /** The processor request id (cnpAPI `id`) of the authorization or sale. */
  request_id: string
  /** The merchant order reference sent to the processor (cnpAPI `orderId`). */
  order_id: string
  /**
   * The processor's id of the authorization or sale: cnpAPI's `cnpTxnId`, the
   * reference Worldpay's reports and support use. (With a custom gateway it
   * holds that gateway's transaction id; the name follows the built-in one.)
   */
  cnp_txn_id: string
  auth_code?: string
  card: { last4: string | null; type: string | null }
  /** The processor's raw answer to the authorization or sale. */
  processor_response: { code: string; message: string }
  captures: ServiceScanCaptureRecord[]
  refunds: ServiceScanRefundRecord[]
  /** Set once the authorization was released or the capture voided. */
  cancellation?: {
    kind: "authorization" | "capture"
    /** The reversal's or void's processor transaction id, when the processor gave one. */
    cnp_txn_id: string | null
    request_id: string
    processor_response: { code: string; message: string }
    canceled_at: string
  } & LaterOutcome
  authorized_at: string
}

const SAVED_CARD_ID = /^sscard_[A-Za-z0-9_-]{22}$/

/**
 * What the storefront may send in `data` of
 * `POST /store/payment-collections/:id/payment-sessions`. Other keys are
 * ignored, except the ones only the server may set (see
 * {@link SERVER_ONLY_KEYS}).
 */
export const storefrontInputSchema = z.object({
  form_id: z
    .string({ error: "data.form_id must be a string: the form id returned by the form client's getId()" })
    .regex(UUID, { error: "data.form_id must be the form id returned by the form client's getId() (a UUID)" })
    .transform((value) => value.toLowerCase())
    .optional(),
  response_code: z
    .string({ error: "data.response_code must be a string of digits: the code the form client's callback received" })
    .regex(/^\d{1,4}$/, {
      error: "data.response_code must be a string of digits: the code the form client's callback received",
    })
    .optional(),
  save_card: z
    .boolean({ error: "data.save_card must be true or false: whether to save the card entered in the form" })
    .optional(),
  payment_method_id: z
    .string({ error: "data.payment_method_id must be a string: the id of one of the customer's saved cards" })
    .regex(SAVED_CARD_ID, { error: "data.payment_method_id must be the id of a saved card (sscard_...)" })
    .optional(),
  /** The widget's first-party device id (src/lib/device-id.ts), kept with the checkout's signals as evidence. */
  device_id: z.string({ error: DEVICE_ID_PROBLEM }).regex(DEVICE_ID, { error: DEVICE_ID_PROBLEM }).optional(),
})

export type StorefrontInput = z.infer<typeof storefrontInputSchema>

/** A string, where empty or missing both mean "not there". */
const optionalText = z.preprocess((value) => (value === "" || value === null ? undefined : value), z.string().optional())

/**
 * Session data read back before this provider acts on it (authorize, update,
 * delete): what {@link ServiceScanSessionData} holds, read leniently, since
 * Medusa stores whatever the storefront sent beside it. The form fields keep
 * the storefront schema's messages; the rest falls back to "absent" rather
 * than failing, and the caller decides what absent means.
 */
export const sessionDataSchema = z.looseObject({
  form_id: z.preprocess((value) => (value === "" || value === null ? undefined : value), storefrontInputSchema.shape.form_id),
  response_code: z.preprocess((value) => (value === null ? undefined : value), storefrontInputSchema.shape.response_code),
  amount: optionalText.catch(undefined),
  currency_code: optionalText.catch(undefined),
  save_card: z.preprocess((value) => (value === null ? undefined : value), storefrontInputSchema.shape.save_card),
  payment_method_id: z.preprocess(
    (value) => (value === "" || value === null ? undefined : value),
    storefrontInputSchema.shape.payment_method_id
  ),
  device_id: z.preprocess((value) => (value === "" || value === null ? undefined : value), storefrontInputSchema.shape.device_id),
  /** Set by initiatePayment only (see SERVER_ONLY_KEYS); read leniently, checked when opened. */
  saved_card: z
    .object({
      id: z.string(),
      sealed_token: z.string(),
      fingerprint: z.string(),
      brand: z.string().nullable(),
      last4: z.string().nullable(),
      scan_id: z.string().nullable(),
      expires_at: z.string().optional(),
    })
    .optional()
    .catch(undefined),
  /** What a storefront that sets its own idempotency key sends. */
  session_id: optionalText.catch(undefined),
  form_config: z
    .looseObject({
      /** The processor request id of this session (at most 25 characters; see ids.ts). */
      id: z.string().min(1).max(25).optional().catch(undefined),
      customerId: optionalText.catch(undefined),
    })
    .optional()
    .catch(undefined),
})

export type ParsedSessionData = z.infer<typeof sessionDataSchema>

/**
 * Keys that describe an authorization. Medusa stores a new session's data as
 * `{ ...storefrontData, ...providerData }`, so a storefront that sent these
 * could make a session look authorized; initiatePayment refuses them.
 */
export const SERVER_ONLY_KEYS = [
  "status",
  "scan_id",
  "cnp_txn_id",
  "request_id",
  "order_id",
  "captures",
  "refunds",
  "cancellation",
  "authorized_at",
  "processor_response",
  "amount_minor",
  "card",
  "gateway",
  "capture_mode",
  "saved_card",
  "source",
  "token_fingerprint",
  "customer_id",
] as const

const processorResponseSchema = z.object({ code: z.string(), message: z.string() })

/** {@link LaterOutcome}'s fields, on every record of an operation. */
const laterOutcomeShape = {
  outcome: z.enum(["pending", "succeeded", "failed"]).optional(),
  outcome_reason: z.string().optional(),
  outcome_at: z.string().optional(),
}

/**
 * Validates stored payment data before capture, refund and cancel rely on it.
 * Loose: keys other features add to `payment.data` survive our updates.
 */
export const paymentDataSchema = z.looseObject({
  status: z.enum(["authorized", "captured", "canceled"]),
  scan_id: z.string().nullable(),
  form_id: z.string().nullable(),
  source: z.enum(["form", "saved_card"]).optional(),
  saved_card: z.object({ id: z.string(), scan_id: z.string().nullable() }).optional(),
  token_fingerprint: z.string().optional(),
  customer_id: z.string().optional(),
  save_card: z.boolean().optional(),
  processor: z.string(),
  gateway: z.string(),
  capture_mode: z.enum(["manual", "automatic"]),
  currency_code: z.string().regex(/^[a-z]{3}$/i),
  amount: z.string(),
  amount_minor: z.number().int().nonnegative(),
  request_id: z.string().min(1).max(25),
  order_id: z.string().min(1),
  cnp_txn_id: z.string().min(1),
  auth_code: z.string().optional(),
  card: z.object({ last4: z.string().nullable(), type: z.string().nullable() }),
  processor_response: processorResponseSchema,
  captures: z.array(
    z.object({
      cnp_txn_id: z.string(),
      amount_minor: z.number().int().nonnegative(),
      request_id: z.string(),
      idempotency_key: z.string().optional(),
      captured_at: z.string(),
      ...laterOutcomeShape,
    })
  ),
  refunds: z.array(
    z.object({
      cnp_txn_id: z.string(),
      amount_minor: z.number().int().nonnegative(),
      capture_cnp_txn_id: z.string(),
      request_id: z.string(),
      idempotency_key: z.string().optional(),
      refunded_at: z.string(),
      ...laterOutcomeShape,
    })
  ),
  cancellation: z
    .object({
      kind: z.enum(["authorization", "capture"]),
      cnp_txn_id: z.string().nullable(),
      request_id: z.string(),
      processor_response: processorResponseSchema,
      canceled_at: z.string(),
      ...laterOutcomeShape,
    })
    .optional(),
  authorized_at: z.string(),
}) satisfies z.ZodType<ServiceScanPaymentData>
