import type { Context, Logger } from "@medusajs/framework/types"
import { EmitEvents, InjectManager, InjectTransactionManager, MedusaContext, MedusaError, MedusaService } from "@medusajs/framework/utils"
import type { EvidenceVault } from "../../lib/sealed-evidence"
import type { DisputesImage } from "../../lib/servicescan/disputes-client"
import type { DisputeCaseRecord, DisputeGateway, PushedEvent } from "../../processors/types"
import type { ProcessorEventSqlRepository } from "./repositories/processor-event"
import { SignatureCheck, verifyWebhookSignature } from "./lifecycle/webhook-signature"
import { Chargeback, CheckoutAttempt, CheckoutSignal, DisputeCase, FormBinding, PaymentRef, ProcessorEvent, ProofRequest, ScanEvidence, ServiceState } from "./models"
import { RESOLVED_OPTIONS, ResolvedServiceScanModuleOptions, WithResolvedOptions } from "./options"
import type {
  ChargebackStatusService, CheckoutAttemptService, CheckoutSignalService, CompellingEvidenceService, DisputeAnalyticsService, DisputeCaseService, DisputesApiService,
  EvidenceVaultService, FormBindingService, PaymentRefService, ProofRequestService,
} from "./services"
import type { CardHistory } from "./services/compelling-evidence"
import type {
  CardScan, ChargebackStatusChange, CheckoutAttemptClaim, CheckoutAttemptInput, CheckoutAttemptRow, CheckoutSignalInput, CheckoutSignalPayment, ClaimedProofRequest,
  CompletedProofRequest, ConfigurationError, DisputeAnalytics, DisputeCaseMatch, DisputeCaseRow, DisputeCaseUpsert, DueSoonCase, EvidenceVerdicts, FetchOutcome,
  FormCheckout, ImageSource, PaymentRefInput, PaymentRefMatch, ProofRequestStatus, ProofResultsSnapshot, SealedFileSwap,
  ServiceProbe, SubmissionResult,
} from "./types"

type InjectedDependencies = WithResolvedOptions & {
  logger: Logger
  chargebackStatusService: ChargebackStatusService
  checkoutAttemptService: CheckoutAttemptService
  checkoutSignalService: CheckoutSignalService
  compellingEvidenceService: CompellingEvidenceService
  disputeAnalyticsService: DisputeAnalyticsService
  disputeCaseService: DisputeCaseService
  disputesApiService: DisputesApiService
  evidenceVaultService: EvidenceVaultService
  formBindingService: FormBindingService
  paymentRefService: PaymentRefService
  proofRequestService: ProofRequestService
  processorEventSqlRepository: ProcessorEventSqlRepository
}

/**
 * The disputes module: chargebacks, their proof requests and scan evidence,
 * the processor's cases, and the only code that talks to the ServiceScan
 * disputes API. A facade, as Medusa's own modules are: `MedusaService` gives
 * the CRUD of every model, and each method below hands its work to the
 * internal service of its concern (services/), whose raw SQL is in
 * repositories/ and whose decisions are in lifecycle/. Transactions begin here
 * (`@InjectTransactionManager`), and the ORM's events of a call are emitted
 * when it ends (`@EmitEvents`).
 */
export default class ServiceScanModuleService extends MedusaService({
  Chargeback,
  CheckoutAttempt,
  CheckoutSignal,
  DisputeCase,
  FormBinding,
  PaymentRef,
  ProcessorEvent,
  ProofRequest,
  ScanEvidence,
  ServiceState,
}) {
  protected readonly options_: ResolvedServiceScanModuleOptions
  protected readonly chargebackStatusService_: ChargebackStatusService
  protected readonly checkoutAttemptService_: CheckoutAttemptService
  protected readonly checkoutSignalService_: CheckoutSignalService
  protected readonly compellingEvidenceService_: CompellingEvidenceService
  protected readonly disputeAnalyticsService_: DisputeAnalyticsService
  protected readonly disputeCaseService_: DisputeCaseService
  protected readonly disputesApiService_: DisputesApiService
  protected readonly evidenceVaultService_: EvidenceVaultService
  protected readonly formBindingService_: FormBindingService
  protected readonly paymentRefService_: PaymentRefService
  protected readonly proofRequestService_: ProofRequestService
  protected readonly processorEventSql_: ProcessorEventSqlRepository

  constructor(dependencies: InjectedDependencies) {
    // eslint-disable-next-line prefer-rest-params
    super(...arguments)
    this.options_ = dependencies[RESOLVED_OPTIONS]
    this.chargebackStatusService_ = dependencies.chargebackStatusService
    this.checkoutAttemptService_ = dependencies.checkoutAttemptService
    this.checkoutSignalService_ = dependencies.checkoutSignalService
    this.compellingEvidenceService_ = dependencies.compellingEvidenceService
    this.disputeAnalyticsService_ = dependencies.disputeAnalyticsService
    this.disputeCaseService_ = dependencies.disputeCaseService
    this.disputesApiService_ = dependencies.disputesApiService
    this.evidenceVaultService_ = dependencies.evidenceVaultService
    this.formBindingService_ = dependencies.formBindingService
    this.paymentRefService_ = dependencies.paymentRefService
    this.proofRequestService_ = dependencies.proofRequestService
    this.processorEventSql_ = dependencies.processorEventSqlRepository
  }

  /**
   * Seals card evidence (archived scan images, evidence packs) under the `evidenceKey` option and opens it
   * again. Only the admin routes and the steps that archive, pack and upload use it.
   */
  getEvidenceVault(): EvidenceVault {
    return this.evidenceVaultService_.vault
  }

  /** Settings safe to show an admin: which keys are set, never their values. */
  getSettings() {
    const options = this.options_
    const gateways = this.disputeCaseService_.gateways
    return {
      base_url: options.baseUrl,
      keys: {
        secret_key: Boolean(options.secretKey),
        webhook_secret: Boolean(options.webhookSecret),
        evidence_key: this.evidenceVaultService_.vault.configured,
      },
      poll_interval_ms: options.pollIntervalMs,
      archive_images: options.archiveImages,
      concurrency: options.concurrency,
      page_size: options.pageSize,
      checkout_reconcile_after_ms: options.checkoutReconcileAfterMs,
      // The first, as before lists were taken; `dispute_gateways` names them all.
      dispute_gateway: gateways[0] ? { name: gateways[0].name } : null,
      dispute_gateways: gateways.map((gateway) => ({ name: gateway.name })),
      auto_respond: options.autoRespond,
      max_document_bytes: options.maxDocumentBytes,
      case_import_overlap_days: options.caseImportOverlapDays,
      case_import_lookback_days: options.caseImportLookbackDays,
    }
  }

  /** Set after a 401/403 from the service (or without a secret key): calls stop until a probe succeeds. Shared by every process. */
  async getConfigurationError(): Promise<ConfigurationError | null> {
    return await this.disputesApiService_.getConfigurationError()
  }

  /** The configuration error when it stops this process's calls (its own key was refused), else null. */
  async getConfigurationErrorHere(): Promise<ConfigurationError | null> {
    return await this.disputesApiService_.getConfigurationErrorHere()
  }

  /** Checks the chargeback webhook's signature header (lifecycle/webhook-signature.ts) under the `webhookSecret` option. */
  verifyWebhookSignature(
    payload: string | Buffer,
    header: string | string[] | undefined,
    nowSeconds?: number
  ): SignatureCheck | { ok: false; reason: "not_configured" } {
    if (!this.options_.webhookSecret) {
      return { ok: false, reason: "not_configured" }
    }
    return verifyWebhookSignature({
      payload,
      header,
      secret: this.options_.webhookSecret,
      toleranceSeconds: this.options_.webhookToleranceSeconds,
      nowSeconds,
    })
  }

  /** Calls the service once without side effects; success lifts a refusal of this process's key (`liftAny`: of any key). */
  @InjectManager()
  @EmitEvents()
  async probe(options: { liftAny?: boolean } = {}, @MedusaContext() sharedContext: Context = {}): Promise<ServiceProbe> {
    return await this.disputesApiService_.probe(options, sharedContext)
  }

  /** Claims proof requests for this run (due ones, or the given ids), off every other instance's. */
  @InjectTransactionManager()
  async claimProofRequests(
    input: { now: Date; limit: number; leaseMs: number; ids?: string[] },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<ClaimedProofRequest[]> {
    return await this.proofRequestService_.claim(input, sharedContext)
  }

  /**
   * Sends proof requests to the service, once per claim (see `ProofRequestService.submit`).
   *
   * @param options.due the caller claimed the rows as due (the poll job): a
   *   lost answer whose wait is over is sent again
   * @param options.resubmit an admin's decision: also re-send lost answers
   *   before their wait is over, and failed proof requests
   */
  @InjectManager()
  @EmitEvents()
  async submitProofRequests(
    ids: string[],
    options: { now?: Date; resubmit?: boolean; due?: boolean } = {},
    @MedusaContext() sharedContext: Context = {}
  ): Promise<SubmissionResult[]> {
    return await this.proofRequestService_.submit(ids, options, sharedContext)
  }

  /** Checks pending proof requests at the service; reads only (`applyProofResults` writes). */
  @InjectManager()
  @EmitEvents()
  async fetchProofResults(rows: { id: string; remote_id: string | null }[], @MedusaContext() sharedContext: Context = {}): Promise<FetchOutcome[]> {
    return await this.proofRequestService_.fetchResults(rows, sharedContext)
  }

  /** Writes what `fetchProofResults` found; answers the completed proof requests and a snapshot to undo it. */
  @InjectTransactionManager()
  async applyProofResults(
    outcomes: FetchOutcome[],
    options: { now?: Date } = {},
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ completed: CompletedProofRequest[]; snapshot: ProofResultsSnapshot }> {
    return await this.proofRequestService_.applyResults(outcomes, options.now ?? new Date(), sharedContext)
  }

  /**
   * Compensation of `applyProofResults`: puts the rows back as they were read, unchecked. The claim's lease
   * keeps other poll runs off them; a restored row is simply polled again (polls are GETs).
   */
  @InjectTransactionManager()
  async restoreProofResults(snapshot: ProofResultsSnapshot, @MedusaContext() sharedContext: Context = {}): Promise<void> {
    await this.proofRequestService_.restoreResults(snapshot, sharedContext)
  }

  /** Brings chargebacks' statuses in line with their proof requests and answers what changed. */
  @InjectTransactionManager()
  async refreshChargebackStatuses(chargebackIds: string[], @MedusaContext() sharedContext: Context = {}): Promise<ChargebackStatusChange[]> {
    return await this.chargebackStatusService_.refresh(chargebackIds, sharedContext)
  }

  /** What each chargeback's evidence says, for an automatic answer. */
  @InjectManager()
  async summarizeEvidence(chargebackIds: string[], @MedusaContext() sharedContext: Context = {}): Promise<Map<string, EvidenceVerdicts>> {
    return await this.chargebackStatusService_.summarize(chargebackIds, sharedContext)
  }

  /** Compensation of `refreshChargebackStatuses`. */
  @InjectTransactionManager()
  async restoreChargebackStatuses(changes: ChargebackStatusChange[], @MedusaContext() sharedContext: Context = {}): Promise<void> {
    await this.chargebackStatusService_.restore(changes, sharedContext)
  }

  /** Creates a proof request (`to_submit`, due now) with one evidence row per scan, in one transaction. */
  @InjectTransactionManager()
  async createProofRequestWithScans(
    input: { chargeback_id: string; scan_ids: string[]; now?: Date },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ id: string; scan_ids: string[] }> {
    const [created] = await this.createProofRequestsWithScans([input], sharedContext)
    if (!created) {
      throw new MedusaError(MedusaError.Types.INVALID_DATA, "scan_ids: none is a well-formed UUIDv4 scan id")
    }
    return created
  }

  /** The same for many chargebacks at once (a page of imported cases); `null` for a list without a well-formed scan id. */
  @InjectTransactionManager()
  @EmitEvents()
  async createProofRequestsWithScans(
    inputs: { chargeback_id: string; scan_ids: string[]; now?: Date }[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<({ id: string; chargeback_id: string; scan_ids: string[] } | null)[]> {
    return await this.proofRequestService_.createWithScans(inputs, sharedContext)
  }

  /** Whether a chargeback must stay on record when the workflow that created it is rolled back (its proof may exist at ServiceScan). */
  async chargebackHasRemoteProof(chargebackId: string): Promise<boolean> {
    return await this.proofRequestService_.chargebackHasRemoteProof(chargebackId)
  }

  /** The evidence rows of a scan, as the admin image proxy needs them (none: not this store's scan). */
  @InjectManager()
  async listImageSources(scanId: string, @MedusaContext() sharedContext: Context = {}): Promise<ImageSource[]> {
    return await this.evidenceVaultService_.listImageSources(scanId, sharedContext)
  }

  /** Stores re-sealed files and keys on rows that still hold what the caller read (the re-seal); answers the ids swapped. */
  @InjectManager()
  async swapStoredEvidence(
    kind: "scan-image" | "evidence-pack",
    swaps: SealedFileSwap[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<string[]> {
    return await this.evidenceVaultService_.swapStoredEvidence(kind, swaps, sharedContext)
  }

  /** Opens a valid scan's image at the service, as a stream (the admin image proxy). */
  @InjectManager()
  @EmitEvents()
  async openServiceImage(scanId: string, @MedusaContext() sharedContext: Context = {}): Promise<DisputesImage> {
    return await this.evidenceVaultService_.openServiceImage(scanId, sharedContext)
  }

  /** Reads a scan's image fully from the service, up to `MAX_ARCHIVED_IMAGE_BYTES`: to archive it, or for a pack. */
  @InjectManager()
  @EmitEvents()
  async downloadServiceImage(scanId: string, @MedusaContext() sharedContext: Context = {}): Promise<Buffer> {
    return await this.evidenceVaultService_.downloadServiceImage(scanId, sharedContext)
  }

  /** A cart completion's claim on its hosted form id, before the card is authorized (see `CheckoutAttemptService.claim`). */
  @InjectManager()
  async claimCheckoutAttempt(
    input: CheckoutAttemptInput & { force?: boolean; now?: Date },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<CheckoutAttemptClaim> {
    return await this.checkoutAttemptService_.claim(input, sharedContext)
  }

  /** Attempts the reconciliation job has not settled, oldest first, last attempted before `before`. */
  async listUnreconciledCheckoutAttempts(before: Date, limit: number): Promise<CheckoutAttemptRow[]> {
    return await this.checkoutAttemptService_.listUnreconciled(before, limit)
  }

  /** Whether completions record checkout signals, and for how many days they are kept (docs/privacy.md). */
  getCheckoutSignalSettings(): { enabled: boolean; retentionDays: number } {
    return this.checkoutSignalService_.settings
  }

  /**
   * Records a completion's checkout signals, one row per payment session (a retry updates it); null,
   * recording nothing, when `checkoutSignals.enabled` is false (see `CheckoutSignalService.record`).
   */
  @InjectManager()
  async recordCheckoutSignal(
    input: CheckoutSignalInput,
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ id: string; inserted: boolean } | null> {
    return await this.checkoutSignalService_.record(input, sharedContext)
  }

  /** Fills in the payment of these sessions' checkout signals where it is empty; answers the signal ids filled. */
  @InjectManager()
  async linkCheckoutSignalPayments(payments: CheckoutSignalPayment[], @MedusaContext() sharedContext: Context = {}): Promise<string[]> {
    return await this.checkoutSignalService_.linkPayments(payments, sharedContext)
  }

  /** Empties the payment of these checkout signals again (the undo of `linkCheckoutSignalPayments`). */
  @InjectManager()
  async unlinkCheckoutSignalPayments(ids: string[], @MedusaContext() sharedContext: Context = {}): Promise<void> {
    await this.checkoutSignalService_.unlinkPayments(ids, sharedContext)
  }

  /** Hard-deletes one batch of up to `limit` checkout signals older than `checkoutSignals.retentionDays`; answers how many. */
  @InjectManager()
  async purgeExpiredCheckoutSignals(now: Date, limit: number, @MedusaContext() sharedContext: Context = {}): Promise<number> {
    return await this.checkoutSignalService_.purgeExpired(now, limit, sharedContext)
  }

  /** Binds a hosted-form id to the checkout it is being sent into, unless it belongs to one already, and answers that checkout. */
  @InjectManager()
  async bindFormToCheckout(formId: string, checkout: FormCheckout, @MedusaContext() sharedContext: Context = {}): Promise<FormCheckout> {
    return await this.formBindingService_.bind(formId, checkout, sharedContext)
  }

  /** The checkouts these form ids are bound to, by lower-cased form id; a form id never sent is absent. */
  @InjectManager()
  async readFormBindings(formIds: string[], @MedusaContext() sharedContext: Context = {}): Promise<Map<string, FormCheckout>> {
    return await this.formBindingService_.read(formIds, sharedContext)
  }

  /** The chargeback API a case was stored under (its `gateway` column), or null when no such gateway is configured. */
  getDisputeGateway(name: string): DisputeGateway | null {
    return this.disputeCaseService_.gateway(name)
  }

  /**
   * Stores a webhook's events, each once by (gateway, event key): a retry or
   * a replay of a stored event stores nothing. Answers the ids stored now.
   */
  @InjectTransactionManager()
  async storeProcessorEvents(gateway: string, events: PushedEvent[], @MedusaContext() sharedContext: Context = {}): Promise<string[]> {
    return await this.processorEventSql_.insertNew(gateway, events, sharedContext)
  }

  /** Deletes a gateway's stored events that nothing reads again, dated before `before` (see `purgeSettled`); answers how many. */
  @InjectTransactionManager()
  async purgeProcessorEvents(gateway: string, before: Date, @MedusaContext() sharedContext: Context = {}): Promise<number> {
    return await this.processorEventSql_.purgeSettled(gateway, before, sharedContext)
  }

  /** Every configured chargeback API (the `disputeGateway` option, one per processor); empty when it is not set. */
  getDisputeGateways(): readonly DisputeGateway[] {
    return this.disputeCaseService_.gateways
  }

  /** The case import's last fully imported activity day for a gateway, if any run finished. */
  async getCaseCursor(gateway: string): Promise<string | null> {
    return await this.disputeCaseService_.getCaseCursor(gateway)
  }

  /** Moves the case import's cursor for a gateway. */
  @InjectManager()
  @EmitEvents()
  async setCaseCursor(gateway: string, day: string, @MedusaContext() sharedContext: Context = {}): Promise<void> {
    await this.disputeCaseService_.setCaseCursor(gateway, day, sharedContext)
  }

  /**
   * Stores cases as the processor publishes them, by (gateway, case id); answers the rows after and before (to
   * undo). No `@EmitEvents`: a page's row writes are not announced; the import's own events say what it matched.
   */
  @InjectTransactionManager()
  async upsertDisputeCases(
    gateway: string,
    records: DisputeCaseRecord[],
    today: string,
    @MedusaContext() sharedContext: Context = {}
  ): Promise<DisputeCaseUpsert> {
    return await this.disputeCaseService_.upsertCases(gateway, records, today, sharedContext)
  }

  /** Writes the match of many cases (status, order, note, chargeback) in one statement. */
  @InjectTransactionManager()
  async writeDisputeCaseMatches(matches: DisputeCaseMatch[], @MedusaContext() sharedContext: Context = {}): Promise<void> {
    await this.disputeCaseService_.writeMatches(matches, sharedContext)
  }

  /** Marks up to `limit` cases whose reply-by day is from `today` to `until` as announced due soon, once per case; answers them. */
  @InjectTransactionManager()
  async claimDueSoonCases(
    input: { today: string; until: string; at: Date; limit: number },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<DueSoonCase[]> {
    return await this.disputeCaseService_.claimDueSoon(input, sharedContext)
  }

  /** Compensation of `claimDueSoonCases`. */
  @InjectTransactionManager()
  async releaseDueSoonCases(ids: string[], at: Date, @MedusaContext() sharedContext: Context = {}): Promise<void> {
    await this.disputeCaseService_.releaseDueSoon(ids, at, sharedContext)
  }

  /** The `alerts` option, resolved: where the case alerts go (docs/disputes.md: Alerts). Server side only: it lists email addresses. */
  getAlertSettings(): ResolvedServiceScanModuleOptions["alerts"] {
    return this.options_.alerts
  }

  /** Compensation of `upsertDisputeCases`. */
  @InjectTransactionManager()
  @EmitEvents()
  async undoDisputeCaseUpsert(input: { created: string[]; previous: DisputeCaseRow[] }, @MedusaContext() sharedContext: Context = {}): Promise<void> {
    await this.disputeCaseService_.undoUpsertCases(input, sharedContext)
  }

  /** The orders of this store's payments that the cases name: by transaction id first, then by order reference. */
  async findPaymentRefs(
    cases: { case_id: string; processor_transaction_id: string | null; processor_order_id: string | null }[]
  ): Promise<Map<string, PaymentRefMatch>> {
    return await this.paymentRefService_.findPaymentRefs(cases)
  }

  /** The newest scans of earlier payments with the same cards, before `before` and of other orders, oldest first. */
  async listScansOfCards(input: { fingerprints: string[]; before: Date; exclude_order_ids: string[] }): Promise<CardScan[]> {
    return await this.paymentRefService_.listScansOfCards(input)
  }

  /** The orders whose payments carried these scans (a scan's id is its payment's form id). */
  async listScanOrders(scanIds: string[]): Promise<{ scan_id: string; order_id: string }[]> {
    return await this.paymentRefService_.listScanOrders(scanIds)
  }

  /**
   * A disputed order's payment and the earlier payments on the same saved card, each with its checkout's
   * signals: what Visa Compelling Evidence 3.0 is decided on (src/lib/compelling-evidence.ts).
   */
  @InjectManager()
  async readCardHistory(
    input: { order_id: string; processor_transaction_id: string | null },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<CardHistory> {
    return await this.compellingEvidenceService_.readCardHistory(input, sharedContext)
  }

  /** Records how the processor names payments; answers the payment ids this call added (what a compensation removes). */
  @InjectTransactionManager()
  async recordPaymentRefs(refs: PaymentRefInput[], @MedusaContext() sharedContext: Context = {}): Promise<string[]> {
    return await this.paymentRefService_.record(refs, sharedContext)
  }

  /** Queue figures for the health endpoint: counts by status and the last status check. */
  @InjectManager()
  async getQueueStats(
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ counts: Record<ProofRequestStatus, number>; last_polled_at: Date | null }> {
    return await this.proofRequestService_.queueStats(sharedContext)
  }

  /**
   * The admin's dispute analytics: by month from `from` to `to` (`YYYY-MM`, UTC) in one currency
   * (default: the most used), chargebacks against this plugin's orders, outcomes and money, and the
   * card networks' monitoring lines (docs/disputes.md, "Analytics"). `now` sets "today" for due-soon.
   */
  @InjectManager()
  async getDisputeAnalytics(
    input: { from: string; to: string; currency?: string; now?: Date },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<DisputeAnalytics> {
    return await this.disputeAnalyticsService_.read(input, sharedContext)
  }

  /** The scan ids of a list that are well-formed for the service, lower-cased and without repeats. */
  normalizeScanIds(ids: readonly unknown[]): string[] {
    return this.proofRequestService_.normalizeScanIds(ids)
  }
}
