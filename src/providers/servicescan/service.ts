import type {
  AuthorizePaymentInput, AuthorizePaymentOutput, CancelPaymentInput, CancelPaymentOutput, CapturePaymentInput,
  CapturePaymentOutput, CreateAccountHolderInput, CreateAccountHolderOutput, DeleteAccountHolderInput,
  DeleteAccountHolderOutput, DeletePaymentInput, DeletePaymentMethodInput, DeletePaymentMethodOutput,
  DeletePaymentOutput, GetPaymentStatusInput, GetPaymentStatusOutput, InitiatePaymentInput, InitiatePaymentOutput,
  ListPaymentMethodsInput, ListPaymentMethodsOutput, Logger, ProviderWebhookPayload, RefundPaymentInput,
  RefundPaymentOutput, RetrievePaymentInput, RetrievePaymentOutput, SavePaymentMethodInput, SavePaymentMethodOutput,
  UpdateAccountHolderInput, UpdateAccountHolderOutput, UpdatePaymentInput, UpdatePaymentOutput, WebhookActionResult
} from "@medusajs/framework/types"
import { AbstractPaymentProvider, MedusaError, Modules, PaymentActions, PaymentSessionStatus } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { RetryEvent } from "../../lib/http"
import { CheckoutClient } from "../../lib/servicescan/checkout-client"
import { roundToCurrencyPrecision, toMinorUnits } from "../../processors/money"
import { createPaymentGateway, paymentGatewaySecrets } from "../../processors"
import { GatewayProtocolError, GatewayResult, ProcessorGateway } from "../../processors/types"
import { capturedMinorOf, captureMinorFor, refundPartsFor, voidTargetOf } from "./amounts"
import { CaptureAmountReader, captureReaderFrom } from "./capture-reader"
import { CardVelocity } from "./card-velocity"
import {
  alreadyReleasedError, formCodeError, operationRefusal, savedCardTokenMismatchError, savedCardUnopenedError,
  tooManyAttemptsError,
} from "./errors"
import { isCardDecline } from "./failures"
import { hashId, processorIdFor } from "./ids"
import { parseServiceScanOptions, ResolvedServiceScanOptions, ServiceScanOptions } from "./options"
import { ProcessorCall, ProcessorCalls } from "./processor-calls"
import { liveAtProcessor, releasedAtProcessor } from "./processor-records"
import { FailedCall, ProviderLog } from "./provider-log"
import {
  listedSavedCards, newAccountHolder, openSavedCard, readSaveCardRequest, savedCardFrom, storedAccountHolder,
} from "./saved-card-methods"
import { SavedCardKeys, savedCardKeys, savedCardSecretValues, tokenFingerprint } from "./saved-cards"
import {
  authorizedPaymentData, canceledPaymentData, parsePaymentData, readPaymentData, refundRecord, sessionStatusOf, withCapture,
} from "./payment-data"
import {
  AuthorizationSession, initiatedSessionData, readAuthorizationSession, submittedSessionOf, updatedSessionData,
} from "./session-data"
import type { ServiceScanRefundRecord } from "./types"

type InjectedDependencies = {
  logger: Logger
  /** The payment module's own Capture service, read lazily (see `captureReaderFrom`). */
  captureService?: unknown
}

/** Validation code of a form that passed the hosted form's checks. */
const FORM_VALID = "870"
/**
 * ServiceScan payment provider: the shopper types (or scans) the card into the
 * hosted form, the storefront sends the form id back as session data, and at
 * cart completion this provider exchanges the form id for a processor token
 * and charges it through a {@link ProcessorGateway} (Worldpay cnpAPI built in).
 *
 * What the methods decide lives beside the class, pure: session-data.ts,
 * payment-data.ts, saved-card-methods.ts, amounts.ts, processor-records.ts, errors.ts.
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
  /** The provider's log lines, and its failures mapped (errors.ts) and logged; secrets scrubbed. */
  private readonly log_: ProviderLog
  /** Keys of saved cards, when the `savedCards` option enables them. */
  private readonly savedCardKeys_?: SavedCardKeys
  /** The amount of one of Medusa's Captures, which `capturePayment` is not given. */
  private readonly captureReader_: CaptureAmountReader
  /** The per-card velocity limit (the `velocity.perCard` option). */
  private readonly cardVelocity_: CardVelocity
  /** Every remote call, its failures mapped and logged (processor-calls.ts). */
  private readonly calls_: ProcessorCalls

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
    this.gateway_ = createPaymentGateway(gateway, {
      timeoutMs: this.options_.timeoutMs,
      maxRetries: this.options_.maxRetries,
      onRetry,
    })

    this.secrets_ = [
      this.options_.paymentTokenApiKey,
      ...paymentGatewaySecrets(gateway),
      ...(this.options_.savedCards ? savedCardSecretValues(this.options_.savedCards) : []),
    ].filter((secret): secret is string => typeof secret === "string" && secret.length >= 4)
    this.log_ = new ProviderLog(this.logger_, ServiceScanProviderService.identifier, this.secrets_, () => this.gateway_.name)
    this.calls_ = new ProcessorCalls(this.log_)
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
   * replaces the session), or with `{ payment_method_id }` naming a saved card
   * (checked against the customer's account holder, see `savedCardForSession`).
   * No network call.
   */
  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const { sessionKey, data } = initiatedSessionData(this.options_, this.savedCardKeys_, input)
    return { id: sessionKey ?? randomUUID(), data, status: PaymentSessionStatus.PENDING }
  }

  /**
   * Re-renders the session data for a new amount, currency or customer. An
   * authorized payment is returned unchanged: an authorization's amount cannot
   * change. No network call.
   */
  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const payment = parsePaymentData(input.data)
    if (payment) {
      return { data: payment, status: sessionStatusOf(payment) }
    }
    return { data: updatedSessionData(this.options_, this.savedCardKeys_, input), status: PaymentSessionStatus.PENDING }
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
    const existing = parsePaymentData(data)
    if (existing && existing.status !== "canceled") {
      return { data: existing, status: sessionStatusOf(existing) }
    }

    const read = readAuthorizationSession(data)
    if ("refusal" in read) {
      throw this.fail(read.refusal, { operation: "authorize", payment_method_id: read.paymentMethodId })
    }
    const { session } = read
    const idempotencyKey =
      input.context?.idempotency_key ?? session.sessionId ?? session.formConfigId ?? session.reference
    const requestId = processorIdFor(idempotencyKey)
    const call: ProcessorCall = {
      operation: "authorize",
      request_id: requestId,
      form_id: session.formId,
      payment_method_id: session.savedCard?.id,
    }

    if (existing) {
      // Re-authorizing would return the original (now released) approval.
      throw this.fail(alreadyReleasedError(requestId), call)
    }
    if (session.formId && session.responseCode !== undefined && session.responseCode !== FORM_VALID) {
      throw this.fail(formCodeError(session.responseCode, this.log_.context("authorize", "form")), { ...call, stage: "form" })
    }

    const amountMinor = toMinorUnits(
      roundToCurrencyPrecision(session.amount, session.currencyCode),
      session.currencyCode
    )
    const token = await this.tokenFor(session, call)

    // Card testing: a card declined too often lately goes no further (a new form's card is known only
    // now, after the exchange; a saved card's before any call). See card-velocity.ts.
    const cardRefusal = await this.cardVelocity_.refusal(token)
    const perCard = this.options_.velocity.perCard
    if (cardRefusal && perCard) {
      const error = tooManyAttemptsError(cardRefusal, perCard, this.log_.context("authorize"))
      throw this.fail(error, { ...call, stage: "processor", secrets: [token] })
    }

    const automatic = this.options_.capture === "automatic"
    const request = {
      requestId,
      orderId: requestId,
      amount: amountMinor,
      currencyCode: session.currencyCode,
      token,
      customerId: session.customerId,
      formId: session.formId,
    }
    const { result } = await this.calls_.processor(
      { ...call, secrets: [token], savedCard: !!session.savedCard },
      () => (automatic ? this.gateway_.sale(request) : this.gateway_.authorize(request)),
      {
        approvalOnly: true,
        onDecline: async (declined) => {
          if (declined.reason === "partial_approval" && declined.transactionId) {
            // Never requested (no allowPartialAuth), but if it happens the partial
            // hold must not linger on the shopper's card.
            await this.calls_.releaseQuietly(this.gateway_, declined.transactionId, requestId, automatic ? "capture" : "authorization")
          }
          // A replayed decline (a retried completion of the same session) is the same decline, counted once.
          if (!declined.duplicate && isCardDecline(declined)) {
            await this.cardVelocity_.recordDecline(token)
          }
        },
      }
    )
    const transactionId = result.transactionId
    if (!transactionId) {
      const error = new GatewayProtocolError(`${this.gateway_.name} approved without a transaction id`, {
        gateway: this.gateway_.name,
      })
      throw this.fail(error, { ...call, stage: "processor" })
    }

    const fingerprint = this.savedCardKeys_ ? tokenFingerprint(this.savedCardKeys_, token) : undefined
    const payment = authorizedPaymentData(this.options_, {
      session, result, transactionId, requestId, amountMinor, gateway: this.gateway_.name, tokenFingerprint: fingerprint,
    })
    if (result.duplicate) {
      this.log("info", { ...call, event: "duplicate_approval", cnp_txn_id: transactionId })
      // The processor answers a repeated request id with the original approval
      // even when that authorization was released since (Medusa's compensation
      // cancels it when the Payment cannot be created, and the session's data is
      // rolled back with it). Its own records, not any process's memory, say
      // whether it still holds.
      const released = await this.calls_.remote({ ...call, stage: "processor" }, () =>
        releasedAtProcessor(this.gateway_, requestId, automatic)
      )
      if (released) {
        throw this.fail(alreadyReleasedError(requestId), call)
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
    const payment = readPaymentData(input.data, "capture")
    if (payment.status === "canceled") {
      throw operationRefusal({ reason: "captureCanceled" })
    }
    const capturedMinor = capturedMinorOf(payment)
    if (payment.status === "captured" || capturedMinor >= payment.amount_minor) {
      return { data: { ...payment, status: "captured" } }
    }
    const captureId = input.context?.idempotency_key
    const amount = captureId ? await this.captureReader_(captureId) : undefined
    const amountMinor = captureMinorFor(payment, capturedMinor, amount, captureId)
    const whole = capturedMinor === 0 && amountMinor === payment.amount_minor
    const captureKey = `${payment.request_id}:capture:${payment.captures.length}:${amountMinor}`
    const { result, requestId } = await this.calls_.processor(
      { operation: "capture", request_id: whole ? payment.request_id : hashId(captureKey), form_id: payment.form_id },
      (requestId) =>
        this.gateway_.capture({
          requestId,
          transactionId: payment.cnp_txn_id,
          // No amount captures all that remains: the classic full capture, as before partial captures.
          ...(whole ? {} : { amount: amountMinor }),
          // For a processor whose capture names its amount whole or not (Adyen).
          remainingAmount: payment.amount_minor - capturedMinor,
          currencyCode: payment.currency_code,
        }),
      { renewKey: captureKey }
    )
    if (result.outcome === "already_done") {
      // Captured by something else (another request id, the processor's portal).
      const processor = { processor_code: result.responseCode, processor_message: result.message }
      this.log("warn", { operation: "capture", request_id: requestId, form_id: payment.form_id, event: "already_captured", ...processor })
    }
    return { data: withCapture(payment, { result, requestId, amountMinor, capturedMinor, captureId }) }
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
    const payment = readPaymentData(input.data, "refund")
    const key = input.context?.idempotency_key
    if (key && payment.refunds.some((refund) => refund.idempotency_key === key)) {
      return { data: payment }
    }
    const refunds: ServiceScanRefundRecord[] = []
    for (const part of refundPartsFor(payment, input.amount)) {
      const refundKey = `${payment.request_id}:refund:${payment.refunds.length + refunds.length}:${part.amountMinor}`
      const { result, requestId } = await this.calls_.processor(
        { operation: "refund", request_id: hashId(refundKey), form_id: payment.form_id },
        (requestId) =>
          this.gateway_.refund({
            requestId,
            transactionId: part.captureTxnId,
            paymentTransactionId: payment.cnp_txn_id,
            amount: part.amountMinor,
            currencyCode: payment.currency_code,
          }),
        { renewKey: refundKey }
      )
      refunds.push(refundRecord(part, result, requestId, key))
    }
    return { data: { ...payment, refunds: [...payment.refunds, ...refunds] } }
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
    const payment = parsePaymentData(input.data)
    if (!payment) {
      // Nothing was authorized: there is nothing to release at the processor.
      return { data: input.data }
    }
    if (payment.status === "canceled") {
      return { data: payment }
    }
    const { transactionId, kind } = voidTargetOf(payment)
    const { result } = await this.calls_.processor(
      { operation: "cancel", request_id: payment.request_id, form_id: payment.form_id },
      (requestId) => this.gateway_.cancel({ requestId, transactionId, target: kind, paymentTransactionId: payment.cnp_txn_id })
    )
    return { data: canceledPaymentData(payment, kind, result) }
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
   *   voided). A processor that cannot be asked (no `lookup`) but can release
   *   by reference (Adyen's standalone cancel) is told to release, blind: when
   *   nothing was authorized, nothing moves. If the processor cannot be
   *   reached, this throws: Medusa then keeps the session, and the
   *   reconciliation job tries again later.
   */
  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    const data = input.data ?? {}
    const payment = parsePaymentData(data)
    if (payment) {
      if (payment.status === "authorized") {
        const detail =
          "a session holding an authorization was removed; the authorization is left to its order (or was released when the order failed)"
        this.log("info", { operation: "delete", event: "authorization_kept", request_id: payment.request_id, detail })
      }
      return { data: input.data }
    }
    const submitted = submittedSessionOf(data)
    if (!submitted) {
      return { data: input.data }
    }
    const automatic = this.options_.capture === "automatic"
    const call: ProcessorCall = {
      operation: "delete",
      request_id: submitted.requestId,
      form_id: submitted.formId,
      payment_method_id: submitted.paymentMethodId,
    }
    const target = automatic ? "capture" : "authorization"
    const gateway = this.gateway_
    const releaseByReference = gateway.releaseByReference?.bind(gateway)
    let release: (requestId: string) => Promise<GatewayResult>
    const blind = !gateway.lookup && Boolean(releaseByReference)
    if (!gateway.lookup && releaseByReference) {
      // No read by our id (Adyen): release whatever was authorized under the session's reference, blind.
      release = (requestId) => releaseByReference({ requestId, orderId: submitted.requestId, target })
    } else {
      const live = await this.calls_.remote({ ...call, stage: "processor" }, () =>
        liveAtProcessor(gateway, submitted.requestId, automatic)
      )
      const transactionId = live?.transactionId
      if (!transactionId) {
        return { data: input.data }
      }
      release = (requestId) => gateway.cancel({ requestId, transactionId, target, paymentTransactionId: transactionId })
    }
    const { result } = await this.calls_.processor(call, release)
    // A blind release goes out for every submitted session that never completed, a declined one included:
    // usually nothing was authorized, so it is no incident; a failed release reaches the admin as a failed cancel.
    this.log(blind ? "info" : "warn", {
      ...call,
      event: blind ? "blind_release_requested" : "orphan_released",
      cnp_txn_id: result.transactionId,
      detail: blind
        ? "a session that never completed was released by its reference, in case its authorization's answer was lost"
        : "an authorization whose answer was lost, on a session that never completed, was released at the processor",
    })
    return { data: input.data }
  }

  /**
   * Derived from the stored data, with no call: cnpAPI has no cheap status
   * lookup (its queryTransaction is a recovery tool, not a status API), and
   * every change of state goes through this provider, which records it.
   */
  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const payment = parsePaymentData(input.data)
    return { status: payment ? sessionStatusOf(payment) : PaymentSessionStatus.PENDING, data: input.data }
  }

  /** The stored data, validated; no processor call, for the same reason as getPaymentStatus. */
  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    return { data: parsePaymentData(input.data) ?? input.data }
  }

  /**
   * The customer's record at this provider, ours since Worldpay has none: the
   * customer id and their saved cards (`newAccountHolder`). No network call.
   */
  async createAccountHolder(input: CreateAccountHolderInput): Promise<CreateAccountHolderOutput> {
    return newAccountHolder(input.context)
  }

  /**
   * The account holder's data as it should be stored: what the plugin's save
   * and delete workflows pass in `context.account_holder`, checked and its
   * cards brought to the current keys (`storedAccountHolder`). No network call.
   */
  async updateAccountHolder(input: UpdateAccountHolderInput): Promise<UpdateAccountHolderOutput> {
    return storedAccountHolder(this.savedCardKeys_, input.context.account_holder?.data, this.log_)
  }

  /**
   * Nothing to remove at the processor: cnpAPI has no online call that
   * deletes a token, and Medusa deletes the account holder, cards included.
   */
  async deleteAccountHolder(_input: DeleteAccountHolderInput): Promise<DeleteAccountHolderOutput> {
    return {}
  }

  /** The customer's saved cards as a shopper recognises them, never a token (`listedSavedCards`). No network call. */
  async listPaymentMethods(input: ListPaymentMethodsInput): Promise<ListPaymentMethodsOutput> {
    return listedSavedCards(this.savedCardKeys_, input.context?.account_holder?.data)
  }

  /**
   * Makes a saved card from a hosted form that has just paid: exchanges the
   * form id again (the service answers a repeated exchange with the same
   * token; no processor call) and answers the card (`savedCardFrom`). It
   * stores nothing: the plugin's save workflow adds the card to the account
   * holder (`updateAccountHolder`) once the order is placed.
   *
   * `data`: `{ form_id, token_fingerprint?, card?: { last4, type }, payment_id? }`.
   */
  async savePaymentMethod(input: SavePaymentMethodInput): Promise<SavePaymentMethodOutput> {
    const save = readSaveCardRequest(this.savedCardKeys_, input)
    const call: FailedCall = { operation: "save", form_id: save.request.form_id }
    const { token } = await this.calls_.remote({ ...call, stage: "exchange" }, () =>
      this.checkout_.exchangeFormId(save.request.form_id)
    )
    const saved = savedCardFrom(save, token)
    if (!saved) {
      throw this.fail(savedCardTokenMismatchError(), call)
    }
    return saved
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
  async getWebhookActionAndData(_payload: ProviderWebhookPayload["payload"]): Promise<WebhookActionResult> {
    return { action: PaymentActions.NOT_SUPPORTED }
  }

  /** The processor token: a saved card's opened from its seal (no call), a form's from the exchange. */
  private async tokenFor(session: AuthorizationSession, call: ProcessorCall): Promise<string> {
    if (!session.savedCard) {
      const exchanged = await this.calls_.remote({ ...call, stage: "exchange" }, () =>
        this.checkout_.exchangeFormId(session.reference)
      )
      return exchanged.token
    }
    const { savedCard, customerId } = session
    const opened = customerId ? openSavedCard(this.savedCardKeys_, savedCard, customerId) : undefined
    if (!opened) {
      const error = savedCardUnopenedError(this.log_.context("authorize", "form"), savedCard.id, customerId)
      throw this.fail(error, { ...call, stage: "form" })
    }
    return opened
  }

  /** The error to throw for a failure, mapped through errors.ts and logged once (`ProviderLog.failure`). */
  private fail(error: unknown, call: FailedCall): MedusaError {
    return this.calls_.fail(error, call)
  }

  private log(level: "info" | "warn" | "error", fields: Record<string, unknown>): void {
    this.log_.write(level, fields)
  }
}

export default ServiceScanProviderService
