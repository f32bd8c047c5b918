import type { ILockingModule, Logger, MedusaContainer } from "@medusajs/framework/types"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { randomUUID } from "node:crypto"
import { SERVICESCAN_MODULE } from "../modules/servicescan"
import type ServiceScanModuleService from "../modules/servicescan/service"
import { syncProofRequestsWorkflow } from "../workflows/sync-proof-requests"

/** One run at a time across instances (when the locking provider is shared, e.g. Redis or Postgres). */
const RUN_LOCK_KEY = "servicescan:sync-proof-requests"
/** Longer than any run; if a process dies holding the lock, the next run after this can start. */
const RUN_LOCK_EXPIRE_SECONDS = 15 * 60
/**
 * How long claimed rows stay hidden from other runs. Rows of a run that dies
 * come back after it; rows handled normally get their real next poll time.
 */
const CLAIM_LEASE_MS = 10 * 60 * 1000
/** Pages synced at once by one run; the module's `concurrency` bounds their calls to ServiceScan together. */
const PAGES_IN_FLIGHT = 2

export type SyncRunReport = {
  skipped?: "configuration_error" | "locked"
  pages: number
  claimed: number
  submitted: number
  completed: number
  still_pending: number
  errors: number
  duration_ms: number
}

/**
 * The poll job's body, exported for tests and the benchmark: pages through
 * due proof requests and hands each page to `syncProofRequestsWorkflow`.
 *
 * Two guards make several instances safe: the run lock (Medusa's Locking
 * Module) keeps them from duplicating effort, and claiming rows with
 * `FOR UPDATE SKIP LOCKED` and a lease keeps them from touching the same
 * proof request even when the locking provider is per-process (in-memory).
 *
 * @param options.now the clock, for tests that let time pass
 */
export async function syncServiceScanProofRequests(
  container: MedusaContainer,
  options: { now?: () => Date } = {}
): Promise<SyncRunReport> {
  const started = Date.now()
  const clock = options.now ?? (() => new Date())
  const logger = container.resolve<Logger>(ContainerRegistrationKeys.LOGGER)
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const report: SyncRunReport = { pages: 0, claimed: 0, submitted: 0, completed: 0, still_pending: 0, errors: 0, duration_ms: 0 }

  if (await service.getConfigurationError()) {
    // Calling once per proof request with a key the service refused would only
    // hammer it; one side-effect-free probe per run finds out whether it works
    // again. The flag is in the database, shared by every process: an admin's
    // probe with the same key lifts it too, and this job's working probe lifts
    // one another process's key left behind.
    await service.probe({ liftAny: true })
    const configurationError = await service.getConfigurationErrorHere()
    if (configurationError) {
      logger.warn(`servicescan: polling is stopped: ${configurationError.message}`)
      return { ...report, skipped: "configuration_error", duration_ms: Date.now() - started }
    }
    logger.info("servicescan: ServiceScan accepts the key again; polling resumes")
  }

  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  const ownerId = `servicescan-sync-${randomUUID()}`
  try {
    // `acquire` fails at once when the lock is held: a run already in progress
    // covers this one, so there is nothing to wait for.
    await locking.acquire(RUN_LOCK_KEY, { ownerId, expire: RUN_LOCK_EXPIRE_SECONDS })
  } catch {
    logger.info("servicescan: another instance is polling proof requests; skipping this run")
    return { ...report, skipped: "locked", duration_ms: Date.now() - started }
  }

  try {
    const { page_size: pageSize } = service.getSettings()
    let stopped = false
    // One page's calls wait on ServiceScan while the other page's rows are written: with one page at
    // a time, each page's database work left the service idle (100,000 proof requests took 90 s).
    // Each worker claims its own rows (FOR UPDATE SKIP LOCKED, with a lease), as two instances do.
    const worker = async () => {
      while (!stopped) {
        const now = clock()
        const claimed = await service.claimProofRequests({ now, limit: pageSize, leaseMs: CLAIM_LEASE_MS })
        if (!claimed.length) {
          return
        }
        report.pages++
        report.claimed += claimed.length
        try {
          const { result } = await syncProofRequestsWorkflow(container).run({
            input: { proof_requests: claimed, due: true, now: now.toISOString() },
          })
          report.submitted += result.submitted
          report.completed += result.completed
          report.still_pending += result.still_pending
          report.errors += result.errors + result.submission_errors
        } catch (error) {
          // The page's rows keep their lease and come back later; the other pages still run.
          report.errors += claimed.length
          logger.error(`servicescan: a page of ${claimed.length} proof requests failed to sync: ${(error as Error).message}`)
        }
        const stoppedBy = await service.getConfigurationErrorHere()
        if (stoppedBy && !stopped) {
          stopped = true
          logger.warn(`servicescan: polling stopped: ${stoppedBy.message}`)
        }
      }
    }
    // Both finish before the run lock is released, even when one of them throws.
    const settled = await Promise.allSettled(Array.from({ length: PAGES_IN_FLIGHT }, worker))
    const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected")
    if (failed) {
      throw failed.reason
    }
  } finally {
    await locking.release(RUN_LOCK_KEY, { ownerId }).catch(() => undefined)
  }
  report.duration_ms = Date.now() - started
  if (report.claimed) {
    logger.info(
      `servicescan: synced ${report.claimed} proof requests in ${report.duration_ms} ms (${report.completed} completed, ${report.submitted} submitted, ${report.errors} errors)`
    )
  }
  return report
}

/**
 * Runs every 10 minutes, but each proof request is checked only when due:
 * every `pollIntervalMs` (default 3 h, as the spec recommends "a few hours"),
 * sooner after an error with backoff. Frequent runs only make new and failed
 * submissions go out promptly; a run with nothing due is one indexed query.
 */
export default async function syncServiceScanProofRequestsJob(container: MedusaContainer): Promise<void> {
  await syncServiceScanProofRequests(container)
}

/**
 * `SERVICESCAN_SYNC_SCHEDULE` replaces the cron expression (six fields for
 * seconds, e.g. `0/3 * * * * *`). Read when Medusa loads the job, so it applies
 * per process; the system suites set it so the worker runs the real job within
 * seconds. Unset, the job keeps its 10-minute schedule.
 */
export const config = {
  name: "servicescan-sync-proof-requests",
  schedule: process.env.SERVICESCAN_SYNC_SCHEDULE?.trim() || "*/10 * * * *",
}
