import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  CreateAccountHolderInput,
  CreateAccountHolderOutput,
  DeleteAccountHolderInput,
  DeleteAccountHolderOutput,
  DeletePaymentInput,
  DeletePaymentMethodInput,
  DeletePaymentMethodOutput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  ListPaymentMethodsInput,
  ListPaymentMethodsOutput,
  Logger,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  SavePaymentMethodInput,
  SavePaymentMethodOutput,
  UpdateAccountHolderInput,
  UpdateAccountHolderOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from "@medusajs/framework/types"
import {
  AbstractPaymentProvider,
  MathBN,
  MedusaError,
  PaymentActions,
  PaymentSessionStatus,
} from "@medusajs/framework/utils"
import { z } from "@medusajs/framework/zod"
import { randomUUID } from "node:crypto"
import { RetryEvent } from "../../lib/http"
import { CheckoutClient } from "../../lib/servicescan/checkout-client"
import { roundToCurrencyPrecision, toMinorUnits } from "../../utils/money"
import {
  FailureCategory,
  FailureContext,
  FailureStage,
  PaymentOperation,
  SHOPPER_MESSAGES,
  ServiceScanPaymentError,
  declineError,
  formCodeError,
  savedCardRefusal,
  savedCardUnopenedError,
  toMedusaError,
} from "./errors"
import { GatewayProtocolError, GatewayResult, ProcessorGateway } from "./gateways/types"
import { WorldpayGateway } from "./gateways/worldpay"
import { formCustomerId, hashId, processorIdFor } from "./ids"
import {
  parseServiceScanOptions,
  ResolvedServiceScanOptions,
  ServiceScanOptions,
  WorldpayGatewayConfig,
} from "./options"
import {
  accountHolderDataSchema,
  deriveSavedCardKeys,
  findSavedCard,
  openToken,
  publicSavedCard,
  readAccountHolderData,
  SavedCard,
  SavedCardKeys,
  savedCardIdFor,
  sameFingerprint,
  sealToken,
  ServiceScanAccountHolderData,
  tokenFingerprint,
  withSavedCard,
} from "./saved-cards"
import {
  paymentDataSchema,
  SERVER_ONLY_KEYS,
  ServiceScanCaptureRecord,
  ServiceScanFormConfig,
  ServiceScanPaymentData,
  ServiceScanSessionData,
  ServiceScanSessionSavedCard,
  ParsedSessionData,
  sessionDataSchema,
  StorefrontInput,
} from "./types"

type InjectedDependencies = {
  logger: Logger
}

/** Validation code of a form that passed the hosted form's checks. */
const FORM_VALID = "870"
/** Fresh request ids a refund may take after replayed declines (see `refundPayment`). */
const MAX_REFUND_TRIES_AFTER_DECLINE = 5

/**
 * ServiceScan payment provider: the shopper types (or scans) the card into the
 * hosted form, the storefront sends the form id back as session data, and at
 * cart completion this provider exchanges the form id for a processor token
 * and charges it through a {@link ProcessorGateway} (Worldpay cnpAPI built in).
 *
 * Registered as `pp_servicescan_<id>`; with `id: "servicescan"` in
 * medusa-config the provider id is `pp_servicescan_servicescan`.
 */
export class ServiceScanProviderService extends AbstractPaymentProvider<ServiceScanOptions> {
  static override identifier = "servicescan"

  protected readonly logger_: Logger
  protected readonly options_: ResolvedServiceScanOptions
  protected readonly checkout_: CheckoutClient
  protected readonly gateway_: ProcessorGateway
  /** Strings scrubbed from every log line and error detail, whatever produced them. */
  private readonly secrets_: string[]
  /** Keys of saved cards, when the `savedCards` option enables them. */
  private readonly savedCardKeys_?: SavedCardKeys

  /**
   * Validates the options once, when Medusa loads the provider.
   * @throws MedusaError INVALID_DATA naming each invalid option.
   */
  static override validateOptions(options: Record<string, unknown>): void {
    parseServiceScanOptions(options)
  }

  /** Builds the clients; nothing here calls the network. */
  constructor(container: InjectedDependencies, options: ServiceScanOptions) {
    super(container, options)
    this.logger_ = container.logger
    this.options_ = parseServiceScanOptions(options)

    const onRetry = (event: RetryEvent) =>
      this.log("warn", {
        event: "retry",
        method: event.request.method,
        url: event.request.url,
        attempt: event.attempt,
        delay_ms: event.delayMs,
        reason: event.reason,
      })

    this.checkout_ = new CheckoutClient({
      checkoutUrl: this.options_.checkoutUrl,
      paymentTokenApiKey: this.options_.paymentTokenApiKey,
      processor: this.options_.processor,
      timeoutMs: this.options_.timeoutMs,
      maxRetries: this.options_.maxRetries,
      onRetry,
    })

    const gateway = this.options_.gateway
    this.gateway_ = isWorldpayConfig(gateway)
      ? new WorldpayGateway({
          url: gateway.url,
          merchantId: gateway.merchantId,
          user: gateway.user,
          password: gateway.password,
          reportGroup: gateway.reportGroup,
          version: gateway.version,
          timeoutMs: this.options_.timeoutMs,
          maxRetries: this.options_.maxRetries,
          onRetry,
        })
      : gateway

    this.secrets_ = [
      this.options_.paymentTokenApiKey,
      isWorldpayConfig(gateway) ? gateway.password : undefined,
      this.options_.savedCards?.secret,
    ].filter((secret): secret is string => typeof secret === "string" && secret.length >= 4)
    if (this.options_.savedCards) {
      this.savedCardKeys_ = deriveSavedCardKeys(this.options_.savedCards.secret)
    }
  }

  /**
   * Creates the session data the storefront renders the hosted form from.
   * Called once when the shopper picks this provider and again, with
   * `{ form_id, response_code }` in `data`, when the storefront sends the
   * submitted form (Medusa's `POST /store/payment-collections/:id/payment-sessions`
   * replaces the session). No network call.
   */
  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const storefront = this.readStorefrontInput(input.data ?? {})
    const sessionKey = input.context?.idempotency_key ?? storefront.session_id
    const customerId = input.context?.customer?.id
    const savedCard = this.savedCardForSession(storefront, customerId, input.context?.account_holder?.data)
    const sessionData = this.buildSessionData({
      amount: input.amount,
      currencyCode: input.currency_code,
      sessionKey,
      customerId,
      storefront,
      savedCard,
    })
    return {
      id: sessionKey ?? randomUUID(),
      data: sessionData,
      status: PaymentSessionStatus.PENDING,
    }
  }

  /**
   * Checks what a session asks of saved cards, before anything is stored: a
   * card to pay with must be one of this customer's (their account holder's,
   * which Medusa loads for the signed-in customer), and saving needs a
   * signed-in customer. Answers the card, copied with its sealed token, for
   * authorization to use.
   *
   * @throws MedusaError NOT_ALLOWED / INVALID_DATA with a sentence the shopper can act on.
   */
  private savedCardForSession(
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
      if (!this.savedCardKeys_) {
        throw savedCardRefusal("disabled")
      }
      if (!formCustomerId(customerId)) {
        throw savedCardRefusal("signInToSave")
      }
    }
    if (!storefront.payment_method_id) {
      return undefined
    }
    if (!this.savedCardKeys_) {
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
    return { id, sealed_token, fingerprint, brand, last4, scan_id }
  }

  /**
   * Re-renders the session data for a new amount, currency or customer. An
   * authorized payment is returned unchanged: an authorization's amount cannot
   * change. No network call.
   */
  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const data = input.data ?? {}
    const payment = paymentDataSchema.safeParse(data)
    if (payment.success) {
      return { data: payment.data, status: sessionStatusOf(payment.data) }
    }
    // The saved card was put there by initiatePayment; it stays with the customer it was sealed for.
    const { saved_card: _savedCard, ...rest } = data
    const storefront = this.readStorefrontInput(rest)
    const previous = sessionDataSchema.safeParse(data)
    const sessionKey = input.context?.idempotency_key ?? storefront.session_id
    const customerId = input.context?.customer?.id ?? storefront.form_config?.customerId
    const kept = previous.success ? previous.data.saved_card : undefined
    const savedCard =
      kept && storefront.payment_method_id === kept.id && customerId && this.opens(kept, customerId) ? kept : undefined
    const sessionData = this.buildSessionData({
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
    return { data: sessionData, status: PaymentSessionStatus.PENDING }
  }

  /**
   * Authorizes (manual capture) or charges (automatic capture) the card behind
   * the session's form id: exactly one token exchange and one processor call.
   * A session that names a saved card makes the processor call alone: the
   * token comes sealed in the session, bound to its customer and card, and is
   * opened here for that call only.
   *
   * Idempotency: the processor request id and order id derive from Medusa's
   * idempotency key (the payment session id), so a retried authorize of the
   * same session is recognised by cnpAPI's duplicate detection and answered
   * with the original result; the card is never charged twice. Data that
   * already records an authorization is returned without any call.
   *
   * Failures throw MedusaError PAYMENT_AUTHORIZATION_ERROR with a message the
   * shopper can act on. Why not return `{ status: "error", data }`? The payment
   * module would persist that data on the session (the decline would be
   * visible there), but then throws its own NOT_ALLOWED "Session … was not
   * authorized with the provider.", which the cart-complete route answers as a
   * 400 with that technical message instead of the 200
   * `{ type: "cart", error: { message } }` storefronts handle. Throwing keeps
   * the shopper's message; the merchant gets the raw processor code on the
   * error (`processorResponse`) and in one structured log line.
   */
  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    const data = input.data ?? {}
    const existing = paymentDataSchema.safeParse(data)
    if (existing.success && existing.data.status !== "canceled") {
      return { data: existing.data, status: sessionStatusOf(existing.data) }
    }

    const session = this.readSessionForAuthorization(data)
    const idempotencyKey =
      input.context?.idempotency_key ?? session.sessionId ?? session.formConfigId ?? session.reference
    const requestId = processorIdFor(idempotencyKey)
    const logContext = {
      operation: "authorize" as const,
      request_id: requestId,
      form_id: session.formId,
      payment_method_id: session.savedCard?.id,
    }

    if (existing.success) {
      // Re-authorizing would return the original (now released) approval.
      throw this.alreadyReleased(requestId, logContext)
    }
    if (session.formId && session.responseCode !== undefined && session.responseCode !== FORM_VALID) {
      throw this.fail(formCodeError(session.responseCode, this.failureContext("authorize", "form")), {
        ...logContext,
        stage: "form",
      })
    }

    const amountMinor = toMinorUnits(
      roundToCurrencyPrecision(session.amount, session.currencyCode),
      session.currencyCode
    )

    // A saved card's token comes sealed in the session (no exchange); a form's from the exchange.
    let token: string
    if (session.savedCard) {
      const opened = session.customerId ? this.opens(session.savedCard, session.customerId) : undefined
      if (!opened) {
        throw this.fail(
          savedCardUnopenedError(
            this.failureContext("authorize", "form"),
            `the saved card ${session.savedCard.id} of this session does not open for ${
              session.customerId ? `customer ${session.customerId}` : "a session without a customer"
            } (another secret, another customer, or altered data); nothing was sent`
          ),
          { ...logContext, stage: "form" }
        )
      }
      token = opened
    } else {
      try {
        token = (await this.checkout_.exchangeFormId(session.reference)).token
      } catch (error) {
        throw this.fail(error, { ...logContext, stage: "exchange" })
      }
    }

    const automatic = this.options_.capture === "automatic"
    let result: GatewayResult
    try {
      const request = {
        requestId,
        orderId: requestId,
        amount: amountMinor,
        currencyCode: session.currencyCode,
        token,
        customerId: session.customerId,
      }
      result = automatic ? await this.gateway_.sale(request) : await this.gateway_.authorize(request)
    } catch (error) {
      throw this.fail(error, { ...logContext, stage: "processor", secrets: [token] })
    }

    if (result.outcome !== "approved") {
      if (result.reason === "partial_approval" && result.transactionId) {
        // Never requested (no allowPartialAuth), but if it happens the partial
        // hold must not linger on the shopper's card.
        await this.releaseQuietly(result.transactionId, requestId, automatic ? "capture" : "authorization")
      }
      const context = { ...this.failureContext(logContext.operation), savedCard: !!session.savedCard }
      throw this.fail(declineError(result, context), {
        ...logContext,
        stage: "processor",
        duplicate: result.duplicate ?? false,
      })
    }
    if (!result.transactionId) {
      throw this.fail(
        new GatewayProtocolError(`${this.gateway_.name} approved without a transaction id`, {
          gateway: this.gateway_.name,
        }),
        { ...logContext, stage: "processor" }
      )
    }

    const now = new Date().toISOString()
    const savedCard = session.savedCard
    const payment: ServiceScanPaymentData = {
      status: automatic ? "captured" : "authorized",
      scan_id: session.formId ?? null,
      form_id: session.formId ?? null,
      source: savedCard ? "saved_card" : "form",
      ...(savedCard ? { saved_card: { id: savedCard.id, scan_id: savedCard.scan_id } } : {}),
      ...(this.savedCardKeys_ ? { token_fingerprint: tokenFingerprint(this.savedCardKeys_, token) } : {}),
      ...(session.customerId ? { customer_id: session.customerId } : {}),
      ...(session.saveCard && !savedCard ? { save_card: true } : {}),
      processor: this.options_.processor,
      gateway: this.gateway_.name,
      capture_mode: this.options_.capture,
      currency_code: session.currencyCode,
      amount: session.amount,
      amount_minor: amountMinor,
      request_id: requestId,
      order_id: requestId,
      cnp_txn_id: result.transactionId,
      ...(result.authCode ? { auth_code: result.authCode } : {}),
      // From the gateway: only it knows whether its tokens keep the card's last four (cnpAPI's do).
      card: {
        last4: result.card?.last4 ?? savedCard?.last4 ?? null,
        type: result.card?.type ?? savedCard?.brand ?? null,
      },
      processor_response: { code: result.responseCode, message: result.message },
      captures: automatic
        ? [{ cnp_txn_id: result.transactionId, amount_minor: amountMinor, request_id: requestId, captured_at: now }]
        : [],
      refunds: [],
      authorized_at: now,
    }
    if (result.duplicate) {
      this.log("info", { ...logContext, event: "duplicate_approval", cnp_txn_id: result.transactionId })
      // The processor answers a repeated request id with the original approval
      // even when that authorization was released since (Medusa's compensation
      // cancels it when the Payment cannot be created, and the session's data is
      // rolled back with it). Its own records, not any process's memory, say
      // whether it still holds.
      let released: boolean
      try {
        released = await this.releasedAtProcessor(requestId, automatic)
      } catch (error) {
        throw this.fail(error, { ...logContext, stage: "processor" })
      }
      if (released) {
        throw this.alreadyReleased(requestId, logContext)
      }
    }
    return {
      data: payment,
      status: automatic ? PaymentSessionStatus.CAPTURED : PaymentSessionStatus.AUTHORIZED,
    }
  }

  /**
   * Captures the authorization in full.
   *
   * Medusa passes no amount to `capturePayment` (CapturePaymentInput has only
   * data and context), so a provider cannot do partial captures: the first
   * capture takes the whole authorization, as Medusa's Stripe provider does,
   * and later captures of the same payment find it captured and succeed
   * without a call. The request id is the authorization's, not the Medusa
   * Capture's: Medusa deletes a failed Capture and makes a new one on retry, and
   * only an id tied to the authorization lets cnpAPI recognise the retry and
   * return the original capture (with its transaction id, which refunds need).
   */
  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const payment = this.readPaymentData(input.data, "capture")
    if (payment.status === "captured") {
      return { data: payment }
    }
    if (payment.status === "canceled") {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "The payment was canceled at the processor and cannot be captured."
      )
    }
    const logContext = { operation: "capture" as const, request_id: payment.request_id, form_id: payment.form_id }
    let result: GatewayResult
    try {
      result = await this.gateway_.capture({
        requestId: payment.request_id,
        transactionId: payment.cnp_txn_id,
      })
    } catch (error) {
      throw this.fail(error, { ...logContext, stage: "processor" })
    }
    if (result.outcome === "declined") {
      throw this.fail(declineError(result, this.failureContext(logContext.operation)), { ...logContext, stage: "processor" })
    }
    if (result.outcome === "already_done") {
      // Captured by something else (another request id, the processor's portal).
      this.log("warn", {
        ...logContext,
        event: "already_captured",
        processor_code: result.responseCode,
        processor_message: result.message,
      })
    }
    const capture: ServiceScanCaptureRecord = {
      // Unknown when captured elsewhere: refunds then have to go through the processor's portal.
      cnp_txn_id: result.outcome === "approved" ? (result.transactionId ?? "") : "",
      amount_minor: payment.amount_minor,
      request_id: payment.request_id,
      captured_at: new Date().toISOString(),
    }
    return { data: { ...payment, status: "captured", captures: [...payment.captures, capture] } }
  }

  /**
   * Refunds part or all of the capture; may be called repeatedly. A refund
   * already recorded under Medusa's idempotency key (the Refund id) is returned
   * without a call. The processor request id is NOT that key: Medusa deletes a
   * Refund whose provider call failed and makes a new one on retry, so a retry
   * after an unknown outcome would reach cnpAPI as a new credit and refund the
   * customer twice. The id comes from what a retry shares with the lost
   * attempt: the authorization, how many refunds succeeded before, the amount.
   */
  async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const payment = this.readPaymentData(input.data, "refund")
    const key = input.context?.idempotency_key
    if (key && payment.refunds.some((refund) => refund.idempotency_key === key)) {
      return { data: payment }
    }
    if (payment.status !== "captured" || payment.captures.length === 0) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        payment.status === "canceled"
          ? "The payment was canceled at the processor; there is nothing to refund."
          : "The payment has not been captured yet; cancel it instead of refunding it."
      )
    }
    let amountMinor = toMinorUnits(
      roundToCurrencyPrecision(input.amount, payment.currency_code),
      payment.currency_code
    )
    if (amountMinor <= 0) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "The refund amount must be greater than 0.")
    }

    const remaining = payment.captures.map((capture) => ({
      capture,
      remaining:
        capture.amount_minor -
        payment.refunds
          .filter((refund) => refund.capture_cnp_txn_id === capture.cnp_txn_id)
          .reduce((sum, refund) => sum + refund.amount_minor, 0),
    }))
    const target =
      remaining.find((entry) => entry.remaining >= amountMinor) ??
      // Medusa compares refunds with captures at full precision while we send
      // rounded minor units: several partial refunds can overshoot by one unit.
      remaining.find((entry) => entry.remaining > 0 && amountMinor - entry.remaining <= 1)
    if (!target) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "The refund exceeds what remains captured on this payment at the processor."
      )
    }
    amountMinor = Math.min(amountMinor, target.remaining)
    if (!target.capture.cnp_txn_id) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "This payment was captured outside Medusa, so its capture reference is unknown; refund it in the processor's portal."
      )
    }

    const refundKey = `${payment.request_id}:refund:${payment.refunds.length}:${amountMinor}`
    let requestId = hashId(refundKey)
    let logContext = { operation: "refund" as const, request_id: requestId, form_id: payment.form_id }
    let result: GatewayResult
    for (let attempt = 1; ; attempt++) {
      try {
        result = await this.gateway_.refund({
          requestId,
          transactionId: target.capture.cnp_txn_id,
          amount: amountMinor,
          currencyCode: payment.currency_code,
        })
      } catch (error) {
        throw this.fail(error, { ...logContext, stage: "processor" })
      }
      // The processor answers a repeated id with the original result, declines
      // included, and this id repeats for every new try of the same refund. A
      // decline moved no money, so the try goes out again under a fresh id.
      if (!(result.outcome === "declined" && result.duplicate) || attempt >= MAX_REFUND_TRIES_AFTER_DECLINE) {
        break
      }
      requestId = hashId(`${refundKey}:after-decline:${attempt}`)
      logContext = { ...logContext, request_id: requestId }
    }
    if (result.outcome === "declined") {
      throw this.fail(declineError(result, this.failureContext(logContext.operation)), { ...logContext, stage: "processor" })
    }
    return {
      data: {
        ...payment,
        refunds: [
          ...payment.refunds,
          {
            cnp_txn_id: result.transactionId ?? "",
            amount_minor: amountMinor,
            capture_cnp_txn_id: target.capture.cnp_txn_id,
            request_id: requestId,
            ...(key ? { idempotency_key: key } : {}),
            refunded_at: new Date().toISOString(),
          },
        ],
      },
    }
  }

  /**
   * Releases an authorization (cnpAPI authReversal) or voids a same-day sale
   * or capture (cnpAPI void). Used when an admin cancels an order and by
   * Medusa's compensation when the order cannot be created after a successful
   * authorization. "Already released" counts as success. The request id is the
   * authorization's, so every cancel of one payment is the same request to the
   * processor, whichever Medusa path sends it (the compensation passes no
   * idempotency key).
   */
  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    const parsed = paymentDataSchema.safeParse(input.data ?? {})
    if (!parsed.success) {
      // Nothing was authorized: there is nothing to release at the processor.
      return { data: input.data }
    }
    return { data: await this.release(parsed.data) }
  }

  /**
   * Called when a session is replaced or removed (a storefront starting over,
   * a cart whose total changed, the reconciliation job).
   *
   * - A session that records an authorization keeps it: that session may
   *   belong to an order already placed, and releasing would leave the order
   *   with an authorization that cannot be captured. An authorization whose
   *   order was never created is released by Medusa's compensation
   *   (`cancelPayment`) when the creation fails.
   * - A session that does not record one, but whose form was submitted, may
   *   still have been authorized: the processor acted and its answer was lost
   *   (the completion answered 409), and the storefront or the shopper never
   *   completed that session again. The processor is asked what it holds under
   *   the session's request id, and a live authorization is released (a sale
   *   voided). If the processor cannot be asked, this throws: Medusa then keeps
   *   the session, and the reconciliation job tries again later.
   */
  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const data = input.data ?? {}
    const parsed = paymentDataSchema.safeParse(data)
    if (parsed.success) {
      if (parsed.data.status === "authorized") {
        this.log("info", {
          operation: "delete",
          event: "authorization_kept",
          request_id: parsed.data.request_id,
          detail: "a session holding an authorization was removed; the authorization is left to its order (or was released when the order failed)",
        })
      }
      return { data: input.data }
    }
    const session = sessionDataSchema.safeParse(data)
    // Only a session whose form was submitted, or that names a saved card, can have been authorized.
    const requestId =
      session.success && (session.data.form_id || session.data.payment_method_id) ? session.data.form_config?.id : undefined
    if (!session.success || !requestId) {
      return { data: input.data }
    }
    const automatic = this.options_.capture === "automatic"
    const logContext = {
      operation: "delete" as const,
      request_id: requestId,
      form_id: session.data.form_id,
      payment_method_id: session.data.payment_method_id,
    }
    let result: GatewayResult
    try {
      const live = await this.liveAtProcessor(requestId, automatic)
      if (!live?.transactionId) {
        return { data: input.data }
      }
      result = await this.gateway_.cancel({
        requestId,
        transactionId: live.transactionId,
        target: automatic ? "capture" : "authorization",
      })
    } catch (error) {
      throw this.fail(error, { ...logContext, stage: "processor" })
    }
    if (result.outcome === "declined") {
      throw this.fail(declineError(result, this.failureContext(logContext.operation)), { ...logContext, stage: "processor" })
    }
    this.log("warn", {
      ...logContext,
      event: "orphan_released",
      cnp_txn_id: result.transactionId,
      detail: "an authorization whose answer was lost, on a session that never completed, was released at the processor",
    })
    return { data: input.data }
  }

  /**
   * Derived from the stored data, with no call: cnpAPI has no cheap status
   * lookup (its queryTransaction is a recovery tool, not a status API), and
   * every change of state goes through this provider, which records it.
   */
  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const parsed = paymentDataSchema.safeParse(input.data ?? {})
    return {
      status: parsed.success ? sessionStatusOf(parsed.data) : PaymentSessionStatus.PENDING,
      data: input.data,
    }
  }

  /** The stored data, validated; no processor call, for the same reason as getPaymentStatus. */
  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    const parsed = paymentDataSchema.safeParse(input.data ?? {})
    return { data: parsed.success ? parsed.data : input.data }
  }

  /**
   * The customer's record at this provider. Worldpay has no customer object,
   * so the record is ours: the customer id and the cards they saved (see
   * saved-cards.ts), kept by Medusa in the account holder's `data`. The
   * Medusa customer id is its id at the provider, as it is the hosted form's
   * `customerId`. No network call.
   */
  async createAccountHolder(input: CreateAccountHolderInput): Promise<CreateAccountHolderOutput> {
    const existing = readAccountHolderData(input.context.account_holder?.data)
    if (existing) {
      return { id: existing.customer_id, data: existing }
    }
    const customerId = input.context.customer?.id
    if (!customerId) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "An account holder needs the customer it belongs to.")
    }
    const data: ServiceScanAccountHolderData = { customer_id: customerId, cards: [] }
    return { id: customerId, data }
  }

  /**
   * Answers the account holder's data as it should be stored: the data given
   * in `context.account_holder` (the plugin's save and delete workflows pass
   * the cards they want kept), checked and normalised. Cards whose sealed
   * token does not open for this customer and card id are dropped (sealed
   * under another secret, or copied from someone else's), a card saved twice
   * is kept once, and at most MAX_SAVED_CARDS remain. No network call.
   */
  async updateAccountHolder(input: UpdateAccountHolderInput): Promise<UpdateAccountHolderOutput> {
    const parsed = accountHolderDataSchema.safeParse(input.context.account_holder?.data ?? {})
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `The account holder's data is not a ServiceScan customer record (${issue.path.join(".") || "data"}: ${issue.message}).`
      )
    }
    const holder = parsed.data
    const keys = this.savedCardKeys_
    if (!keys) {
      return { data: holder }
    }
    const usable = holder.cards.filter(
      (card) =>
        card.id === savedCardIdFor(keys, holder.customer_id, card.fingerprint) &&
        openToken(keys, card.sealed_token, { customerId: holder.customer_id, cardId: card.id }) !== undefined
    )
    if (usable.length < holder.cards.length) {
      this.log("info", {
        operation: "update_account_holder",
        event: "saved_cards_dropped",
        customer_id: holder.customer_id,
        dropped: holder.cards.length - usable.length,
        detail: "cards whose sealed token does not open for this customer were dropped",
      })
    }
    const data = usable.reduce(withSavedCard, { ...holder, cards: [] as SavedCard[] })
    return { data }
  }

  /**
   * Nothing to remove at the processor: cnpAPI has no online call that
   * deletes a token, and Medusa deletes the account holder, cards included.
   */
  async deleteAccountHolder(_input: DeleteAccountHolderInput): Promise<DeleteAccountHolderOutput> {
    return {}
  }

  /**
   * The customer's saved cards, as a shopper recognises them (brand, last
   * four), from `context.account_holder`. Never a token, sealed or not, and
   * never a card that could not be used (its seal does not open here). Empty
   * when saved cards are off. No network call.
   */
  async listPaymentMethods(input: ListPaymentMethodsInput): Promise<ListPaymentMethodsOutput> {
    const keys = this.savedCardKeys_
    const holder = readAccountHolderData(input.context?.account_holder?.data)
    if (!keys || !holder) {
      return []
    }
    return holder.cards
      .filter((card) => openToken(keys, card.sealed_token, { customerId: holder.customer_id, cardId: card.id }) !== undefined)
      .map((card) => ({ id: card.id, data: publicSavedCard(card) }))
  }

  /**
   * Makes a saved card from a hosted form that has just paid: exchanges the
   * form id again (the service answers a repeated exchange with the same
   * token; no processor call), checks that the token is the one the payment
   * was made with (`data.token_fingerprint`), and answers the card with its
   * token sealed to the customer. It stores nothing: the plugin's save
   * workflow adds the card to the account holder (`updateAccountHolder`),
   * once the order is placed, never before the authorization succeeded.
   * The same card saved twice answers the card already saved.
   *
   * `data`: `{ form_id, token_fingerprint?, card?: { last4, type }, payment_id? }`.
   */
  async savePaymentMethod(input: SavePaymentMethodInput): Promise<SavePaymentMethodOutput> {
    const keys = this.savedCardKeys_
    if (!keys) {
      throw savedCardRefusal("disabled")
    }
    const holder = readAccountHolderData(input.context?.account_holder?.data)
    if (!holder) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        "Saving a card needs the customer's ServiceScan account holder in context.account_holder."
      )
    }
    const request = saveCardInputSchema.safeParse(input.data ?? {})
    if (!request.success) {
      const issue = request.error.issues[0]
      throw new MedusaError(MedusaError.Types.INVALID_DATA, `${issue.path.join(".") || "data"}: ${issue.message}`)
    }
    const { form_id, token_fingerprint, card, payment_id } = request.data
    const logContext = { operation: "save" as const, form_id }
    let token: string
    try {
      token = (await this.checkout_.exchangeFormId(form_id)).token
    } catch (error) {
      throw this.fail(error, { ...logContext, stage: "exchange" })
    }
    const fingerprint = tokenFingerprint(keys, token)
    if (token_fingerprint && !sameFingerprint(token_fingerprint, fingerprint)) {
      throw this.fail(
        new MedusaError(
          MedusaError.Types.UNEXPECTED_STATE,
          "The form's token is not the one the payment was made with, so the card was not saved."
        ),
        logContext
      )
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

  /**
   * Nothing to remove at the processor (cnpAPI has no online call that
   * deletes a token); the plugin's delete workflow removes the card from the
   * account holder, and a session that still names it is refused at checkout.
   */
  async deletePaymentMethod(_input: DeletePaymentMethodInput): Promise<DeletePaymentMethodOutput> {
    return {}
  }

  /**
   * The service sends no webhooks and cnpAPI answers synchronously, so there
   * is nothing to act on.
   */
  async getWebhookActionAndData(
    _payload: ProviderWebhookPayload["payload"]
  ): Promise<WebhookActionResult> {
    return { action: PaymentActions.NOT_SUPPORTED }
  }

  /** Releases the authorization or voids the capture, and records it. */
  private async release(payment: ServiceScanPaymentData): Promise<ServiceScanPaymentData> {
    const operation = "cancel" as const
    if (payment.status === "canceled") {
      return payment
    }
    if (payment.refunds.length > 0) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "The payment has refunds at the processor and can no longer be voided; refund the rest instead."
      )
    }
    const captured = payment.status === "captured"
    const lastCapture = payment.captures[payment.captures.length - 1]
    const transactionId = captured ? lastCapture?.cnp_txn_id : payment.cnp_txn_id
    if (!transactionId) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "This payment was captured outside Medusa, so it cannot be voided from here; refund it in the processor's portal."
      )
    }
    const kind = captured ? "capture" : "authorization"
    const logContext = { operation, request_id: payment.request_id, form_id: payment.form_id }
    let result: GatewayResult
    try {
      result = await this.gateway_.cancel({ requestId: payment.request_id, transactionId, target: kind })
    } catch (error) {
      throw this.fail(error, { ...logContext, stage: "processor" })
    }
    if (result.outcome === "declined") {
      throw this.fail(declineError(result, this.failureContext(logContext.operation)), { ...logContext, stage: "processor" })
    }
    return {
      ...payment,
      status: "canceled",
      cancellation: {
        kind,
        cnp_txn_id: result.transactionId ?? null,
        request_id: payment.request_id,
        processor_response: { code: result.responseCode, message: result.message },
        canceled_at: new Date().toISOString(),
      },
    }
  }

  private async releaseQuietly(
    transactionId: string,
    requestId: string,
    target: "authorization" | "capture"
  ): Promise<void> {
    try {
      await this.gateway_.cancel({ requestId, transactionId, target })
    } catch (error) {
      this.log("error", {
        operation: "authorize",
        event: "partial_approval_not_released",
        request_id: requestId,
        cnp_txn_id: transactionId,
        detail: error instanceof Error ? error.message : String(error),
      })
    }
  }

  /**
   * Whether the processor released what `requestId` authorized (or voided what
   * it charged), by its own records. False when the gateway cannot look
   * transactions up.
   */
  private async releasedAtProcessor(requestId: string, automatic: boolean): Promise<boolean> {
    if (!this.gateway_.lookup) {
      return false
    }
    const found = await this.gateway_.lookup({ requestId, type: automatic ? "void" : "authReversal" })
    return found.some((answer) => answer.outcome !== "declined")
  }

  /** The authorization (or sale) the processor holds under `requestId` and has not released, if any. */
  private async liveAtProcessor(requestId: string, automatic: boolean): Promise<GatewayResult | undefined> {
    if (!this.gateway_.lookup) {
      return undefined
    }
    const found = await this.gateway_.lookup({ requestId, type: automatic ? "sale" : "authorization" })
    const approved = found.find((answer) => answer.outcome === "approved" && answer.transactionId)
    if (!approved || (await this.releasedAtProcessor(requestId, automatic))) {
      return undefined
    }
    return approved
  }

  private alreadyReleased(
    requestId: string,
    logContext: { operation: "authorize"; request_id: string; form_id?: string; payment_method_id?: string }
  ): MedusaError {
    return this.fail(
      new ServiceScanPaymentError({
        type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
        message: SHOPPER_MESSAGES.formExpired,
        operation: "authorize",
        stage: "processor",
        category: "form_expired",
        detail: `the authorization ${requestId} of this session was already released; a new session is needed`,
      }),
      logContext
    )
  }

  private buildSessionData(input: {
    amount: InitiatePaymentInput["amount"]
    currencyCode: string
    sessionKey?: string
    formId?: string
    customerId?: string
    storefront: StorefrontInput
    savedCard?: ServiceScanSessionSavedCard
  }): ServiceScanSessionData {
    const currencyCode = input.currencyCode.toLowerCase()
    // Fail at session creation, not at checkout, when the amount cannot be charged.
    const amountMinor = toMinorUnits(roundToCurrencyPrecision(input.amount, currencyCode), currencyCode)
    if (amountMinor < 0) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "The payment amount must not be negative.")
    }
    const { formConfig } = this.options_
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
      client_script_url: this.options_.clientScriptUrl,
      shareable_key: this.options_.shareableKey,
      processor: this.options_.processor,
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
   * session look authorized.
   */
  private readStorefrontInput(data: Record<string, unknown>): ParsedSessionData {
    const forbidden = SERVER_ONLY_KEYS.filter((key) => key in data)
    if (forbidden.length > 0) {
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `data.${forbidden[0]} is set by the server and cannot be sent with a payment session (send only form_id and response_code, or payment_method_id).`
      )
    }
    const result = sessionDataSchema.safeParse(data)
    if (!result.success) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, result.error.issues[0].message)
    }
    return result.data
  }

  private readSessionForAuthorization(data: Record<string, unknown>): {
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
  } {
    const session = sessionDataSchema.safeParse(data)
    const savedCard = session.success && session.data.payment_method_id ? session.data.saved_card : undefined
    if (session.success && !session.data.form_id && !session.data.payment_method_id) {
      throw this.fail(
        new ServiceScanPaymentError({
          type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
          message: SHOPPER_MESSAGES.missingForm,
          operation: "authorize",
          stage: "form",
          category: "declined",
          detail: "the session has no form_id and no payment_method_id: the storefront sent neither a submitted form nor a saved card",
        }),
        { operation: "authorize" }
      )
    }
    const usable =
      session.success &&
      (session.data.form_id ? !session.data.payment_method_id : savedCard?.id === session.data.payment_method_id)
    if (!session.success || !usable || !session.data.amount || !session.data.currency_code) {
      throw this.fail(
        new ServiceScanPaymentError({
          type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
          message: session.success && session.data.payment_method_id ? SHOPPER_MESSAGES.savedCardReselect : SHOPPER_MESSAGES.formExpired,
          operation: "authorize",
          stage: "form",
          category: "form_expired",
          detail: !session.success
            ? session.error.issues[0].message
            : !usable
              ? "the session names a saved card it does not carry (it was not created by this provider)"
              : "the session data lacks amount or currency_code: it was not created by this provider",
        }),
        { operation: "authorize" }
      )
    }
    const { form_id, response_code, amount, currency_code, form_config, session_id, save_card } = session.data
    const card = form_id ? undefined : savedCard
    const reference = form_id ?? card?.id
    if (!reference) {
      throw new MedusaError(MedusaError.Types.UNEXPECTED_STATE, "A usable session carries a form id or a saved card.")
    }
    return {
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
    }
  }

  /** The saved card's token, when its seal opens for this customer; undefined otherwise. */
  private opens(card: { id: string; sealed_token: string }, customerId: string): string | undefined {
    return this.savedCardKeys_
      ? openToken(this.savedCardKeys_, card.sealed_token, { customerId, cardId: card.id })
      : undefined
  }

  private readPaymentData(
    data: Record<string, unknown> | undefined,
    operation: PaymentOperation
  ): ServiceScanPaymentData {
    const parsed = paymentDataSchema.safeParse(data ?? {})
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new MedusaError(
        MedusaError.Types.INVALID_DATA,
        `Cannot ${operation} this payment: its data holds no ServiceScan authorization (${issue.path.join(".") || "data"}: ${issue.message}).`
      )
    }
    return parsed.data
  }

  /**
   * Maps a failure (through errors.ts, the one mapping) and writes the one
   * structured log line the merchant reads it from. Secrets are scrubbed from
   * both, whatever produced the text.
   */
  private fail(
    error: unknown,
    context: {
      operation: PaymentOperation
      stage?: FailureStage
      request_id?: string
      form_id?: string | null
      payment_method_id?: string
      duplicate?: boolean
      secrets?: string[]
    }
  ): MedusaError {
    const secrets = [...this.secrets_, ...(context.secrets ?? [])]
    const mapped = toMedusaError(error, {
      ...this.failureContext(context.operation, context.stage),
      scrub: (text) => redact(text, secrets),
    })
    if (!(mapped instanceof ServiceScanPaymentError)) {
      this.log("warn", { operation: context.operation, event: "failed", request_id: context.request_id, detail: mapped.message }, secrets)
      return mapped
    }
    this.log(
      levelFor(mapped.category),
      {
        operation: context.operation,
        event: "failed",
        category: mapped.category,
        stage: mapped.stage,
        gateway: this.gateway_.name,
        request_id: context.request_id,
        form_id: context.form_id ?? undefined,
        payment_method_id: context.payment_method_id,
        processor_code: mapped.processorResponse?.code,
        processor_message: mapped.processorResponse?.message,
        duplicate: context.duplicate,
        outcome_unknown: mapped.outcomeUnknown || undefined,
        detail: mapped.detail,
      },
      secrets
    )
    return mapped
  }

  /** How this provider's errors are made: its gateway's name in the texts, its secrets scrubbed from them. */
  private failureContext(operation: PaymentOperation, stage: FailureStage = "processor"): FailureContext {
    return { operation, stage, gateway: this.gateway_.name, scrub: (text) => redact(text, this.secrets_) }
  }

  /** One line: `servicescan {json}`. Values pass through `redact` before they are written. */
  private log(
    level: "info" | "warn" | "error",
    fields: Record<string, unknown>,
    secrets: string[] = this.secrets_
  ): void {
    const line = `servicescan ${JSON.stringify({ provider: ServiceScanProviderService.identifier, ...fields })}`
    this.logger_[level](redact(line, secrets))
  }
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

function isWorldpayConfig(
  gateway: WorldpayGatewayConfig | ProcessorGateway
): gateway is WorldpayGatewayConfig {
  return "type" in gateway && gateway.type === "worldpay"
}

function levelFor(category: FailureCategory): "info" | "warn" | "error" {
  switch (category) {
    case "declined":
    case "form_expired":
      return "info"
    case "unavailable":
    case "protocol":
      return "warn"
    case "configuration":
      return "error"
  }
}

function sessionStatusOf(payment: ServiceScanPaymentData): PaymentSessionStatus {
  switch (payment.status) {
    case "authorized":
      return PaymentSessionStatus.AUTHORIZED
    case "captured":
      return PaymentSessionStatus.CAPTURED
    case "canceled":
      return PaymentSessionStatus.CANCELED
  }
}

function redact(text: string, secrets: string[]): string {
  let out = text
  for (const secret of secrets) {
    if (secret && out.includes(secret)) {
      out = out.split(secret).join("[redacted]")
    }
  }
  return out
}

export default ServiceScanProviderService
