import type { Context, DAL, Logger, ModulesSdkTypes } from "@medusajs/framework/types"
import { InjectTransactionManager, MedusaContext, MedusaInternalService } from "@medusajs/framework/utils"
import { HttpError } from "../../../lib/http"
import { ServiceScanDisputesError, submissionOutcome } from "../../../lib/servicescan/disputes-client"
import { isUuidV4 } from "../../../lib/uuid"
import { canSend, decide, ProofRequestEvent, ProofRequestSettings } from "../lifecycle/proof-request"
import { ProofRequest, ScanEvidence } from "../models"
import { PROOF_REQUEST_ID_PREFIX } from "../models/proof-request"
import { SCAN_EVIDENCE_ID_PREFIX } from "../models/scan-evidence"
import { RESOLVED_OPTIONS, ResolvedServiceScanModuleOptions, WithResolvedOptions } from "../options"
import { newEntityId } from "../repositories/entity-id"
import type { ProofRequestSqlRepository } from "../repositories/proof-request"
import type {
  ClaimedProofRequest,
  CompletedProofRequest,
  EvidenceSnapshot,
  FetchOutcome,
  ProofRequestRow,
  ProofRequestStatus,
  ProofResultsSnapshot,
  SubmissionResult,
} from "../types"
import { mapWithConcurrency } from "./concurrency"
import { describeError, DisputesApiService } from "./disputes-api"

type InjectedDependencies = WithResolvedOptions & {
  logger: Logger
  baseRepository: DAL.RepositoryService
  proofRequestSqlRepository: ProofRequestSqlRepository
  scanEvidenceService: ModulesSdkTypes.IMedusaInternalService<typeof ScanEvidence>
  disputesApiService: DisputesApiService
}

/** What a new proof request is made of: a chargeback's scans, due now unless said otherwise. */
type NewProofRequest = { chargeback_id: string; scan_ids: string[]; now?: Date }

/**
 * Proof requests: their CRUD (Medusa's, for the ProofRequest model) and their
 * life at the service. Calls that write to the service are made here, next to
 * the rows that record them, so the state machine of a proof request
 * (lifecycle/proof-request.ts) is driven from one place: workflows decide
 * when, this service decides how.
 */
export class ProofRequestService extends MedusaInternalService(ProofRequest)<InjectedDependencies, typeof ProofRequest> {
  protected readonly baseRepository_: DAL.RepositoryService
  protected readonly logger_: Logger
  protected readonly options_: ResolvedServiceScanModuleOptions
  protected readonly sql_: ProofRequestSqlRepository
  protected readonly scanEvidenceService_: InjectedDependencies["scanEvidenceService"]
  protected readonly disputesApi_: DisputesApiService

  constructor(dependencies: InjectedDependencies) {
    super(dependencies)
    this.baseRepository_ = dependencies.baseRepository
    this.logger_ = dependencies.logger
    this.options_ = dependencies[RESOLVED_OPTIONS]
    this.sql_ = dependencies.proofRequestSqlRepository
    this.scanEvidenceService_ = dependencies.scanEvidenceService
    this.disputesApi_ = dependencies.disputesApiService
  }

  /** The scan ids of a list that are well-formed for the service, lower-cased and without repeats. */
  normalizeScanIds(ids: readonly unknown[]): string[] {
    return [...new Set(ids.filter(isUuidV4).map((id) => id.toLowerCase()))]
  }

  /**
   * Claims proof requests for this run: due ones, or the given ids. See
   * `claim` in repositories/proof-request.ts for how two instances stay off
   * each other's rows.
   */
  async claim(
    input: { now: Date; limit: number; leaseMs: number; ids?: string[] },
    sharedContext: Context
  ): Promise<ClaimedProofRequest[]> {
    if (input.ids && input.ids.length === 0) {
      return []
    }
    return await this.sql_.claim(
      { now: input.now, leaseUntil: new Date(input.now.getTime() + input.leaseMs), limit: input.limit, ids: input.ids },
      sharedContext
    )
  }

  /**
   * Sends proof requests to the service (`PUT /disputes/proofRequest`), once
   * per claim. Which rows may go, and what each answer makes of them, is
   * decided by lifecycle/proof-request.ts: a row is claimed (`submitting`, in
   * flight) in a transaction before its PUT, so whoever claims it is its only
   * sender, and the answer is written in a second transaction.
   */
  async submit(
    ids: string[],
    options: { now?: Date; resubmit?: boolean; due?: boolean },
    sharedContext: Context
  ): Promise<SubmissionResult[]> {
    const now = options.now ?? new Date()
    if (!ids.length) {
      return []
    }
    const api = this.disputesApi_
    const client = api.client
    const configurationError = await api.getConfigurationErrorHere()
    api.liftStaleRefusal(configurationError)
    if (!client || configurationError) {
      // Nothing is claimed: the rows keep their state, and the job stops on a configuration error anyway.
      const reason = `Not sent: ${configurationError?.message ?? "not configured"}`
      const rows = await this.baseRepository_.serialize<ProofRequestRow[]>(
        await this.list({ id: ids }, { select: ["id", "chargeback_id", "status", "remote_id", "in_flight_until", "next_poll_at"] })
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
          const created = await api.inTurnUnlessRefused(() => stopped, () => client.createProofRequest(after.scan_ids))
          if (!created) {
            return undefined
          }
          return { type: "accepted", submission: after.submissions, remote_id: created.id }
        } catch (error) {
          if (await api.noteAuthFailure(error, sharedContext)) {
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
   * concurrency. Reads only; `applyResults` writes what was found.
   * Stops at the first authentication error: every other call would fail the
   * same way, and hammering a service with a bad key helps nobody.
   */
  async fetchResults(rows: { id: string; remote_id: string | null }[], sharedContext: Context): Promise<FetchOutcome[]> {
    const api = this.disputesApi_
    const client = api.client
    const configurationError = await api.getConfigurationErrorHere()
    api.liftStaleRefusal(configurationError)
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
        const remoteId = row.remote_id
        try {
          // Checked again once its turn comes: the run may have stopped while it waited.
          const result = await api.inTurnUnlessRefused(() => stopped, () => client.getProofRequest(remoteId))
          if (!result) {
            return { id: row.id, kind: "skipped" }
          }
          return result.status === "pending"
            ? { id: row.id, kind: "pending" }
            : { id: row.id, kind: "complete", scans: result.scans }
        } catch (error) {
          if (await api.noteAuthFailure(error, sharedContext)) {
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
   * Writes what `fetchResults` found, in the caller's transaction: ground
   * truths on the evidence, statuses and the next poll time on the proof
   * requests (as lifecycle/proof-request.ts decides). Answers the proof
   * requests that completed and a snapshot to undo it all.
   *
   * Set-based SQL (one read and one write per table for the whole page): this
   * is the poll job's hot path, and row-by-row ORM updates made a 10,000-request
   * run several times slower.
   */
  async applyResults(
    outcomes: FetchOutcome[],
    now: Date,
    sharedContext: Context
  ): Promise<{ completed: CompletedProofRequest[]; snapshot: ProofResultsSnapshot }> {
    if (!outcomes.length) {
      return { completed: [], snapshot: { proof_requests: [], evidence: [] } }
    }
    const current = await this.sql_.lock(outcomes.map((outcome) => outcome.id), {}, sharedContext)
    const byId = new Map(current.map((row) => [row.id, row]))
    const completeIds = outcomes.filter((o) => o.kind === "complete" && byId.get(o.id)?.status === "pending").map((o) => o.id)
    const evidence = await this.sql_.listEvidence(completeIds, sharedContext)
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
    await this.sql_.write(next, sharedContext)
    await this.sql_.writeEvidence(evidenceRows, sharedContext)
    return { completed, snapshot: { proof_requests: previous, evidence: previousEvidence } }
  }

  /** Compensation of `applyResults`, in the caller's transaction: puts the rows back as they were read. */
  async restoreResults(snapshot: ProofResultsSnapshot, sharedContext: Context): Promise<void> {
    await this.sql_.write(snapshot.proof_requests.map(reviveDates), sharedContext)
    await this.sql_.writeEvidence(snapshot.evidence, sharedContext)
  }

  /**
   * Creates proof requests (`to_submit`, due now) with one evidence row per
   * scan, in the caller's transaction and two inserts: evidence rows are what
   * makes a scan id "this store's" for the image proxy. Lists without a
   * well-formed scan id get no proof request; the answer keeps the order of
   * the input, `null` for those.
   */
  async createWithScans(
    inputs: NewProofRequest[],
    sharedContext: Context
  ): Promise<({ id: string; chargeback_id: string; scan_ids: string[] } | null)[]> {
    const normalized = inputs.map((input) => ({ ...input, scan_ids: this.normalizeScanIds(input.scan_ids) }))
    const wanted = normalized.filter((input) => input.scan_ids.length > 0)
    if (!wanted.length) {
      return inputs.map(() => null)
    }
    const proofRequests = await this.baseRepository_.serialize<ProofRequestRow[]>(
      await this.create(
        wanted.map((input) => ({
          id: newEntityId(PROOF_REQUEST_ID_PREFIX),
          chargeback_id: input.chargeback_id,
          scan_ids: input.scan_ids,
          status: "to_submit" as const,
          next_poll_at: input.now ?? new Date(),
        })),
        sharedContext
      )
    )
    await this.scanEvidenceService_.create(
      proofRequests.flatMap((proofRequest) =>
        proofRequest.scan_ids.map((scan_id) => ({
          id: newEntityId(SCAN_EVIDENCE_ID_PREFIX),
          scan_id,
          proof_request_id: proofRequest.id,
        }))
      ),
      sharedContext
    )
    const byChargeback = new Map(proofRequests.map((pr) => [pr.chargeback_id, pr]))
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
    const rows = await this.list(
      { chargeback_id: chargebackId, $or: [{ remote_id: { $ne: null } }, { status: "submitting" }] },
      { select: ["id"], take: 1 }
    )
    return rows.length > 0
  }

  /** Queue figures for the health endpoint: counts by status and the last status check. */
  async queueStats(sharedContext: Context): Promise<{ counts: Record<ProofRequestStatus, number>; last_polled_at: Date | null }> {
    const rows = await this.sql_.countByStatus(sharedContext)
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
    const rows = await this.sql_.lock(ids, { skipLocked: true }, sharedContext)
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
    await this.sql_.write(claimed.map(({ after }) => after), sharedContext)
    return claimed
  }

  /** Writes the answers to PUTs, as the lifecycle decides (a late answer only records its remote id). */
  @InjectTransactionManager()
  protected async recordSubmissions(
    events: { id: string; event: ProofRequestEvent }[],
    now: Date,
    @MedusaContext() sharedContext: Context = {}
  ): Promise<ProofRequestRow[]> {
    const rows = new Map((await this.sql_.lock(events.map((e) => e.id), {}, sharedContext)).map((row) => [row.id, row]))
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
    await this.sql_.write(changed, sharedContext)
    return result
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
