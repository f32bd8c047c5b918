// Applying a processor's stored webhook events, shared by the subscriber that
// follows each delivery and the case import's catch-up. The leading underscore
// keeps Medusa's job loader from taking this file for a job.
import { randomUUID } from "node:crypto"
import type { ILockingModule, MedusaContainer } from "@medusajs/framework/types"
import { Modules } from "@medusajs/framework/utils"
import { SERVICESCAN_MODULE } from "../modules/servicescan"
import type ServiceScanModuleService from "../modules/servicescan/service"
import { applyProcessorEventsWorkflow } from "../workflows/apply-processor-events"
import { runAutoResponses } from "./_run-auto-responses"

/** An event left unapplied this long after it was stored is the catch-up's: younger ones are still the subscriber's. */
export const CATCH_UP_AFTER_MS = 60_000

/**
 * Events a workflow run applies at once: one run's fixed cost (the workflow
 * machinery, a transaction, the reads) is shared by a page instead of paid per
 * delivery, and a page stays small enough to hold in memory and in one query.
 */
export const DRAIN_PAGE_SIZE = 250

/**
 * How long the drain's lock lives unless renewed (it is, before each page). A
 * process that dies mid-drain frees the gateway after this at the latest;
 * its events are then taken by the next delivery's drain or the catch-up.
 */
const DRAIN_LOCK_EXPIRE_SECONDS = 300

export type AppliedProcessorEvents = { cases: number; chargebacks_recorded: number; operations: number; errors: string[] }

const lockKey = (gateway: string) => `servicescan:processor-events:${gateway}`

/**
 * Applies every stored, unapplied event of one gateway (cases and operations'
 * outcomes), oldest first, `DRAIN_PAGE_SIZE` per `applyProcessorEventsWorkflow`
 * run, each page's cases then answered as the `autoRespond` policy says, when
 * their evidence is complete already (a later event can open a case to the
 * merchant's answer after its proof request completed).
 *
 * One drain at a time per gateway, in every process (the Locking Module): a
 * dispute's NOTIFICATION_OF_CHARGEBACK and CHARGEBACK come moments apart, and
 * each run folds all of its case's events, so two at once would both create
 * the case. The lock is only tried, never waited for: when another drain
 * holds it, that drain picks these events up (it reads what is pending until
 * nothing it has not tried is left), and this call answers `null`. Waiting
 * instead queued one run per delivery behind the holder, each for its own few
 * ids: at Adyen's 4 deliveries at a time, the queue outgrew the lock's wait.
 *
 * Each event is tried once per call: an operation's outcome no payment records
 * stays unapplied on purpose (for a day), and an event whose run failed stays
 * for the catch-up; neither is read again here, so the drain ends.
 *
 * `storedBefore` limits the drain to events stored before it (the catch-up's
 * age rule).
 */
export async function drainProcessorEvents(
  container: MedusaContainer,
  gateway: string,
  options: { storedBefore?: Date; pageSize?: number } = {}
): Promise<AppliedProcessorEvents | null> {
  const locking = container.resolve<ILockingModule>(Modules.LOCKING)
  const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
  const pageSize = options.pageSize ?? DRAIN_PAGE_SIZE
  const total: AppliedProcessorEvents = { cases: 0, chargebacks_recorded: 0, operations: 0, errors: [] }
  const tried = new Set<string>()
  // Tried events seen pending again: each read asks for that many more, so a page of untried ones still fits.
  const stillPending = new Set<string>()
  let drained = false

  /** The oldest pending events this call has not tried yet, up to `take`. */
  const untried = async (take: number): Promise<string[]> => {
    for (;;) {
      const limit = take + stillPending.size
      const rows = await service.listProcessorEvents(
        {
          gateway,
          processed_at: null,
          kind: ["case", "operation"],
          ...(options.storedBefore ? { created_at: { $lt: options.storedBefore } } : {}),
        },
        { select: ["id"], take: limit, order: { created_at: "ASC", id: "ASC" } }
      )
      const fresh = rows.flatMap((row) => (tried.has(row.id) ? (stillPending.add(row.id), []) : [row.id]))
      // Only tried ones filled the read although more are stored: read again past them (stillPending grew).
      if (fresh.length || rows.length < limit) return fresh.slice(0, take)
    }
  }

  for (;;) {
    const ownerId = `servicescan-events-${randomUUID()}`
    try {
      await locking.acquire(lockKey(gateway), { ownerId, expire: DRAIN_LOCK_EXPIRE_SECONDS })
    } catch {
      // Another drain holds the gateway (here or in another process): it reads what is pending after
      // each page, so it takes the events this call was for.
      return drained ? total : null
    }
    drained = true
    try {
      for (let ids = await untried(pageSize); ids.length; ids = await untried(pageSize)) {
        // Renewed (same owner: extends) before each page, so a long drain keeps the gateway.
        await locking.acquire(lockKey(gateway), { ownerId, expire: DRAIN_LOCK_EXPIRE_SECONDS })
        ids.forEach((id) => tried.add(id))
        const page = await applyPage(container, gateway, ids)
        total.cases += page.cases
        total.chargebacks_recorded += page.chargebacks_recorded
        total.operations += page.operations
        total.errors.push(...page.errors)
      }
    } catch (error) {
      // A failed run (a database hiccup) leaves its events unapplied: the catch-up retries them. Not drained
      // again here, or a lasting failure would loop.
      total.errors.push((error as Error).message)
      await locking.release(lockKey(gateway), { ownerId }).catch(() => undefined)
      return total
    }
    await locking.release(lockKey(gateway), { ownerId }).catch(() => undefined)
    // The race this closes: an event stored after this drain's last read but before the release above
    // has a subscriber that found the lock still held and returned, trusting this drain to take it. So
    // once released, look again; anything untried found here is drained (or, if another drain took
    // the lock meanwhile, left to it: it took the lock after the event was stored, so it reads it).
    if (!(await untried(1)).length) {
      return total
    }
  }
}

/** One page: the workflow run, then the auto-responses of the cases it touched. */
async function applyPage(container: MedusaContainer, gateway: string, ids: string[]): Promise<AppliedProcessorEvents> {
  const { result } = await applyProcessorEventsWorkflow(container).run({ input: { gateway, ids } })
  const errors = [...result.errors]
  if (result.cases.length) {
    const service = container.resolve<ServiceScanModuleService>(SERVICESCAN_MODULE)
    const rows = await service.listDisputeCases({ gateway, case_id: result.cases }, { select: ["chargeback_id"], take: null })
    const chargebackIds = rows.flatMap((row) => (row.chargeback_id ? [row.chargeback_id] : []))
    if (chargebackIds.length) {
      errors.push(...(await runAutoResponses(container, { chargeback_ids: chargebackIds })).failed)
    }
  }
  return { cases: result.cases.length, chargebacks_recorded: result.chargebacks_recorded, operations: result.operations, errors }
}

/**
 * The stored events of a gateway no run applied: the process stopped between
 * the webhook's answer and its work, or the work failed (a database hiccup,
 * an operation no payment records yet). Adyen will not send them again (it
 * got its `[accepted]`), so the case import applies them: a drain of the
 * events stored at least `CATCH_UP_AFTER_MS` before `now` (younger ones are
 * still their subscriber's). `null` when a drain holds the gateway already
 * (it takes these too) or nothing was pending.
 */
export async function catchUpProcessorEvents(
  container: MedusaContainer,
  gateway: string,
  options: { now: Date; limit: number }
): Promise<AppliedProcessorEvents | null> {
  const drained = await drainProcessorEvents(container, gateway, {
    storedBefore: new Date(options.now.getTime() - CATCH_UP_AFTER_MS),
    pageSize: options.limit,
  })
  return drained && (drained.cases || drained.operations || drained.errors.length) ? drained : null
}
