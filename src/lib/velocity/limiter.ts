import { randomUUID } from "node:crypto"

/**
 * Velocity limits against card testing: at most `max` failures of one subject
 * (a client address, a cart, a customer, a card) in any `windowSeconds`.
 *
 * Each failure is one entry with the time it happened, kept for the window
 * (a sliding-window log, not a counter): adding an entry never reads and
 * rewrites a shared number, so two processes recording at once cannot lose
 * one, and the time until a refused subject may try again is exact (the moment
 * enough of its entries are older than the window).
 */

/** One limit: at most `max` failures in any `windowSeconds`. */
export type VelocityLimit = { max: number; windowSeconds: number }

/**
 * Where failures are recorded. Entries expire by themselves after their TTL;
 * every process of a store must see the same entries (Medusa's Caching Module
 * on Redis), or each process limits on its own.
 */
export interface VelocityStore {
  /** The times (epoch ms) of the live entries recorded under `subject`. */
  list(subject: string): Promise<number[]>
  /** Records one entry under `subject`, named `id` (for {@link VelocityStore.remove}), kept `ttlSeconds`. */
  add(subject: string, id: string, at: number, ttlSeconds: number): Promise<void>
  /** Removes the entry `id` of `subject`, if it is still there. */
  remove(subject: string, id: string): Promise<void>
}

/** A subject and its limit. Subjects are opaque, bounded strings such as `ip:<digest>`. */
export type VelocityCheck = { subject: string; limit: VelocityLimit }

/** Why an attempt is refused: the subject over its limit, and when it may try again. */
export type VelocityRefusal = { subject: string; retryAfterSeconds: number }

/** Entries recorded for an attempt that is under way; released when the attempt did not fail after all. */
export type VelocityReservation = { release(): Promise<void> }

/**
 * Seconds until `subject`'s entries fall below `limit.max` in the window, or 0
 * when they already are. At least 1 when refused: a Retry-After of 0 invites
 * an immediate retry that is refused again.
 */
export function secondsUntilAllowed(times: readonly number[], limit: VelocityLimit, now: number): number {
  const windowMs = limit.windowSeconds * 1000
  const live = times.filter((at) => at > now - windowMs).sort((a, b) => a - b)
  if (live.length < limit.max) {
    return 0
  }
  // Below the limit once all but max - 1 of them left the window: the (n - max + 1)-th oldest decides.
  const deciding = live[live.length - limit.max]
  return Math.max(1, Math.ceil((deciding + windowMs - now) / 1000))
}

/** Options of {@link VelocityLimiter}. */
export type VelocityLimiterOptions = {
  /** The clock (epoch ms). */
  now?: () => number
  /**
   * Called when the store cannot be read or written. The limiter then lets
   * the attempt through (fails open): an outage of the cache must not stop
   * every checkout of the store.
   */
  onStoreError?: (error: unknown) => void
}

/** Checks and records failures against {@link VelocityLimit}s in a {@link VelocityStore}. */
export class VelocityLimiter {
  private readonly now: () => number
  private readonly onStoreError: (error: unknown) => void

  constructor(
    private readonly store: VelocityStore,
    options: VelocityLimiterOptions = {}
  ) {
    this.now = options.now ?? Date.now
    this.onStoreError = options.onStoreError ?? (() => undefined)
  }

  /**
   * The refusal of the subject that must wait longest, or null when every
   * subject is under its limit (or the store could not be read).
   */
  async check(checks: readonly VelocityCheck[]): Promise<VelocityRefusal | null> {
    const now = this.now()
    let refusal: VelocityRefusal | null = null
    try {
      const times = await Promise.all(checks.map((check) => this.store.list(check.subject)))
      checks.forEach((check, index) => {
        const wait = secondsUntilAllowed(times[index], check.limit, now)
        if (wait > 0 && (!refusal || wait > refusal.retryAfterSeconds)) {
          refusal = { subject: check.subject, retryAfterSeconds: wait }
        }
      })
    } catch (error) {
      this.onStoreError(error)
      return null
    }
    return refusal
  }

  /** Records one failure of `check.subject` now. */
  async record(check: VelocityCheck): Promise<void> {
    await this.add([check], randomUUID())
  }

  /**
   * Checks every subject and, when none is refused, records one entry under
   * each at once, so that attempts running at the same moment count against
   * each other (the caller serializes check-and-reserve per subject). The
   * attempt counts as a failure until {@link VelocityReservation.release}
   * says it did not fail.
   */
  async reserve(
    checks: readonly VelocityCheck[]
  ): Promise<{ refusal: VelocityRefusal } | { reservation: VelocityReservation }> {
    const refusal = await this.check(checks)
    if (refusal) {
      return { refusal }
    }
    const id = randomUUID()
    await this.add(checks, id)
    return {
      reservation: {
        release: async () => {
          try {
            await Promise.all(checks.map((check) => this.store.remove(check.subject, id)))
          } catch (error) {
            this.onStoreError(error)
          }
        },
      },
    }
  }

  private async add(checks: readonly VelocityCheck[], id: string): Promise<void> {
    const now = this.now()
    try {
      await Promise.all(checks.map((check) => this.store.add(check.subject, id, now, check.limit.windowSeconds)))
    } catch (error) {
      this.onStoreError(error)
    }
  }
}
