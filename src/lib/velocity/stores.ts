import type { VelocityStore } from "./limiter"

/**
 * The two homes of velocity entries: Medusa's Caching Module (shared by every
 * process when its provider is Redis), and process memory when a store has
 * registered no Caching Module (Medusa 2.21 registers none by default).
 */

const PREFIX = "servicescan:velocity:"

/**
 * The part of Medusa's Caching Module (`Modules.CACHING`, ICachingModuleService)
 * this store uses, typed by shape so that lib/ imports nothing from Medusa.
 */
export interface CachingServiceLike {
  get(input: { key?: string; tags?: string[] }): Promise<unknown>
  set(input: {
    key: string
    data: object
    ttl?: number
    tags?: string[]
    options?: { autoInvalidate?: boolean }
  }): Promise<void>
  clear(input: { key?: string; tags?: string[] }): Promise<void>
}

/** Whether `value` has the Caching Module's get, set and clear. */
export function isCachingService(value: unknown): value is CachingServiceLike {
  if (typeof value !== "object" || value === null) {
    return false
  }
  const service = value as Record<string, unknown>
  return ["get", "set", "clear"].every((method) => typeof service[method] === "function")
}

/**
 * Entries in Medusa's Caching Module: one cache entry per failure, tagged with
 * its subject, so that listing a subject is one read by tag (Redis: one
 * SMEMBERS and one pipelined HGET per live entry, at most a limit's `max` of
 * them) and recording one is one write that never rewrites another's entry.
 * `autoInvalidate: false` keeps Medusa's own cache invalidation off them.
 */
export class CachingVelocityStore implements VelocityStore {
  constructor(private readonly caching: CachingServiceLike) {}

  async list(subject: string): Promise<number[]> {
    const found = await this.caching.get({ tags: [PREFIX + subject] })
    if (!Array.isArray(found)) {
      // The Redis provider answers null when its connection is down: nothing is known.
      return []
    }
    return found
      .map((entry: unknown) =>
        typeof entry === "object" && entry !== null ? (entry as Record<string, unknown>).at : undefined
      )
      .filter((at): at is number => typeof at === "number" && Number.isFinite(at))
  }

  async add(subject: string, id: string, at: number, ttlSeconds: number): Promise<void> {
    await this.caching.set({
      key: `${PREFIX}${subject}:${id}`,
      data: { at },
      ttl: ttlSeconds,
      tags: [PREFIX + subject],
      options: { autoInvalidate: false },
    })
  }

  async remove(subject: string, id: string): Promise<void> {
    await this.caching.clear({ key: `${PREFIX}${subject}:${id}` })
  }
}

/** At most this many subjects are kept in memory; beyond it, the least recently written go first. */
const MAX_MEMORY_SUBJECTS = 100_000

/**
 * Entries in this process's memory: correct for one process, and for several
 * only per process. Bounded: expired entries go when their subject is read or
 * written, and the least recently written subjects go past
 * {@link MAX_MEMORY_SUBJECTS} (a flood of new addresses cannot grow it without end).
 */
export class MemoryVelocityStore implements VelocityStore {
  private readonly subjects = new Map<string, Map<string, { at: number; expires: number }>>()

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxSubjects = MAX_MEMORY_SUBJECTS
  ) {}

  async list(subject: string): Promise<number[]> {
    return [...this.live(subject).values()].map((entry) => entry.at)
  }

  async add(subject: string, id: string, at: number, ttlSeconds: number): Promise<void> {
    const entries = this.live(subject)
    entries.set(id, { at, expires: this.now() + ttlSeconds * 1000 })
    // Re-inserted last: the Map's order is the order of last writes.
    this.subjects.delete(subject)
    this.subjects.set(subject, entries)
    while (this.subjects.size > this.maxSubjects) {
      const oldest = this.subjects.keys().next().value
      if (oldest === undefined) {
        break
      }
      this.subjects.delete(oldest)
    }
  }

  async remove(subject: string, id: string): Promise<void> {
    this.subjects.get(subject)?.delete(id)
  }

  private live(subject: string): Map<string, { at: number; expires: number }> {
    const entries = this.subjects.get(subject) ?? new Map<string, { at: number; expires: number }>()
    const now = this.now()
    for (const [id, entry] of entries) {
      if (entry.expires <= now) {
        entries.delete(id)
      }
    }
    if (entries.size === 0) {
      this.subjects.delete(subject)
    }
    return entries
  }
}

const SHARED = Symbol.for("medusa-plugin-servicescan.velocity.memory")

/**
 * This process's memory store, the same whichever copy of the plugin's code
 * asks for it (kept on `globalThis`, as a module's state would be duplicated
 * by a second copy of the package).
 */
export function processMemoryVelocityStore(): MemoryVelocityStore {
  const holder = globalThis as { [SHARED]?: MemoryVelocityStore }
  holder[SHARED] ??= new MemoryVelocityStore()
  return holder[SHARED]
}

/** Medusa's Caching Module when the store registered one, otherwise `fallback` (process memory). */
export function velocityStoreFor(caching: unknown, fallback: () => VelocityStore): VelocityStore {
  return isCachingService(caching) ? new CachingVelocityStore(caching) : fallback()
}
