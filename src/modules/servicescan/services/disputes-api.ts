import { createHash } from "node:crypto"
import type { Context, InferTypeOf, Logger, ModulesSdkTypes } from "@medusajs/framework/types"
import { MedusaError } from "@medusajs/framework/utils"
import { HttpAuthError, RetryEvent } from "../../../lib/http"
import { DisputesClient, ServiceScanDisputesError } from "../../../lib/servicescan/disputes-client"
import type { ServiceState } from "../models"
import { RESOLVED_OPTIONS, WithResolvedOptions } from "../options"
import type { ConfigurationError, ServiceProbe } from "../types"
import { createLimiter } from "./concurrency"

type InjectedDependencies = WithResolvedOptions & {
  logger: Logger
  serviceStateService: ModulesSdkTypes.IMedusaInternalService<typeof ServiceState>
}

/** The ServiceState row of the disputes API. */
const DISPUTES_API_STATE = "disputes_api"

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

/** The debug line of a retried call, for the clients the module builds (the disputes API's and the dispute gateway's). */
export function logRetries(logger: Logger): (event: RetryEvent) => void {
  return (event) =>
    logger.debug(`servicescan: retrying ${event.request.method} ${event.request.url} in ${event.delayMs} ms (${event.reason})`)
}

/** A short one-way digest of a secret key: tells two keys apart in the database without storing either. */
function keyFingerprint(secretKey: string): string {
  return createHash("sha256").update(`servicescan-key-fingerprint:${secretKey}`).digest("hex").slice(0, 16)
}

/**
 * The ServiceScan disputes API as the module calls it: the one client, the
 * limit on calls in flight, and what the module knows about its key. A key
 * the service refused stops every process's calls (the refusal is recorded in
 * `servicescan_service_state`, so the server, its workers and other instances
 * agree on it) until a probe succeeds.
 */
export class DisputesApiService {
  protected readonly logger_: Logger
  protected readonly serviceStateService_: InjectedDependencies["serviceStateService"]
  /** Null without a secret key. */
  readonly client: DisputesClient | null
  /** `concurrency` across every page synced at once in this process (the poll job runs two). */
  private readonly serviceCalls_: <R>(fn: () => Promise<R>) => Promise<R>
  /**
   * `refused`: the service refused the key in this process, and no page that
   * began since found the refusal lifted. Set inside the refused call's turn
   * of `serviceCalls_`, so that the calls waiting for that turn, this page's
   * or the other page's, never go out (`inTurnUnlessRefused`).
   * `beingRecorded`: refusals being written (`noteAuthFailure`); until they
   * are, the record cannot lift `refused`.
   * One object for the process (the service is a singleton), mutated in place.
   */
  private readonly keyRefusal_ = { refused: false, beingRecorded: 0 }
  /** Set at boot when no secret key is configured; every process reads the same options. */
  private readonly missingKey_: ConfigurationError | null
  /** Which key a recorded refusal was about (a one-way digest, never the key). */
  private readonly keyFingerprint_: string | null

  constructor(dependencies: InjectedDependencies) {
    const options = dependencies[RESOLVED_OPTIONS]
    this.logger_ = dependencies.logger
    this.serviceStateService_ = dependencies.serviceStateService
    this.serviceCalls_ = createLimiter(options.concurrency)
    this.client = options.secretKey
      ? new DisputesClient({
          baseUrl: options.baseUrl,
          secretKey: options.secretKey,
          timeoutMs: options.timeoutMs,
          maxRetries: options.maxRetries,
          onRetry: logRetries(this.logger_),
        })
      : null
    this.missingKey_ = this.client
      ? null
      : { status: null, message: "The servicescan module has no secretKey option", at: new Date(), this_process: true }
    this.keyFingerprint_ = options.secretKey ? keyFingerprint(options.secretKey) : null
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
    const [row] = await this.serviceStateService_.list({ id: DISPUTES_API_STATE }, { take: 1 })
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

  /**
   * Calls the service once without side effects. Success clears a configuration
   * error recorded for this process's key, so fixing a key at the operator's end
   * resumes polling. `liftAny`: the poll job's own probe, whose success means
   * polling works, lifts an error recorded by a process with another key too
   * (e.g. one that has since restarted with the new key).
   */
  async probe(options: { liftAny?: boolean }, sharedContext: Context): Promise<ServiceProbe> {
    if (!this.client) {
      return { reachable: false, configuration_error: true, error: this.missingKey_?.message ?? "" }
    }
    try {
      const { latencyMs } = await this.client.probe()
      const recorded = await this.getConfigurationError()
      if (recorded && (recorded.this_process || options.liftAny)) {
        await this.setConfigurationError(null, sharedContext)
      }
      return { reachable: true, latency_ms: latencyMs }
    } catch (error) {
      await this.noteAuthFailure(error, sharedContext)
      return {
        reachable: false,
        configuration_error: error instanceof HttpAuthError,
        error: describeError(error),
      }
    }
  }

  /** One call of the client, which must exist; a refused key is recorded for every process. */
  async call<R>(fn: (client: DisputesClient) => Promise<R>, sharedContext: Context): Promise<R> {
    if (!this.client) {
      throw new MedusaError(MedusaError.Types.NOT_ALLOWED, "The servicescan module has no secretKey option")
    }
    try {
      return await fn(this.client)
    } catch (error) {
      await this.noteAuthFailure(error, sharedContext)
      throw error
    }
  }

  /** Records an authentication failure as the configuration error of every process; answers whether it was one. */
  async noteAuthFailure(error: unknown, sharedContext: Context): Promise<boolean> {
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
      await this.setConfigurationError(
        {
          status: error.status,
          message: `ServiceScan refused the secret key: ${error.status} ${error.serviceMessage ?? ""}`.trim(),
          at: new Date(),
        },
        sharedContext
      )
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
  inTurnUnlessRefused<R>(stopped: () => boolean, call: () => Promise<R>): Promise<R | null> {
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
  liftStaleRefusal(configurationError: ConfigurationError | null): void {
    if (!configurationError && !this.keyRefusal_.beingRecorded) {
      this.keyRefusal_.refused = false
    }
  }

  /** Records (or, with null, lifts) the configuration error for every process. */
  private async setConfigurationError(
    error: Omit<ConfigurationError, "this_process"> | null,
    sharedContext: Context
  ): Promise<void> {
    const data: Partial<InferTypeOf<typeof ServiceState>> = {
      configuration_error_key: error ? this.keyFingerprint_ : null,
      configuration_error_message: error?.message ?? null,
      configuration_error_status: error?.status ?? null,
      configuration_error_at: error?.at ?? null,
    }
    // As a list of one selector: answered as a list of the rows updated, like one selector alone.
    const updated = await this.serviceStateService_.update([{ selector: { id: DISPUTES_API_STATE }, data }], sharedContext)
    if (updated.length > 0 || !error) {
      return
    }
    try {
      await this.serviceStateService_.create({ id: DISPUTES_API_STATE, ...data }, sharedContext)
    } catch {
      // Another process created the row meanwhile: write over it.
      await this.serviceStateService_.update({ selector: { id: DISPUTES_API_STATE }, data }, sharedContext)
    }
  }
}
