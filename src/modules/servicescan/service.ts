import { createHash } from "node:crypto"
import type { Context, Logger } from "@medusajs/framework/types"
import {
  InjectManager,
  InjectTransactionManager,
  generateEntityId,
  MedusaContext,
  MedusaError,
  MedusaService,
} from "@medusajs/framework/utils"
import type { SqlEntityManager } from "@medusajs/framework/mikro-orm/postgresql"
import { isUuidV4 } from "../../lib/uuid"
import { Keyring } from "../../lib/keyring"
import { EVIDENCE_KEK_PURPOSE, EvidenceVault } from "../../lib/sealed-evidence"
import {
  DisputesClient,
  DisputesImage,
  ScanResult,
  ServiceScanDisputesError,
  submissionOutcome,
} from "../../lib/servicescan/disputes-client"
import { BodyTooLargeError, HttpAuthError, HttpError } from "../../lib/http"
import { Chargeback, CheckoutAttempt, DisputeCase, FormBinding, PaymentRef, ProofRequest, ScanEvidence, ServiceState } from "./models"
import { DISPUTE_CASE_ID_PREFIX } from "./models/dispute-case"
import { PAYMENT_REF_ID_PREFIX } from "./models/payment-ref"
import { PROOF_REQUEST_ID_PREFIX } from "./models/proof-request"
import { SCAN_EVIDENCE_ID_PREFIX } from "./models/scan-evidence"
import { createDisputeGateway } from "./gateways"
import { DisputeCaseRecord, DisputeGateway } from "./gateways/types"
import { DisputeCaseState, reconcileWithProcessor } from "./lifecycle/dispute-case"
import { fromMinorUnits } from "../../utils/money"
import { resolveModuleOptions, ResolvedServiceScanModuleOptions, ServiceScanModuleOptions } from "./options"
import { ChargebackStatus, GroundTruthValue, ProofRequestStatus } from "./types"
import { deriveChargebackStatus } from "./utils/chargeback-status"
import { createLimiter, mapWithConcurrency } from "./utils/concurrency"
import { newEntityId } from "./utils/entity-id"
import {
  canSend,
  decide,
  OPEN_STATUSES,
  ProofRequestEvent,
  ProofRequestSettings,
} from "./lifecycle/proof-request"
import {
  claimProofRequests as claimRows,
  ClaimedRow,
  PROOF_REQUEST,
  lockProofRequests,
  ProofRequestRow,
  writeProofRequests,
} from "./sql/proof-requests"
import { sqlNames } from "./sql/names"
import { bindForm, FormCheckout, readFormBindings } from "./sql/form-bindings"
import { SignatureCheck, verifyWebhookSignature } from "./utils/webhook-signature"

type InjectedDependencies = {
  logger: Logger
}

/** Why the module stopped calling the service, until a probe (the poll job's, the health endpoint's or an admin's check) succeeds. */
export type ConfigurationError = {
  /** HTTP status the service answered (401/403), or null when a key is simply not configured. */
  status: number | null
  message: string
  at: Date
  /**
   * Whether it is this process's key that was refused. Processes normally share
   * one key; during a rotation that reached some processes and not others, a
   * process whose key works keeps calling, and its probe cannot vouch for the
   * other key (see `probe`).
   */
  this_process: boolean
}

/** A proof request as a claim returns it (see `claimProofRequests` in sql/proof-requests.ts). */
export type ClaimedProofRequest = ClaimedRow

export type SubmissionResult = {
  id: string
  chargeback_id: string
  status: ProofRequestStatus
  remote_id: string | null
  error: string | null
}

/** What one status check found, before anything is written. */
export type FetchOutcome =
  | { id: string; kind: "pending" }
  | { id: string; kind: "complete"; scans: ScanResult[] }
  /** The service refused for good (unknown or foreign proof request id). */
  | { id: string; kind: "failed"; error: string }
  /** Worth another try later (timeout, 5xx, malformed body). */
  | { id: string; kind: "error"; error: string }
  /** Not checked: the run stopped on an authentication error first. */
  | { id: string; kind: "skipped" }

type EvidenceUpdate = {
  id: string
  ground_truth?: GroundTruthValue | null
  reported_ground_truth?: string | null
  image_url?: string | null
}

type EvidenceSnapshot = {
  id: string
  ground_truth: GroundTruthValue | null
  reported_ground_truth: string | null
  image_url: string | null
}

/** Enough to undo `applyProofResults` (workflow compensation). */
export type ProofResultsSnapshot = {
  proof_requests: ProofRequestRow[]
  evidence: EvidenceSnapshot[]
}

export type CompletedProofRequest = {
  id: string
  chargeback_id: string
  remote_id: string
}

export type ChargebackStatusChange = {
  id: string
  order_id: string
  external_id: string
  from: ChargebackStatus
  to: ChargebackStatus
}

export type ServiceProbe =
  | { reachable: true; latency_ms: number }
  | { reachable: false; configuration_error: boolean; error: string }

/** Longest an image may be when it is copied into the File Module or read for a pack (a scan JPEG is tens of kB). */
export const MAX_ARCHIVED_IMAGE_BYTES = 10 * 1024 * 1024

/**
 * The most scans of earlier payments with a saved card that one chargeback
 * carries (the newest). They show the card in its holder's hands; the newest
 * few show it as well as thousands would, while each one costs a row, an entry
 * in the proof request, a verdict and an image in a pack the processor caps
 * at 2 MB. A card used on thousands of orders must not blow any of these up.
 */
export const MAX_SAVED_CARD_SCANS = 10

const C = sqlNames(Chargeback, ["id", "status", "order_id", "external_id", "deleted_at", "updated_at"])
const P = PROOF_REQUEST
const E = sqlNames(ScanEvidence, [
  "id",
  "scan_id",
  "proof_request_id",
  "ground_truth",
  "reported_ground_truth",
  "image_url",
  "archived_file_id",
  "archive_key",
  "deleted_at",
  "updated_at",
])

const R = sqlNames(PaymentRef, [
  "id",
  "payment_id",
  "order_id",
  "processor_transaction_id",
  "processor_order_id",
  "scan_id",
  "token_fingerprint",
  "deleted_at",
])

const D = sqlNames(DisputeCase, ["id", "status", "match_note", "order_id", "chargeback_id", "pack_file_id", "pack_key", "updated_at"])
const A = sqlNames(CheckoutAttempt, [
  "id",
  "payment_session_id",
  "cart_id",
  "form_id",
  "payment_method_id",
  "request_id",
  "attempted_at",
  "reconciled_at",
  "deleted_at",
  "updated_at",
])

export type CheckoutAttemptInput = {
  payment_session_id: string
  cart_id: string
  /** The hosted form id; null for a session paying with a saved card. */
  form_id: string | null
  /** The saved card the session pays with, when it does. */
  payment_method_id?: string | null
  /** The processor request id the authorization is sent under (derived from the session). */
  request_id: string
}

/** What `claimCheckoutAttempt` did. */
export type CheckoutAttemptClaim = {
  /** Sessions other than this one whose completion carried the same form id (nothing was recorded when there are some, unless forced). */
  other_sessions: string[]
  recorded: boolean
  /** This session's record before the claim, or null when it had none. */
  previous: { id: string; attempted_at: Date; reconciled_at: Date | null } | null
}

/** Our side of a case's match: the order it disputes and the chargeback that holds its evidence. */
export type DisputeCaseMatch = {
  id: string
  status: "matched" | "unmatched"
  order_id: string | null
  match_note: string | null
  chargeback_id: string | null
}

/** The ServiceState row of the disputes API. */
const DISPUTES_API_STATE = "disputes_api"


/**
 * The disputes module: chargebacks, their proof requests and scan evidence,
 * and the only code that talks to the ServiceScan disputes API.
 *
 * Calls that write to the service are made here, next to the rows that record
 * them, so the state machine of a proof request (see types.ts) lives in one
 * place: workflows decide when, this service decides how.
 */
export default class ServiceScanModuleService extends MedusaService({
  Chargeback,
  CheckoutAttempt,
  DisputeCase,
  FormBinding,
  PaymentRef,
  ProofRequest,
  ScanEvidence,
  ServiceState,
}) {
  protected readonly options_: ResolvedServiceScanModuleOptions
  protected readonly logger_: Logger
  protected readonly client_: DisputesClient | null
  /** `concurrency` across every page synced at once in this process (the poll job runs two). */
  private readonly serviceCalls_: <R>(fn: () => Promise<R>) => Promise<R>
  /**
   * `refused`: the service refused the key in this process, and no page that
   * began since found the refusal lifted. Set inside the refused call's turn
   * of `serviceCalls_`, so that the calls waiting for that turn, this page's
   * or the other page's, never go out (`inTurnUnlessRefused`).
   * `beingRecorded`: refusals being written (`noteAuthFailure`); until they
   * are, the record cannot lift `refused`.
   * An object made once, mutated in place: methods can run with `this` bound
   * to a read-through proxy (Medusa's module test runner does this), where
   * assigning a property of `this` would never reach the instance.
   */
  private readonly keyRefusal_ = { refused: false, beingRecorded: 0 }
  /** Set at boot when no secret key is configured; every process reads the same options. */
  private readonly missingKey_: ConfigurationError | null
  /** Which key a recorded refusal was about (a one-way digest, never the key). */
  private readonly keyFingerprint_: string | null
  /** The processor's chargeback API, when configured. */
  protected readonly disputeGateway_: DisputeGateway | null
  /** Seals and opens card evidence at rest under the `evidenceKey` option (src/lib/sealed-evidence.ts). */
  private readonly evidenceVault_: EvidenceVault

  constructor(dependencies: InjectedDependencies, options: ServiceScanModuleOptions) {
    // eslint-disable-next-line prefer-rest-params
    super(...arguments)
    this.options_ = resolveModuleOptions(options)
    this.logger_ = dependencies.logger
    this.serviceCalls_ = createLimiter(this.options_.concurrency)
    this.client_ = this.options_.secretKey
      ? new DisputesClient({
          baseUrl: this.options_.baseUrl,
          secretKey: this.options_.secretKey,
          timeoutMs: this.options_.timeoutMs,
          maxRetries: this.options_.maxRetries,
          onRetry: (event) =>
            this.logger_.debug(
              `servicescan: retrying ${event.request.method} ${event.request.url} in ${event.delayMs} ms (${event.reason})`
            ),
        })
      : null
    this.disputeGateway_ = createDisputeGateway(this.options_.disputeGateway, {
      timeoutMs: this.options_.timeoutMs,
      maxRetries: this.options_.maxRetries,
      maxDocumentBytes: this.options_.maxDocumentBytes,
      onRetry: (event) =>
        this.logger_.debug(
          `servicescan: retrying ${event.request.method} ${event.request.url} in ${event.delayMs} ms (${event.reason})`
        ),
    })
    this.missingKey_ = this.client_
      ? null
      : { status: null, message: "The servicescan module has no secretKey option", at: new Date(), this_process: true }
    this.keyFingerprint_ = this.options_.secretKey ? keyFingerprint(this.options_.secretKey) : null
    this.evidenceVault_ = new EvidenceVault(
      this.options_.evidenceKey ? Keyring.from(this.options_.evidenceKey, EVIDENCE_KEK_PURPOSE) : null
    )
  }

  /**
   * Seals card evidence for the File Module and opens it again: archived scan
   * images and evidence packs, each file under its own key, wrapped under the
   * `evidenceKey` option. Only the admin routes and the steps that archive,
   * pack and upload use it; an opened file never goes anywhere else.
   */
  getEvidenceVault(): EvidenceVault {
    return this.evidenceVault_
  }

  /** Settings safe to show an admin: which keys are set, never their values. */
  getSettings() {
    return {
      base_url: this.options_.baseUrl,
      keys: {
        secret_key: Boolean(this.options_.secretKey),
        webhook_secret: Boolean(this.options_.webhookSecret),
        evidence_key: this.evidenceVault_.configured,
      },
      poll_interval_ms: this.options_.pollIntervalMs,
      archive_images: this.options_.archiveImages,
      concurrency: this.options_.concurrency,
      page_size: this.options_.pageSize,
      checkout_reconcile_after_ms: this.options_.checkoutReconcileAfterMs,
      dispute_gateway: this.disputeGateway_ ? { name: this.disputeGateway_.name } : null,
      auto_respond: this.options_.autoRespond,
      max_document_bytes: this.options_.maxDocumentBytes,
      case_import_overlap_days: this.options_.caseImportOverlapDays,
      case_import_lookback_days: this.options_.caseImportLookbackDays,
    }
  }

  /**
   * Set after a 401/403 from the service (or without a secret key): calls stop
   * until a probe succeeds. Read from the database, so the server, its workers
   * and other instances agree on it.
   */
  async getConfigurationError(): Promise<ConfigurationError | null> {
    if (this.missingKey_) {
      return this.missingKey_
    }
    const [row] = await this.listServiceStates({ id: DISPUTES_API_STATE }, { take: 1 })
    if (!row?.configuration_error_message) {
      return null
    }
    return {
      status: row.configuration_error_status ?? null,
      message: row.configuration_error_message,
      at: new Date(row.configuration_error_at ?? row.updated_at),
      this_process: !row.configuration_error_key || row.configuration_error_key === this.keyFingerprint_,
    }
  }

  /** The configuration error when it stops this process's calls (its own key was refused), else null. */
  async getConfigurationErrorHere(): Promise<ConfigurationError | null> {
    const error = await this.getConfigurationError()
    return error?.this_process ? error : null
  }

  /** Records (or, with null, lifts) the configuration error for every process. */
  private async setConfigurationError(error: Omit<ConfigurationError, "this_process"> | null): Promise<void> {
    const data = {
      configuration_error_key: error ? this.keyFingerprint_ : null,
      configuration_error_message: error?.message ?? null,
      configuration_error_status: error?.status ?? null,
      configuration_error_at: error?.at ?? null,
    }
    const updated = await this.updateServiceStates({ selector: { id: DISPUTES_API_STATE }, data })
    if (updated.length > 0 || !error) {
      return
    }
    try {
      await this.createServiceStates({ id: DISPUTES_API_STATE, ...data })
    } catch {
      // Another process created the row meanwhile: write over it.
      await this.updateServiceStates({ selector: { id: DISPUTES_API_STATE }, data })
    }
  }

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

  /**
   * Calls the service once without side effects. Success clears a configuration
   * error recorded for this process's key, so fixing a key at the operator's end
   * resumes polling. `liftAny`: the poll job's own probe, whose success means
   * polling works, lifts an error recorded by a process with another key too
   * (e.g. one that has since restarted with the new key).
   */
  async probe(options: { liftAny?: boolean } = {}): Promise<ServiceProbe> {
    if (!this.client_) {
      return { reachable: false, configuration_error: true, error: this.missingKey_?.message ?? "" }
    }
    try {
      const { latencyMs } = await this.client_.probe()
      const recorded = await this.getConfigurationError()
      if (recorded && (recorded.this_process || options.liftAny)) {
        await this.setConfigurationError(null)
      }
      return { reachable: true, latency_ms: latencyMs }
    } catch (error) {
      await this.noteAuthFailure(error)
      return {
        reachable: false,
        configuration_error: error instanceof HttpAuthError,
        error: describeError(error),
      }
    }
  }

  /**
   * Claims proof requests for this run: due ones, or the given ids. See
   * `claimProofRequests` in sql/proof-requests.ts for how two instances stay
   * off each other's rows.
   */
  @InjectTransactionManager()
  async claimProofRequests(
    input: { now: Date; limit: number; leaseMs: number; ids?: string[] },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<ClaimedProofRequest[]> {
    if (input.ids && input.ids.length === 0) {
      return []
    }
    return await claimRows(sharedContext.transactionManager as SqlEntityManager, {
      now: input.now,
      leaseUntil: new Date(input.now.getTime() + input.leaseMs),
      limit: input.limit,
      ids: input.ids,
    })
  }

  /**
   * Sends proof requests to the service (`PUT /disputes/proofRequest`), once
   * per claim. Which rows may go, and what each answer makes of them, is
   * decided by lifecycle/proof-request.ts: a row is claimed (`submitting`, in
   * flight) in a transaction before its PUT, so whoever claims it is its only
   * sender, and the answer is written in a second transaction.
   *
   * @param options.due the caller claimed the rows as due (the poll job): a
   *   lost answer whose wait is over is sent again
   * @param options.resubmit an admin's decision: also re-send lost answers
   *   before their wait is over, and failed proof requests
   */
  async submitProofRequests(
    ids: string[],
    options: { now?: Date; resubmit?: boolean; due?: boolean } = {}
  ): Promise<SubmissionResult[]> {
    const now = options.now ?? new Date()
    if (!ids.length) {
      return []
    }
    const client = this.client_
    const configurationError = await this.getConfigurationErrorHere()
    this.liftStaleRefusal(configurationError)
    if (!client || configurationError) {
      // Nothing is claimed: the rows keep their state, and the job stops on a configuration error anyway.
      const reason = `Not sent: ${configurationError?.message ?? "not configured"}`
      const rows = await this.listProofRequests(
        { id: ids },
        { select: ["id", "chargeback_id", "status", "remote_id", "in_flight_until", "next_poll_at"] }
      )
      return rows
        .filter((row) => canSend(row, { now, resubmit: options.resubmit || options.due }))
        .map((row) => ({ id: row.id, chargeback_id: row.chargeback_id, status: row.status, remote_id: row.remote_id, error: reason }))
    }

    const claimed = await this.claimForSending(ids, now, options)
    if (!claimed.length) {
      return []
    }
    let stopped = false
    const sent = await mapWithConcurrency(
      claimed,
      this.options_.concurrency,
      async ({ after }): Promise<ProofRequestEvent | undefined> => {
        try {
          // Checked again once its turn comes: the run may have stopped while it waited (below: not sent).
          const created = await this.inTurnUnlessRefused(() => stopped, () => client.createProofRequest(after.scan_ids))
          if (!created) {
            return undefined
          }
          return { type: "accepted", submission: after.submissions, remote_id: created.id }
        } catch (error) {
          if (await this.noteAuthFailure(error)) {
            stopped = true
          }
          const message = describeError(error)
          switch (submissionOutcome(error)) {
            case "not_created":
              return { type: "not_created", submission: after.submissions, error: message }
            case "rejected":
              return { type: "rejected", submission: after.submissions, error: message }
            default:
              return { type: "unknown", submission: after.submissions, error: message }
          }
        }
      },
      () => stopped
    )
    const events = claimed.map(({ before, after }, index): { id: string; event: ProofRequestEvent } => ({
      id: after.id,
      // Never sent: the run stopped on an authentication error first.
      event: sent[index] ?? { type: "not_sent", submission: after.submissions, from: before },
    }))
    const written = await this.recordSubmissions(events, now)
    for (const row of written) {
      if (row.status === "submitting" && row.in_flight_until === null) {
        this.logger_.warn(`servicescan: proof request ${row.id}: ${row.last_error}`)
      }
    }
    return written.map((row) => ({
      id: row.id,
      chargeback_id: row.chargeback_id,
      status: row.status,
      remote_id: row.remote_id,
      error: row.status === "pending" ? null : row.last_error,
    }))
  }

  /**
   * Checks the status of pending proof requests at the service, with bounded
   * concurrency. Reads only; `applyProofResults` writes what was found.
   * Stops at the first authentication error: every other call would fail the
   * same way, and hammering a service with a bad key helps nobody.
   */
  async fetchProofResults(rows: { id: string; remote_id: string | null }[]): Promise<FetchOutcome[]> {
    const client = this.client_
    const configurationError = await this.getConfigurationErrorHere()
    this.liftStaleRefusal(configurationError)
    if (!client || configurationError) {
      return rows.map((row) => ({ id: row.id, kind: "skipped" as const }))
    }
    let stopped = false
    const outcomes = await mapWithConcurrency(
      rows,
      this.options_.concurrency,
      async (row): Promise<FetchOutcome> => {
        if (!row.remote_id) {
          return { id: row.id, kind: "failed", error: "The proof request has no ServiceScan id" }
        }
        try {
          // Checked again once its turn comes: the run may have stopped while it waited.
          const result = await this.inTurnUnlessRefused(() => stopped, () => client.getProofRequest(row.remote_id as string))
          if (!result) {
            return { id: row.id, kind: "skipped" }
          }
          return result.status === "pending"
            ? { id: row.id, kind: "pending" }
            : { id: row.id, kind: "complete", scans: result.scans }
        } catch (error) {
          if (await this.noteAuthFailure(error)) {
            stopped = true
            return { id: row.id, kind: "skipped" }
          }
          if (
            error instanceof ServiceScanDisputesError &&
            (error.reason === "proof_request_not_found" || error.reason === "proof_request_forbidden")
          ) {
            return { id: row.id, kind: "failed", error: describeError(error) }
          }
          if (!(error instanceof HttpError)) {
            throw error
          }
          return { id: row.id, kind: "error", error: describeError(error) }
        }
      },
      () => stopped
    )
    return outcomes.map((outcome, index) => outcome ?? { id: rows[index].id, kind: "skipped" })
  }

  /**
   * Writes what `fetchProofResults` found: ground truths on the evidence,
   * statuses and the next poll time on the proof requests (as
   * lifecycle/proof-request.ts decides). Answers the proof requests that
   * completed and a snapshot to undo it all.
   *
   * Set-based SQL (one read and one write per table for the whole page): this
   * is the poll job's hot path, and row-by-row ORM updates made a 10,000-request
   * run several times slower.
   */
  @InjectTransactionManager()
  async applyProofResults(
    outcomes: FetchOutcome[],
    options: { now?: Date } = {},
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ completed: CompletedProofRequest[]; snapshot: ProofResultsSnapshot }> {
    const now = options.now ?? new Date()
    if (!outcomes.length) {
      return { completed: [], snapshot: { proof_requests: [], evidence: [] } }
    }
    const manager = sharedContext.transactionManager as SqlEntityManager
    const current = await lockProofRequests(manager, outcomes.map((outcome) => outcome.id))
    const byId = new Map(current.map((row) => [row.id, row]))
    const completeIds = outcomes.filter((o) => o.kind === "complete" && byId.get(o.id)?.status === "pending").map((o) => o.id)
    const evidence: (EvidenceSnapshot & { scan_id: string; proof_request_id: string })[] = completeIds.length
      ? await manager.execute(
          `SELECT ${E.col.id}, ${E.col.scan_id}, ${E.col.proof_request_id}, ${E.col.ground_truth},
                  ${E.col.reported_ground_truth}, ${E.col.image_url}
             FROM ${E.table} WHERE ${E.col.proof_request_id} IN (?) AND ${E.col.deleted_at} IS NULL`,
          [completeIds]
        )
      : []
    const evidenceByProof = new Map<string, typeof evidence>()
    for (const row of evidence) {
      const list = evidenceByProof.get(row.proof_request_id) ?? []
      list.push(row)
      evidenceByProof.set(row.proof_request_id, list)
    }

    const next: ProofRequestRow[] = []
    const previous: ProofRequestRow[] = []
    const evidenceRows: EvidenceSnapshot[] = []
    const previousEvidence: EvidenceSnapshot[] = []
    const completed: CompletedProofRequest[] = []
    for (const outcome of outcomes) {
      const row = byId.get(outcome.id)
      // Only requests still pending are polled: an admin may have acted meanwhile (the lifecycle refuses the rest).
      const decision = row ? decide(row, pollEvent(outcome), now, this.lifecycleSettings()) : undefined
      if (!row || !decision?.ok) {
        continue
      }
      next.push({ ...row, ...decision.change })
      previous.push(row)
      if (outcome.kind === "complete") {
        const reported = new Map(outcome.scans.map((scan) => [scan.scanId, scan]))
        for (const item of evidenceByProof.get(row.id) ?? []) {
          const scan = reported.get(item.scan_id.toLowerCase())
          if (scan) {
            previousEvidence.push(pickEvidenceSnapshot(item))
            evidenceRows.push({
              id: item.id,
              ground_truth: scan.groundTruth,
              reported_ground_truth: scan.reportedGroundTruth,
              image_url: scan.image,
            })
          }
        }
        completed.push({ id: row.id, chargeback_id: row.chargeback_id, remote_id: row.remote_id ?? "" })
      }
    }
    await writeProofRequests(manager, next)
    await this.writeEvidenceRows(manager, evidenceRows)
    return { completed, snapshot: { proof_requests: previous, evidence: previousEvidence } }
  }

  /**
   * Compensation of `applyProofResults`: puts the rows back as they were read,
   * without checking for changes in between. The claim's lease keeps other
   * poll runs off these rows meanwhile; only an admin's "check now" of the
   * same proof request at that very moment could be overwritten, and the
   * restored row is simply polled again (nothing is sent twice: polls are GETs).
   */
  @InjectTransactionManager()
  async restoreProofResults(snapshot: ProofResultsSnapshot, @MedusaContext() sharedContext: Context = {}): Promise<void> {
    const manager = sharedContext.transactionManager as SqlEntityManager
    await writeProofRequests(manager, snapshot.proof_requests.map(reviveDates))
    await this.writeEvidenceRows(manager, snapshot.evidence)
  }

  /**
   * Brings chargebacks' statuses in line with their proof requests (see
   * `deriveChargebackStatus`) and answers what changed. One aggregate read
   * and one write for the whole list; the write only moves a chargeback whose
   * status is still the one read (an admin's outcome in between wins).
   */
  @InjectTransactionManager()
  async refreshChargebackStatuses(
    chargebackIds: string[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<ChargebackStatusChange[]> {
    const ids = [...new Set(chargebackIds)]
    if (!ids.length) {
      return []
    }
    const manager = sharedContext.transactionManager as SqlEntityManager
    const rows: {
      id: string
      status: ChargebackStatus
      order_id: string
      external_id: string
      has_valid_scan: boolean
      has_in_flight: boolean
    }[] = await manager.execute(
      `SELECT c.${C.col.id} AS "id", c.${C.col.status} AS "status", c.${C.col.order_id} AS "order_id",
              c.${C.col.external_id} AS "external_id",
              coalesce(bool_or(pr.${P.col.status} = 'complete' AND e.${E.col.ground_truth} = 'valid'), false) AS "has_valid_scan",
              coalesce(bool_or(pr.${P.col.status} IN (?)), false) AS "has_in_flight"
         FROM ${C.table} c
         LEFT JOIN ${P.table} pr ON pr.${P.col.chargeback_id} = c.${C.col.id} AND pr.${P.col.deleted_at} IS NULL
         LEFT JOIN ${E.table} e ON e.${E.col.proof_request_id} = pr.${P.col.id} AND e.${E.col.deleted_at} IS NULL
        WHERE c.${C.col.id} IN (?) AND c.${C.col.deleted_at} IS NULL
        GROUP BY c.${C.col.id}`,
      [OPEN_STATUSES, ids]
    )
    const changes: ChargebackStatusChange[] = []
    for (const row of rows) {
      const to = deriveChargebackStatus(row.status, { hasValidScan: row.has_valid_scan, hasInFlight: row.has_in_flight })
      if (to !== row.status) {
        changes.push({ id: row.id, order_id: row.order_id, external_id: row.external_id, from: row.status, to })
      }
    }
    return this.writeChargebackStatuses(manager, changes)
  }

  /**
   * What each chargeback's evidence says, for an automatic answer: some scan
   * judged valid; some proof request still open; every judged scan invalid
   * (and at least one judged).
   */
  @InjectManager()
  async summarizeEvidence(
    chargebackIds: string[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<Map<string, { hasValidScan: boolean; hasInFlight: boolean; allInvalid: boolean }>> {
    const ids = [...new Set(chargebackIds)]
    if (!ids.length) {
      return new Map()
    }
    const manager = sharedContext.manager as SqlEntityManager
    const rows: { id: string; has_valid_scan: boolean; has_in_flight: boolean; judged: string; invalid: string }[] =
      await manager.execute(
        `SELECT pr.${P.col.chargeback_id} AS "id",
                coalesce(bool_or(pr.${P.col.status} = 'complete' AND e.${E.col.ground_truth} = 'valid'), false) AS "has_valid_scan",
                coalesce(bool_or(pr.${P.col.status} IN (?)), false) AS "has_in_flight",
                count(e.${E.col.ground_truth}) AS "judged",
                count(*) FILTER (WHERE e.${E.col.ground_truth} = 'invalid') AS "invalid"
           FROM ${P.table} pr
           LEFT JOIN ${E.table} e ON e.${E.col.proof_request_id} = pr.${P.col.id} AND e.${E.col.deleted_at} IS NULL
          WHERE pr.${P.col.chargeback_id} IN (?) AND pr.${P.col.deleted_at} IS NULL
          GROUP BY pr.${P.col.chargeback_id}`,
        [OPEN_STATUSES, ids]
      )
    return new Map(
      rows.map((row) => [
        row.id,
        {
          hasValidScan: row.has_valid_scan,
          hasInFlight: row.has_in_flight,
          allInvalid: Number(row.judged) > 0 && Number(row.judged) === Number(row.invalid),
        },
      ])
    )
  }

  /** Compensation of `refreshChargebackStatuses`. */
  @InjectTransactionManager()
  async restoreChargebackStatuses(
    changes: ChargebackStatusChange[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<void> {
    const manager = sharedContext.transactionManager as SqlEntityManager
    await this.writeChargebackStatuses(
      manager,
      changes.map((change) => ({ ...change, from: change.to, to: change.from }))
    )
  }

  /**
   * Creates a proof request (`to_submit`, due now) with one evidence row per
   * scan, in one transaction: evidence rows are what makes a scan id "this
   * store's" for the image proxy.
   */
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

  /**
   * The same for many chargebacks at once (a page of imported cases), in one
   * transaction and two inserts. Lists without a well-formed scan id get no
   * proof request; the answer keeps the order of the input, `null` for those.
   */
  @InjectTransactionManager()
  async createProofRequestsWithScans(
    inputs: { chargeback_id: string; scan_ids: string[]; now?: Date }[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<({ id: string; chargeback_id: string; scan_ids: string[] } | null)[]> {
    const normalized = inputs.map((input) => ({ ...input, scan_ids: this.normalizeScanIds(input.scan_ids) }))
    const wanted = normalized.filter((input) => input.scan_ids.length > 0)
    if (!wanted.length) {
      return inputs.map(() => null)
    }
    const proofRequests = await this.createProofRequests(
      wanted.map((input) => ({
        id: newEntityId(PROOF_REQUEST_ID_PREFIX),
        chargeback_id: input.chargeback_id,
        scan_ids: input.scan_ids,
        status: "to_submit" as const,
        next_poll_at: input.now ?? new Date(),
      })),
      sharedContext
    )
    await this.createScanEvidences(
      proofRequests.flatMap((proofRequest) =>
        proofRequest.scan_ids.map((scan_id: string) => ({
          id: newEntityId(SCAN_EVIDENCE_ID_PREFIX),
          scan_id,
          proof_request_id: proofRequest.id,
        }))
      ),
      sharedContext
    )
    const byChargeback = new Map(proofRequests.map((pr) => [pr.chargeback_id as string, pr]))
    return normalized.map((input) => {
      const pr = input.scan_ids.length ? byChargeback.get(input.chargeback_id) : undefined
      return pr ? { id: pr.id, chargeback_id: input.chargeback_id, scan_ids: input.scan_ids } : null
    })
  }

  /**
   * Whether a chargeback must stay on record when the workflow that created it
   * is rolled back: one of its proof requests may exist at ServiceScan (it has
   * a remote id, or its PUT may have gone out). Deleting it would forget that
   * proof request, and the next delivery of the dispute would send another.
   */
  async chargebackHasRemoteProof(chargebackId: string): Promise<boolean> {
    const rows = await this.listProofRequests(
      { chargeback_id: chargebackId, $or: [{ remote_id: { $ne: null } }, { status: "submitting" }] },
      { select: ["id"], take: 1 }
    )
    return rows.length > 0
  }

  /**
   * The evidence rows of a scan, as the admin image proxy needs them (none: not this store's
   * scan). One indexed read in SQL: an evidence page asks for its thumbnails all at once, and
   * their setups run one after the other on the server's thread, so the ORM's list (about 3 ms
   * of CPU a call, measured with `BENCH_PROFILE` on `bench:image-proxy`) held back the first
   * byte of the last image by the others' lists.
   */
  @InjectManager()
  async listImageSources(
    scanId: string,
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ id: string; ground_truth: GroundTruthValue | null; archived_file_id: string | null; archive_key: string | null }[]> {
    const manager = sharedContext.manager as SqlEntityManager
    return await manager.execute(
      `SELECT ${E.col.id}, ${E.col.ground_truth}, ${E.col.archived_file_id}, ${E.col.archive_key}
         FROM ${E.table} WHERE ${E.col.scan_id} = ? AND ${E.col.deleted_at} IS NULL
        LIMIT 20`,
      [scanId.toLowerCase()]
    )
  }

  /**
   * Where a sealed file and its key are stored, swapped only on rows that
   * still hold what the caller read (compare-and-set, one statement): an image
   * archived or a pack made again meanwhile keeps the newer one. For the
   * re-seal (src/workflows/utils/reseal-at-rest.ts): a key wrapped again (same
   * file), or a pack stored in clear replaced by its sealed copy. Answers the
   * ids swapped.
   */
  @InjectManager()
  async swapStoredEvidence(
    kind: "scan-image" | "evidence-pack",
    swaps: { id: string; expected: { file_id: string; key: string | null }; next: { file_id: string; key: string } }[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<string[]> {
    if (!swaps.length) {
      return []
    }
    const manager = sharedContext.manager as SqlEntityManager
    const [table, fileCol, keyCol, idCol, updatedCol] =
      kind === "scan-image"
        ? [E.table, E.col.archived_file_id, E.col.archive_key, E.col.id, E.col.updated_at]
        : [D.table, D.col.pack_file_id, D.col.pack_key, D.col.id, D.col.updated_at]
    const values = swaps.map(() => "(?::text, ?::text, ?::text, ?::text, ?::text)").join(", ")
    const rows: { id: string }[] = await manager.execute(
      `UPDATE ${table} AS t
          SET ${fileCol} = v.next_file, ${keyCol} = v.next_key, ${updatedCol} = now()
         FROM (VALUES ${values}) AS v(id, expected_file, expected_key, next_file, next_key)
        WHERE t.${idCol} = v.id AND t.${fileCol} = v.expected_file AND t.${keyCol} IS NOT DISTINCT FROM v.expected_key
        RETURNING t.${idCol} AS id`,
      swaps.flatMap((swap) => [swap.id, swap.expected.file_id, swap.expected.key, swap.next.file_id, swap.next.key])
    )
    return rows.map((row) => row.id)
  }

  /** Opens a valid scan's image at the service, as a stream (the admin image proxy). */
  async openServiceImage(scanId: string): Promise<DisputesImage> {
    try {
      return await this.requireClient().getImage(scanId)
    } catch (error) {
      await this.noteAuthFailure(error)
      throw error
    }
  }

  /**
   * Reads a scan's image fully from the service, up to `MAX_ARCHIVED_IMAGE_BYTES`: to archive it
   * (the File Module takes base64 content), or for a pack when it has no archive (workflows/utils/scan-image).
   */
  async downloadServiceImage(scanId: string): Promise<Buffer> {
    const image = await this.openServiceImage(scanId)
    try {
      return await image.body.readAll(MAX_ARCHIVED_IMAGE_BYTES)
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        throw new MedusaError(MedusaError.Types.INVALID_DATA, `The image of scan ${scanId} is larger than 10 MB`)
      }
      throw error
    } finally {
      // Leaving early (too large, an error) must not leave the connection half-read.
      image.body.destroy()
    }
  }

  /**
   * A cart completion's claim on its hosted form id, before the card is
   * authorized, in one statement: when no other session's completion carried
   * the form id (or `force`, once the caller found that none of them paid),
   * records this session's attempt: a first record, or this session's again
   * (`attempted_at` moves and it reopens for reconciliation). Otherwise it
   * records nothing and answers those sessions. A session paying with a saved
   * card has no form id and is always recorded. Answers the session's record
   * as it was before, so that the claim can be undone.
   */
  @InjectManager()
  async claimCheckoutAttempt(
    input: CheckoutAttemptInput & { force?: boolean; now?: Date },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<CheckoutAttemptClaim> {
    const manager = sharedContext.manager as SqlEntityManager
    const formId = input.form_id?.toLowerCase() ?? null
    const now = input.now ?? new Date()
    // The reads see the table as it was when the statement began: `previous` is the record before
    // the write. Two claims of one form id (or of one saved card's session) never run at once: the
    // completion middleware holds a lock on it. One statement is atomic by itself, so this takes
    // no transaction of its own (nor joins a caller's: its one caller passes none).
    const [row]: { others: string[]; previous: { id: string; attempted_at: string; reconciled_at: string | null } | null; recorded: boolean }[] =
      await manager.execute(
        `WITH others AS (
           SELECT ${A.col.payment_session_id} AS "id" FROM ${A.table}
            WHERE ${A.col.form_id} = ?::text AND ${A.col.payment_session_id} <> ? AND ${A.col.deleted_at} IS NULL
         ), previous AS (
           SELECT ${A.col.id} AS "id", ${A.col.attempted_at} AS "attempted_at", ${A.col.reconciled_at} AS "reconciled_at"
             FROM ${A.table} WHERE ${A.col.payment_session_id} = ? AND ${A.col.deleted_at} IS NULL
         ), written AS (
           INSERT INTO ${A.table} (${A.col.id}, ${A.col.payment_session_id}, ${A.col.cart_id}, ${A.col.form_id},
                                   ${A.col.payment_method_id}, ${A.col.request_id}, ${A.col.attempted_at}, ${A.col.reconciled_at})
           SELECT ?, ?, ?, ?::text, ?, ?, ?, NULL WHERE ?::boolean OR NOT EXISTS (SELECT 1 FROM others)
           ON CONFLICT (${A.col.payment_session_id}) WHERE ${A.col.deleted_at} IS NULL
           DO UPDATE SET ${A.col.cart_id} = EXCLUDED.${A.col.cart_id}, ${A.col.form_id} = EXCLUDED.${A.col.form_id},
                         ${A.col.payment_method_id} = EXCLUDED.${A.col.payment_method_id},
                         ${A.col.request_id} = EXCLUDED.${A.col.request_id},
                         ${A.col.attempted_at} = EXCLUDED.${A.col.attempted_at}, ${A.col.reconciled_at} = NULL,
                         ${A.col.updated_at} = now()
           RETURNING 1
         )
         SELECT coalesce((SELECT json_agg("id") FROM others), '[]'::json) AS "others",
                (SELECT row_to_json(previous) FROM previous) AS "previous",
                EXISTS (SELECT 1 FROM written) AS "recorded"`,
      [
        formId,
        input.payment_session_id,
        input.payment_session_id,
        generateEntityId(undefined, "scatt"),
        input.payment_session_id,
        input.cart_id,
        formId,
        input.payment_method_id ?? null,
        input.request_id,
        now,
        input.force === true,
      ]
    )
    return {
      other_sessions: row.others,
      recorded: row.recorded,
      previous: row.previous
        ? {
            id: row.previous.id,
            attempted_at: new Date(row.previous.attempted_at),
            reconciled_at: row.previous.reconciled_at ? new Date(row.previous.reconciled_at) : null,
          }
        : null,
    }
  }

  /** Attempts the reconciliation job has not settled, oldest first, last attempted before `before`. */
  async listUnreconciledCheckoutAttempts(before: Date, limit: number) {
    return this.listCheckoutAttempts(
      { reconciled_at: null, attempted_at: { $lt: before } },
      { take: limit, order: { attempted_at: "ASC" } }
    )
  }

  /**
   * Binds a hosted-form id to the checkout it is being sent into, unless it
   * belongs to one already, and answers the checkout it belongs to (see the
   * FormBinding model): the caller refuses the form when that is another
   * collection or another customer. Keeps only a hash of the form id.
   */
  @InjectManager()
  async bindFormToCheckout(
    formId: string,
    checkout: FormCheckout,
    @MedusaContext() sharedContext: Context = {}
  ): Promise<FormCheckout> {
    return await bindForm(sharedContext.manager as SqlEntityManager, formId, checkout)
  }

  /** The checkouts these form ids are bound to, by lower-cased form id; a form id never sent is absent. */
  @InjectManager()
  async readFormBindings(
    formIds: string[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<Map<string, FormCheckout>> {
    return await readFormBindings(sharedContext.manager as SqlEntityManager, formIds)
  }

  /** The processor's chargeback API, or null when the `disputeGateway` option is not set. */
  getDisputeGateway(): DisputeGateway | null {
    return this.disputeGateway_
  }

  /** The case import's last fully imported activity day for a gateway, if any run finished. */
  async getCaseCursor(gateway: string): Promise<string | null> {
    const [row] = await this.listServiceStates({ id: caseCursorId(gateway) }, { take: 1 })
    return row?.cursor ?? null
  }

  async setCaseCursor(gateway: string, day: string): Promise<void> {
    const id = caseCursorId(gateway)
    if ((await this.updateServiceStates({ selector: { id }, data: { cursor: day } })).length === 0) {
      await this.createServiceStates({ id, cursor: day }).catch(() =>
        this.updateServiceStates({ selector: { id }, data: { cursor: day } })
      )
    }
  }

  /**
   * Stores cases as the processor publishes them, by (gateway, case id): new
   * ones are created `unmatched`, known ones updated with what changed (queue,
   * reply-by, amount, activities), and our answer and the network's decision
   * reconciled with the processor's record (lifecycle/dispute-case.ts).
   * Answers the rows after the write and the rows before it (to undo).
   */
  @InjectTransactionManager()
  async upsertDisputeCases(
    gateway: string,
    records: DisputeCaseRecord[],
    today: string,
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ rows: DisputeCaseRow[]; created: string[]; previous: DisputeCaseRow[] }> {
    // The newest read of a case wins when one page lists it twice (a day's list and the actionable list).
    const byCaseId = new Map(records.map((record) => [record.caseId, record]))
    if (!byCaseId.size) {
      return { rows: [], created: [], previous: [] }
    }
    const existing = (await this.listDisputeCases(
      { gateway, case_id: [...byCaseId.keys()] },
      { take: null },
      sharedContext
    )) as DisputeCaseRow[]
    const known = new Map(existing.map((row) => [row.case_id, row]))
    const toCreate: Record<string, unknown>[] = []
    const toUpdate: Record<string, unknown>[] = []
    const previous: DisputeCaseRow[] = []
    for (const record of byCaseId.values()) {
      const fields = caseFields(record)
      const row = known.get(record.caseId)
      if (!row) {
        toCreate.push({
          id: newEntityId(DISPUTE_CASE_ID_PREFIX),
          gateway,
          case_id: record.caseId,
          ...fields,
          ...reconcileWithProcessor(NEW_CASE_STATE, record, today),
        })
        continue
      }
      const next = { ...fields, ...reconcileWithProcessor(row, record, today) }
      if (Object.entries(next).some(([key, value]) => !sameValue(row[key as keyof DisputeCaseRow], value))) {
        previous.push(row)
        toUpdate.push({ id: row.id, ...next })
      }
    }
    const created = toCreate.length ? await this.createDisputeCases(toCreate as never[], sharedContext) : []
    if (toUpdate.length) {
      await this.updateDisputeCases(toUpdate as never[], sharedContext)
    }
    const rows = (await this.listDisputeCases(
      { gateway, case_id: [...byCaseId.keys()] },
      { take: null },
      sharedContext
    )) as DisputeCaseRow[]
    return { rows, created: created.map((row: { id: string }) => row.id), previous }
  }

  /**
   * Writes the match of many cases (status, order, note, chargeback) in one
   * statement: the case import writes a page of them at once, and the ORM's
   * update, which loads and flushes each row, took a third of a 10,000-case
   * import. Every field is written as given (the caller passes whole values).
   */
  @InjectTransactionManager()
  async writeDisputeCaseMatches(matches: DisputeCaseMatch[], @MedusaContext() sharedContext: Context = {}): Promise<void> {
    if (!matches.length) {
      return
    }
    const manager = sharedContext.transactionManager as SqlEntityManager
    await manager.execute(
      `UPDATE ${D.table} AS d
          SET ${D.col.status} = v."status", ${D.col.match_note} = v."match_note", ${D.col.order_id} = v."order_id",
              ${D.col.chargeback_id} = v."chargeback_id", ${D.col.updated_at} = now()
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "status" text, "match_note" text, "order_id" text, "chargeback_id" text)
        WHERE d.${D.col.id} = v."id"`,
      [JSON.stringify(matches)]
    )
  }

  /** Compensation of `upsertDisputeCases`. */
  @InjectTransactionManager()
  async undoDisputeCaseUpsert(
    input: { created: string[]; previous: DisputeCaseRow[] },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<void> {
    if (input.created.length) {
      await this.deleteDisputeCases(input.created, sharedContext)
    }
    if (input.previous.length) {
      await this.updateDisputeCases(input.previous.map(restorableCase) as never[], sharedContext)
    }
  }

  /**
   * The orders of this store's payments that the cases name: by the disputed
   * transaction's processor id first, then by the order reference it carried.
   */
  async findPaymentRefs(
    cases: { case_id: string; processor_transaction_id: string | null; processor_order_id: string | null }[]
  ): Promise<Map<string, { order_id: string; payment_id: string; scan_id: string | null }>> {
    const txnIds = [...new Set(cases.map((c) => c.processor_transaction_id).filter((id): id is string => !!id))]
    const byTxn = txnIds.length ? await this.listPaymentRefs({ processor_transaction_id: txnIds }, { take: null }) : []
    const txn = new Map(byTxn.map((ref) => [ref.processor_transaction_id, ref]))
    // The order reference only for the cases their transaction id did not find: usually none.
    const orderRefs = [
      ...new Set(
        cases
          .filter((c) => !(c.processor_transaction_id && txn.has(c.processor_transaction_id)))
          .map((c) => c.processor_order_id)
          .filter((id): id is string => !!id)
      ),
    ]
    const byOrderRef = orderRefs.length ? await this.listPaymentRefs({ processor_order_id: orderRefs }, { take: null }) : []
    const order = new Map(byOrderRef.map((ref) => [ref.processor_order_id ?? "", ref]))
    const matches = new Map<string, { order_id: string; payment_id: string; scan_id: string | null }>()
    for (const c of cases) {
      const ref =
        (c.processor_transaction_id ? txn.get(c.processor_transaction_id) : undefined) ??
        (c.processor_order_id ? order.get(c.processor_order_id) : undefined)
      if (ref) {
        matches.set(c.case_id, { order_id: ref.order_id, payment_id: ref.payment_id, scan_id: ref.scan_id ?? null })
      }
    }
    return matches
  }

  /**
   * The scans of payments made with the same card (the same token
   * fingerprint) as a payment with a saved card: evidence that the card's
   * holder had the card in hand. Only payments recorded before `before` (the
   * disputed payment's authorization) and of other orders than `exclude_order_ids`;
   * the newest `MAX_SAVED_CARD_SCANS` of them, oldest first.
   */
  async listScansOfCards(input: {
    fingerprints: string[]
    before: Date
    exclude_order_ids: string[]
  }): Promise<{ scan_id: string; order_id: string; token_fingerprint: string }[]> {
    const fingerprints = [...new Set(input.fingerprints.filter(Boolean))]
    if (!fingerprints.length) {
      return []
    }
    const excluded = [...new Set(input.exclude_order_ids)]
    // Excluded in the query, not after it: the cap must count only scans that are kept.
    const rows = await this.listPaymentRefs(
      {
        token_fingerprint: fingerprints,
        scan_id: { $ne: null },
        created_at: { $lt: input.before },
        ...(excluded.length ? { order_id: { $nin: excluded } } : {}),
      },
      { select: ["scan_id", "order_id", "token_fingerprint"], take: MAX_SAVED_CARD_SCANS, order: { created_at: "DESC", id: "DESC" } }
    )
    return rows
      .filter((row) => row.scan_id && row.token_fingerprint)
      .reverse()
      .map((row) => ({ scan_id: row.scan_id as string, order_id: row.order_id, token_fingerprint: row.token_fingerprint as string }))
  }

  /** The orders whose payments carried these scans (a scan's id is its payment's form id). */
  async listScanOrders(scanIds: string[]): Promise<{ scan_id: string; order_id: string }[]> {
    const ids = [...new Set(scanIds.map((id) => id.toLowerCase()))]
    if (!ids.length) {
      return []
    }
    const rows = await this.listPaymentRefs({ scan_id: ids }, { select: ["scan_id", "order_id"], take: null })
    return rows.filter((row) => row.scan_id).map((row) => ({ scan_id: row.scan_id as string, order_id: row.order_id }))
  }

  /**
   * Records how the processor names payments (see PaymentRef); a payment
   * already recorded is left as it is. Answers the payment ids this call
   * added, which is what a compensation removes. One statement: it runs for
   * every order placed, where reading the known ones first, then creating
   * the rest through the ORM, took three round trips and two entity passes.
   * (So no `payment_ref` created events are emitted; nothing listens for them.)
   */
  @InjectTransactionManager()
  async recordPaymentRefs(
    refs: {
      payment_id: string
      order_id: string
      processor_transaction_id: string
      processor_order_id: string | null
      scan_id: string | null
      token_fingerprint?: string | null
    }[],
    @MedusaContext() sharedContext: Context = {}
  ): Promise<string[]> {
    if (!refs.length) {
      return []
    }
    const manager = sharedContext.transactionManager as SqlEntityManager
    const rows: { payment_id: string }[] = await manager.execute(
      `INSERT INTO ${R.table} (${R.col.id}, ${R.col.payment_id}, ${R.col.order_id}, ${R.col.processor_transaction_id},
                               ${R.col.processor_order_id}, ${R.col.scan_id}, ${R.col.token_fingerprint})
       SELECT v."id", v."payment_id", v."order_id", v."processor_transaction_id", v."processor_order_id", v."scan_id", v."token_fingerprint"
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "payment_id" text, "order_id" text, "processor_transaction_id" text,
                                               "processor_order_id" text, "scan_id" text, "token_fingerprint" text)
       ON CONFLICT (${R.col.payment_id}) WHERE ${R.col.deleted_at} IS NULL DO NOTHING
       RETURNING ${R.col.payment_id} AS "payment_id"`,
      [
        JSON.stringify(
          refs.map((ref) => ({
            id: newEntityId(PAYMENT_REF_ID_PREFIX),
            payment_id: ref.payment_id,
            order_id: ref.order_id,
            processor_transaction_id: ref.processor_transaction_id,
            processor_order_id: ref.processor_order_id,
            scan_id: ref.scan_id,
            token_fingerprint: ref.token_fingerprint ?? null,
          }))
        ),
      ]
    )
    return rows.map((row) => row.payment_id)
  }

  /** Queue figures for the health endpoint: counts by status and the last status check. */
  @InjectManager()
  async getQueueStats(@MedusaContext() sharedContext: Context = {}): Promise<{
    counts: Record<ProofRequestStatus, number>
    last_polled_at: Date | null
  }> {
    const manager = sharedContext.manager as SqlEntityManager
    const rows: { status: ProofRequestStatus; count: string; last_polled_at: Date | null }[] = await manager.execute(
      `SELECT ${P.col.status} AS "status", count(*) AS "count", max(${P.col.last_polled_at}) AS "last_polled_at"
         FROM ${P.table} WHERE ${P.col.deleted_at} IS NULL GROUP BY ${P.col.status}`
    )
    const counts: Record<ProofRequestStatus, number> = {
      to_submit: 0,
      submitting: 0,
      pending: 0,
      complete: 0,
      failed: 0,
    }
    let last: Date | null = null
    for (const row of rows) {
      counts[row.status] = Number(row.count)
      const at = row.last_polled_at ? new Date(row.last_polled_at) : null
      if (at && (!last || at > last)) {
        last = at
      }
    }
    return { counts, last_polled_at: last }
  }

  /** The scan ids of a list that are well-formed for the service, lower-cased and without repeats. */
  normalizeScanIds(ids: readonly unknown[]): string[] {
    return [...new Set(ids.filter(isUuidV4).map((id) => id.toLowerCase()))]
  }

  private requireClient(): DisputesClient {
    if (!this.client_) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "The servicescan module has no secretKey option")
    }
    return this.client_
  }

  /** Records an authentication failure as the configuration error of every process; answers whether it was one. */
  private async noteAuthFailure(error: unknown): Promise<boolean> {
    if (!(error instanceof HttpAuthError)) {
      return false
    }
    this.keyRefusal_.refused = true
    this.keyRefusal_.beingRecorded++
    try {
      if (!(await this.getConfigurationErrorHere())) {
        this.logger_.error(
          `servicescan: the service refused the secret key (${error.status} ${error.serviceMessage ?? ""}); polling stops until a probe succeeds (each poll run makes one)`
        )
      }
      await this.setConfigurationError({
        status: error.status,
        message: `ServiceScan refused the secret key: ${error.status} ${error.serviceMessage ?? ""}`.trim(),
        at: new Date(),
      })
    } finally {
      this.keyRefusal_.beingRecorded--
    }
    return true
  }

  /**
   * One call in its turn of the shared limit, unless the key was refused
   * meanwhile (then null). A refusal is noted inside the turn, before the
   * limiter hands it on: a waiting call from another page would otherwise go
   * out after the first 403, since each page stops only on its own answers.
   */
  private inTurnUnlessRefused<R>(stopped: () => boolean, call: () => Promise<R>): Promise<R | null> {
    return this.serviceCalls_(async () => {
      if (stopped() || this.keyRefusal_.refused) {
        return null
      }
      try {
        return await call()
      } catch (error) {
        if (error instanceof HttpAuthError) {
          this.keyRefusal_.refused = true
        }
        throw error
      }
    })
  }

  /**
   * A page that finds no refusal on record (none, or lifted by a probe in any
   * process) forgets this process's, unless one is still being written.
   */
  private liftStaleRefusal(configurationError: ConfigurationError | null): void {
    if (!configurationError && !this.keyRefusal_.beingRecorded) {
      this.keyRefusal_.refused = false
    }
  }

  /** The lifecycle's settings from the module options. */
  private lifecycleSettings(): ProofRequestSettings {
    const waves = Math.ceil(this.options_.pageSize / this.options_.concurrency)
    return {
      pollIntervalMs: this.options_.pollIntervalMs,
      retryBaseDelayMs: this.options_.retryBaseDelayMs,
      resubmitAfterMs: this.options_.resubmitUnconfirmedAfterMs,
      // The longest a live sender keeps a PUT on the wire: a page's PUTs go out
      // `concurrency` at a time, one attempt each (PUTs are never retried), and
      // results are written when the page is done.
      inFlightMs: waves * this.options_.timeoutMs + 60_000,
    }
  }

  /** Claims rows for a PUT (the lifecycle's `send`), skipping rows another sender holds. */
  @InjectTransactionManager()
  protected async claimForSending(
    ids: string[],
    now: Date,
    options: { resubmit?: boolean; due?: boolean },
    @MedusaContext() sharedContext: Context = {}
  ): Promise<{ before: ProofRequestRow; after: ProofRequestRow }[]> {
    const manager = sharedContext.transactionManager as SqlEntityManager
    const rows = await lockProofRequests(manager, ids, { skipLocked: true })
    const settings = this.lifecycleSettings()
    const claimed: { before: ProofRequestRow; after: ProofRequestRow }[] = []
    for (const row of rows) {
      // The job claimed its rows as due; the claim moved `next_poll_at` to its lease, so judge due-ness as of then.
      const state = options.due ? { ...row, next_poll_at: now } : row
      const decision = decide(state, { type: "send", resubmit: options.resubmit }, now, settings)
      if (decision.ok) {
        claimed.push({ before: row, after: { ...row, ...decision.change } })
      }
    }
    await writeProofRequests(manager, claimed.map(({ after }) => after))
    return claimed
  }

  /** Writes the answers to PUTs, as the lifecycle decides (a late answer only records its remote id). */
  @InjectTransactionManager()
  protected async recordSubmissions(
    events: { id: string; event: ProofRequestEvent }[],
    now: Date,
    @MedusaContext() sharedContext: Context = {}
  ): Promise<ProofRequestRow[]> {
    const manager = sharedContext.transactionManager as SqlEntityManager
    const rows = new Map((await lockProofRequests(manager, events.map((e) => e.id))).map((row) => [row.id, row]))
    const settings = this.lifecycleSettings()
    const changed: ProofRequestRow[] = []
    const result: ProofRequestRow[] = []
    for (const { id, event } of events) {
      const row = rows.get(id)
      if (!row) {
        continue
      }
      const decision = decide(row, event, now, settings)
      const next = decision.ok ? { ...row, ...decision.change } : row
      if (decision.ok) {
        changed.push(next)
      }
      result.push(next)
    }
    await writeProofRequests(manager, changed)
    return result
  }

  private async writeEvidenceRows(manager: SqlEntityManager, rows: EvidenceSnapshot[]): Promise<void> {
    if (!rows.length) {
      return
    }
    await manager.execute(
      `UPDATE ${E.table} AS e
          SET ${E.col.ground_truth} = v."ground_truth", ${E.col.reported_ground_truth} = v."reported_ground_truth",
              ${E.col.image_url} = v."image_url", ${E.col.updated_at} = now()
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "ground_truth" text, "reported_ground_truth" text, "image_url" text)
        WHERE e.${E.col.id} = v."id"`,
      [JSON.stringify(rows)]
    )
  }

  /**
   * Applies status changes to rows still in their `from` status, and answers
   * the changes made: a row changed meanwhile (an admin set the outcome) is
   * left alone, and no event may announce a change that did not happen.
   */
  private async writeChargebackStatuses(
    manager: SqlEntityManager,
    changes: ChargebackStatusChange[]
  ): Promise<ChargebackStatusChange[]> {
    if (!changes.length) {
      return []
    }
    const updated: { id: string }[] = await manager.execute(
      `UPDATE ${C.table} AS c SET ${C.col.status} = v."to", ${C.col.updated_at} = now()
         FROM jsonb_to_recordset(?::jsonb) AS v("id" text, "from" text, "to" text)
        WHERE c.${C.col.id} = v."id" AND c.${C.col.status} = v."from"
        RETURNING c.${C.col.id} AS "id"`,
      [JSON.stringify(changes.map(({ id, from, to }) => ({ id, from, to })))]
    )
    const made = new Set(updated.map((row) => row.id))
    return changes.filter((change) => made.has(change.id))
  }
}

/** A dispute case row as the workflows read it. */
export type DisputeCaseRow = DisputeCaseState & {
  id: string
  gateway: string
  case_id: string
  match_note: string | null
  chargeback_id: string | null
  order_id: string | null
  amount: unknown
  currency_code: string
  cycle: string | null
  reason_code: string | null
  reason_description: string | null
  queue: string | null
  issued_on: string | null
  processor_transaction_id: string | null
  processor_order_id: string | null
  card_last4: string | null
  card_type: string | null
  acquirer_reference_number: string | null
  /** `{ items: DisputeActivity[] }`; read it with `caseActivities`. */
  activities: Record<string, unknown> | null
  last_activity_on: string | null
  pack_file_id: string | null
  /** The pack file's key, wrapped (src/lib/sealed-evidence.ts); null for a pack stored in clear by an earlier version. */
  pack_key: string | null
  pack_bytes: number | null
  pack_generated_at: Date | null
  pack_downscaled: boolean
  document_id: string | null
  document_uploaded_at: Date | null
  represented_at: Date | null
  liability_accepted_at: Date | null
  response_error: string | null
}

const NEW_CASE_STATE: DisputeCaseState = {
  status: "unmatched",
  response_status: "none",
  reply_by: null,
  awaiting_merchant: false,
  outcome: null,
}

/** A stored case's activities, newest first. */
export function caseActivities(row: Pick<DisputeCaseRow, "activities">): DisputeCaseRecord["activities"] {
  const items = row.activities?.items
  return Array.isArray(items) ? (items as DisputeCaseRecord["activities"]) : []
}

/** A short one-way digest of a secret key: tells two keys apart in the database without storing either. */
function keyFingerprint(secretKey: string): string {
  return createHash("sha256").update(`servicescan-key-fingerprint:${secretKey}`).digest("hex").slice(0, 16)
}

function caseCursorId(gateway: string): string {
  return `cases:${gateway}`
}

/** The columns a processor's record sets. */
function caseFields(record: DisputeCaseRecord) {
  const currency = record.currencyCode.toLowerCase()
  return {
    amount: Number(fromMinorUnits(record.amountMinor, currency).toString()),
    currency_code: currency,
    cycle: record.cycle ?? null,
    reason_code: record.reasonCode ?? null,
    reason_description: record.reasonDescription ?? null,
    queue: record.queue ?? null,
    awaiting_merchant: record.awaitingMerchant,
    reply_by: record.replyBy ?? null,
    issued_on: record.issuedOn ?? null,
    processor_transaction_id: record.transactionId ?? null,
    processor_order_id: record.orderId ?? null,
    card_last4: record.cardLast4 ?? null,
    card_type: record.cardType ?? null,
    acquirer_reference_number: record.acquirerReferenceNumber ?? null,
    activities: { items: record.activities },
    last_activity_on: record.activities.reduce<string | null>((newest, a) => (!newest || a.date > newest ? a.date : newest), null),
  }
}

function sameValue(current: unknown, next: unknown): boolean {
  if (current !== null && typeof current === "object") {
    return JSON.stringify(current) === JSON.stringify(next)
  }
  // bigNumber columns read back as numbers or BigNumber-likes; compare by value.
  return String(current ?? null) === String(next ?? null)
}

function restorableCase(row: DisputeCaseRow): Record<string, unknown> {
  const { id, status, match_note, chargeback_id, order_id, cycle, reason_code, reason_description, queue, awaiting_merchant, reply_by } = row
  return {
    id,
    status,
    match_note,
    // A one-to-one relation: written through its name, `chargeback_id` would be ignored.
    chargeback: chargeback_id,
    order_id,
    cycle,
    reason_code,
    reason_description,
    queue,
    awaiting_merchant,
    reply_by,
    amount: row.amount,
    currency_code: row.currency_code,
    activities: row.activities,
    last_activity_on: row.last_activity_on,
    response_status: row.response_status,
    outcome: row.outcome,
  }
}

/** The lifecycle event a status check's outcome is. */
function pollEvent(outcome: FetchOutcome): ProofRequestEvent {
  switch (outcome.kind) {
    case "pending":
      return { type: "polled_pending" }
    case "complete":
      return { type: "polled_complete" }
    case "failed":
      return { type: "polled_failed", error: outcome.error }
    case "error":
      return { type: "poll_error", error: outcome.error }
    case "skipped":
      return { type: "poll_skipped" }
  }
}

/** A snapshot comes back from the workflow engine as JSON: its dates are strings again. */
function reviveDates(row: ProofRequestRow): ProofRequestRow {
  const date = (value: Date | string | null) => (value === null ? null : new Date(value))
  return {
    ...row,
    in_flight_until: date(row.in_flight_until),
    next_poll_at: date(row.next_poll_at),
    last_polled_at: date(row.last_polled_at),
    submitted_at: date(row.submitted_at),
    completed_at: date(row.completed_at),
  }
}

function pickEvidenceSnapshot(row: EvidenceSnapshot): EvidenceSnapshot {
  return {
    id: row.id,
    ground_truth: row.ground_truth,
    reported_ground_truth: row.reported_ground_truth,
    image_url: row.image_url,
  }
}

/** One line for `last_error` and logs: the service's message, never a header or key. */
export function describeError(error: unknown): string {
  if (error instanceof ServiceScanDisputesError) {
    return `${error.status} ${error.serviceMessage ?? error.reason}`
  }
  if (error instanceof Error) {
    return error.message
  }
  return String(error)
}
