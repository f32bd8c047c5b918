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
  BigNumber,
  MathBN,
  MedusaError,
  Modules,
  PaymentActions,
  PaymentSessionStatus,
} from "@medusajs/framework/utils"
import { z } from "@medusajs/framework/zod"
import { randomUUID } from "node:crypto"
import { RetryEvent } from "../../lib/http"
import { tooManyAttemptsMessage } from "../../lib/velocity/subjects"
import { CheckoutClient } from "../../lib/servicescan/checkout-client"
import { MoneyAmount, roundToCurrencyPrecision, toMinorUnits } from "../../utils/money"
import { capturedMinorOf, planRefund } from "./amounts"
import { CardVelocity } from "./card-velocity"
import {
  CHECKOUT_TRUST_REFUSALS,
  FailureCategory,
  FailureContext,
  FailureStage,
  PaymentOperation,
  SHOPPER_MESSAGES,
  ServiceScanPaymentError,
  declineError,
  formCodeError,
  isCardDecline,
  savedCardRefusal,
  savedCardUnopenedError,
  toMedusaError,
  tooManyAttemptsError,
} from "./errors"
import { GatewayProtocolError, GatewayResult, ProcessorGateway } from "./gateways/types"
import { WorldpayGateway } from "./gateways/worldpay"
import { formCustomerId, hashId, processorIdFor } from "./ids"
import {
  DEFAULT_SAVED_CARD_SESSION_LIFETIME_MS,
  parseServiceScanOptions,
  ResolvedServiceScanOptions,
  ServiceScanOptions,
  WorldpayGatewayConfig,
} from "./options"
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
  savedCardKeys,
  savedCardSecretValues,
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
  ServiceScanRefundRecord,
  ServiceScanPaymentData,
  ServiceScanSessionData,
  ServiceScanSessionSavedCard,
  ParsedSessionData,
  sessionDataSchema,
  StorefrontInput,
} from "./types"

type InjectedDependencies = {
  logger: Logger
  /** The payment module's own Capture service, read lazily (see `captureReaderFrom`). */
  captureService?: unknown
}

/** Validation code of a form that passed the hosted form's checks. */
const FORM_VALID = "870"
/** Fresh request ids a refund or capture may take after replayed declines (see `sendRenewingReplayedDeclines`). */
const MAX_TRIES_AFTER_DECLINE = 5

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
  /** The amount of one of Medusa's Captures, which `capturePayment` is not given. */
  private readonly captureReader_: CaptureAmountReader
  /** The per-card velocity limit (the `velocity.perCard` option). */
  private readonly cardVelocity_: CardVelocity

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
      ...(this.options_.savedCards ? savedCardSecretValues(this.options_.savedCards) : []),
    ].filter((secret): secret is string => typeof secret === "string" && secret.length >= 4)
    if (this.options_.savedCards) {
      this.savedCardKeys_ = savedCardKeys(this.options_.savedCards)
    }
    this.captureReader_ = captureReaderFrom(this.container, this.logger_)
    this.cardVelocity_ = new CardVelocity(
      this.options_.velocity.perCard,
      this.options_.paymentTokenApiKey,
      () => this.container[Modules.CACHING],
      (error) =>
        this.log("warn", { event: "velocity_store_failed", detail: error instanceof Error ? error.message : String(error) })
    )
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
    // A saved-card session is a charge authority: it pays for a bounded time after the card was chosen.
    const lifetimeMs = this.options_.savedCards?.sessionLifetimeMs ?? DEFAULT_SAVED_CARD_SESSION_LIFETIME_MS
    const expires_at = new Date(Date.now() + lifetimeMs).toISOString()
    return { id, sealed_token, fingerprint, brand, last4, scan_id, expires_at }
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

    // Card testing: a card declined too often lately goes no further (a new form's card is known only
    // now, after the exchange; a saved card's before any call). See card-velocity.ts.
    const cardRefusal = await this.cardVelocity_.refusal(token)
    if (cardRefusal && this.options_.velocity.perCard) {
      const { max, windowSeconds } = this.options_.velocity.perCard
      throw this.fail(
        tooManyAttemptsError(
          {
            message: tooManyAttemptsMessage(cardRefusal.retryAfterSeconds),
            detail: `the card was declined ${max} times in ${windowSeconds} s (velocity.perCard); nothing was sent to ${this.gateway_.name}, retry after ${cardRefusal.retryAfterSeconds} s`,
          },
          this.failureContext("authorize")
        ),
        { ...logContext, stage: "processor", secrets: [token] }
      )
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
      // A replayed decline (a retried completion of the same session) is the same decline, counted once.
      if (!result.duplicate && isCardDecline(result)) {
        await this.cardVelocity_.recordDecline(token)
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
   * Captures exactly the amount of Medusa's Capture, in full or in part.
   *
   * Medusa passes no amount to `capturePayment`, only its Capture's id (the
   * idempotency key), after it has checked the amount against what remains
   * authorized and committed the Capture. The amount is read from that Capture
   * (the payment module's own `captureService`, in the container the provider
   * is built in). Without it nothing is sent: capturing the whole
   * authorization for a Capture of less would take more from the shopper than
   * Medusa records and ever lets the merchant refund.
   *
   * Request ids: the first capture of the whole authorization keeps the
   * authorization's id (a retry of it, under a new Medusa Capture, is a cnpAPI
   * duplicate); a partial capture's id is derived from the authorization, the
   * captures recorded so far and the amount, like a refund's. Captures of one
   * payment run one at a time (`api/admin/payments/serialize-payment-operations.ts`),
   * so two captures never read the same "so far".
   */
  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    const payment = this.readPaymentData(input.data, "capture")
    if (payment.status === "canceled") {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "The payment was canceled at the processor and cannot be captured."
      )
    }
    const capturedMinor = capturedMinorOf(payment)
    if (payment.status === "captured" || capturedMinor >= payment.amount_minor) {
      return { data: { ...payment, status: "captured" } }
    }
    const amountMinor = await this.captureAmountOf(input.context?.idempotency_key, payment, capturedMinor)
    const whole = capturedMinor === 0 && amountMinor === payment.amount_minor
    const captureKey = `${payment.request_id}:capture:${payment.captures.length}:${amountMinor}`
    const { result, requestId } = await this.sendRenewingReplayedDeclines(
      "capture",
      payment.form_id,
      captureKey,
      whole ? payment.request_id : hashId(captureKey),
      (requestId) =>
        this.gateway_.capture({
          requestId,
          transactionId: payment.cnp_txn_id,
          // No amount captures all that remains: the classic full capture, as before partial captures.
          ...(whole ? {} : { amount: amountMinor }),
        })
    )
    if (result.outcome === "declined") {
      throw this.fail(declineError(result, this.failureContext("capture")), {
        operation: "capture",
        request_id: requestId,
        form_id: payment.form_id,
        stage: "processor",
      })
    }
    if (result.outcome === "already_done") {
      // Captured by something else (another request id, the processor's portal).
      this.log("warn", {
        operation: "capture",
        request_id: requestId,
        form_id: payment.form_id,
        event: "already_captured",
        processor_code: result.responseCode,
        processor_message: result.message,
      })
    }
    const capture: ServiceScanCaptureRecord = {
      // Unknown when captured elsewhere: refunds then have to go through the processor's portal.
      cnp_txn_id: result.outcome === "approved" ? (result.transactionId ?? "") : "",
      amount_minor: amountMinor,
      request_id: requestId,
      ...(input.context?.idempotency_key ? { idempotency_key: input.context.idempotency_key } : {}),
      captured_at: new Date().toISOString(),
    }
    const fully = result.outcome === "already_done" || capturedMinor + amountMinor >= payment.amount_minor
    return { data: { ...payment, status: fully ? "captured" : "authorized", captures: [...payment.captures, capture] } }
  }

  /**
   * The minor units Medusa's Capture `captureId` asks for, checked against what
   * remains authorized. Refuses, before anything is sent, when the Capture
   * cannot be read.
   */
  private async captureAmountOf(
    captureId: string | undefined,
    payment: ServiceScanPaymentData,
    capturedMinor: number
  ): Promise<number> {
    const amount = captureId ? await this.captureReader_(captureId) : undefined
    if (amount === undefined) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        `The amount of this capture${captureId ? ` (${captureId})` : ""} could not be read from Medusa, so nothing was captured; try again.`
      )
    }
    const remaining = payment.amount_minor - capturedMinor
    const rounded = roundToCurrencyPrecision(amount, payment.currency_code)
    let minor = toMinorUnits(rounded, payment.currency_code)
    // Medusa keeps amounts at full precision while the processor counts minor units: the last of
    // several partial captures of amounts finer than the currency can overshoot by one unit.
    if (!MathBN.eq(rounded, amount) && minor > remaining && minor - remaining <= 1) {
      minor = remaining
    }
    if (minor <= 0 || minor > remaining) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        minor <= 0
          ? "The capture amount must be greater than 0."
          : `The capture (${minor} minor units) exceeds what remains authorized at the processor (${remaining}); nothing was captured.`
      )
    }
    return minor
  }

  /**
   * Refunds part or all of what was captured; may be called repeatedly. A
   * refund already recorded under Medusa's idempotency key (the Refund id) is
   * returned without a call. The processor request id is NOT that key: Medusa
   * deletes a Refund whose provider call failed and makes a new one on retry, so
   * a retry after an unknown outcome would reach cnpAPI as a new credit and
   * refund the customer twice. The id comes from what a retry shares with the
   * lost attempt: the authorization, how many refunds succeeded before, the
   * amount. A refund larger than any one capture (after several partial
   * captures) is one credit per capture, oldest first, each with its own id.
   */
  async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const payment = this.readPaymentData(input.data, "refund")
    const key = input.context?.idempotency_key
    if (key && payment.refunds.some((refund) => refund.idempotency_key === key)) {
      return { data: payment }
    }
    if (payment.status === "canceled" || payment.captures.length === 0) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        payment.status === "canceled"
          ? "The payment was canceled at the processor; there is nothing to refund."
          : "The payment has not been captured yet; cancel it instead of refunding it."
      )
    }
    const amount = roundToCurrencyPrecision(input.amount, payment.currency_code)
    const amountMinor = toMinorUnits(amount, payment.currency_code)
    if (amountMinor <= 0) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "The refund amount must be greater than 0.")
    }

    const plan = planRefund(payment, amountMinor, !MathBN.eq(amount, input.amount))
    if ("refusal" in plan) {
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        plan.refusal === "exceeds"
          ? "The refund exceeds what remains captured on this payment at the processor."
          : "This payment was captured outside Medusa, so its capture reference is unknown; refund it in the processor's portal."
      )
    }
    const refunds: ServiceScanRefundRecord[] = []
    for (const part of plan.parts) {
      const refundKey = `${payment.request_id}:refund:${payment.refunds.length + refunds.length}:${part.amountMinor}`
      const { result, requestId } = await this.sendRenewingReplayedDeclines(
        "refund",
        payment.form_id,
        refundKey,
        hashId(refundKey),
        (requestId) =>
          this.gateway_.refund({
            requestId,
            transactionId: part.captureTxnId,
            amount: part.amountMinor,
            currencyCode: payment.currency_code,
          })
      )
      if (result.outcome === "declined") {
        throw this.fail(declineError(result, this.failureContext("refund")), {
          operation: "refund",
          request_id: requestId,
          form_id: payment.form_id,
          stage: "processor",
        })
      }
      refunds.push({
        cnp_txn_id: result.transactionId ?? "",
        amount_minor: part.amountMinor,
        capture_cnp_txn_id: part.captureTxnId,
        request_id: requestId,
        ...(key ? { idempotency_key: key } : {}),
        refunded_at: new Date().toISOString(),
      })
    }
    return { data: { ...payment, refunds: [...payment.refunds, ...refunds] } }
  }

  /**
   * Sends one modifying call, and again under a fresh id while the processor
   * replays an earlier decline: it answers a repeated id with the original
   * result, declines included, and a refund's or capture's id repeats for
   * every new try of the same operation. A decline moved no money, so the try
   * may go out again.
   */
  private async sendRenewingReplayedDeclines(
    operation: "capture" | "refund",
    formId: string | null,
    key: string,
    firstRequestId: string,
    send: (requestId: string) => Promise<GatewayResult>
  ): Promise<{ result: GatewayResult; requestId: string }> {
    let requestId = firstRequestId
    for (let attempt = 1; ; attempt++) {
      let result: GatewayResult
      try {
        result = await send(requestId)
      } catch (error) {
        throw this.fail(error, { operation, request_id: requestId, form_id: formId, stage: "processor" })
      }
      if (!(result.outcome === "declined" && result.duplicate) || attempt >= MAX_TRIES_AFTER_DECLINE) {
        return { result, requestId }
      }
      requestId = hashId(`${key}:after-decline:${attempt}`)
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
   * the cards they want kept), checked and normalised (`resealSavedCards`):
   * cards sealed under an older key are sealed again under the newest, cards
   * whose key is not configured are kept (hidden until it is back: rotating a
   * secret never drops a card), cards their own key refuses are dropped
   * (copied from someone else's, or altered), a card saved twice is kept
   * once, and at most MAX_SAVED_CARDS remain. No network call.
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
    const { cards: usable, resealed, unopened, dropped } = resealSavedCards(keys, holder)
    if (dropped) {
      this.log("info", {
        operation: "update_account_holder",
        event: "saved_cards_dropped",
        customer_id: holder.customer_id,
        dropped,
        detail: "cards whose sealed token its own key refuses for this customer were dropped",
      })
    }
    if (unopened.length) {
      this.log("warn", {
        operation: "update_account_holder",
        event: "saved_cards_unopened",
        customer_id: holder.customer_id,
        kept: unopened.length,
        key_ids: [...new Set(unopened)].join(","),
        detail: "cards sealed under keys savedCards.secret does not hold were kept, unusable until those keys are back",
      })
    }
    if (resealed) {
      this.log("info", { operation: "update_account_holder", event: "saved_cards_resealed", customer_id: holder.customer_id, resealed })
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
    if (payment.captures.length > 1 || (payment.captures.length === 1 && !captured)) {
      // Voiding one capture, or reversing the rest, would leave Medusa calling a payment with captured
      // money "canceled", and refunds of a canceled payment are refused.
      throw new MedusaError(
        MedusaError.Types.NOT_ALLOWED,
        "Part of this payment was captured; refund what was captured instead of canceling it."
      )
    }
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
    const deadline = card?.expires_at ? Date.parse(card.expires_at) : Number.NaN
    if (card && !(deadline > Date.now())) {
      // The completion's guard refuses it first; this holds for every other way to authorize.
      throw this.fail(
        new ServiceScanPaymentError({
          type: MedusaError.Types.PAYMENT_AUTHORIZATION_ERROR,
          message: CHECKOUT_TRUST_REFUSALS.savedCardChooseAgain,
          operation: "authorize",
          stage: "form",
          category: "form_expired",
          detail: card.expires_at
            ? `the saved-card session expired at ${card.expires_at}; the shopper chooses the card again`
            : "the saved-card session has no deadline (made before sessions had one, or not by this provider)",
        }),
        { operation: "authorize", payment_method_id: card.id }
      )
    }
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

/** Reads the amount of one of Medusa's Captures by id; undefined when it cannot be read. */
export type CaptureAmountReader = (captureId: string) => Promise<MoneyAmount | undefined>

type CaptureRetriever = {
  retrieve(id: string, config: { select: string[] }): Promise<{ amount?: unknown; raw_amount?: unknown }>
}

function isCaptureRetriever(value: unknown): value is CaptureRetriever {
  return typeof value === "object" && value !== null && typeof Reflect.get(value, "retrieve") === "function"
}

function isMoneyAmount(value: unknown): value is MoneyAmount {
  return (
    typeof value === "number" ||
    typeof value === "string" ||
    value instanceof BigNumber ||
    (typeof value === "object" && value !== null && "value" in value)
  )
}

/**
 * Medusa registers the payment module's own services in the container its
 * providers are built from, `captureService` among them (the module service
 * itself is built from it). Resolving it lazily keeps the provider usable where
 * it is not registered: a capture there is refused, never guessed.
 */
function captureReaderFrom(container: Record<string, unknown>, logger: Logger): CaptureAmountReader {
  return async (captureId) => {
    let service: unknown
    try {
      service = container.captureService
    } catch {
      service = undefined
    }
    if (!isCaptureRetriever(service)) {
      logger.warn(`servicescan ${JSON.stringify({ operation: "capture", event: "capture_unreadable", capture_id: captureId, detail: "the payment module's captureService is not in the provider's container" })}`)
      return undefined
    }
    try {
      const capture = await service.retrieve(captureId, { select: ["id", "amount", "raw_amount"] })
      const amount = capture.raw_amount ?? capture.amount
      return isMoneyAmount(amount) ? amount : undefined
    } catch (error) {
      logger.warn(`servicescan ${JSON.stringify({ operation: "capture", event: "capture_unreadable", capture_id: captureId, detail: error instanceof Error ? error.message : String(error) })}`)
      return undefined
    }
  }
}

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
