import type { VelocityLimit, VelocityRefusal, VelocityStore } from "../../lib/velocity/limiter"
import { VelocityLimiter } from "../../lib/velocity/limiter"
import { MemoryVelocityStore, velocityStoreFor } from "../../lib/velocity/stores"
import { CardSubjects } from "../../lib/velocity/subjects"

/**
 * The per-card limit, enforced by the provider because only it sees the card.
 *
 * A card is known by a keyed fingerprint of its processor token (Worldpay's
 * tokens are per card and merchant). A saved card's token is in hand before
 * any call; a new form's only after the token exchange. So:
 * - declines are counted here, when the processor declines a card;
 * - a card over its limit is refused here, after the exchange (a new form) or
 *   after opening the saved card's seal, and before the processor call. A new
 *   form's card therefore still costs one exchange at the service, never an
 *   authorization; the client, cart and customer limits refuse before the
 *   exchange (the plugin's middleware).
 *
 * Where the declines are kept: Medusa's Caching Module when the store
 * registered one (every process counts together; its Redis provider in
 * production), resolved at each use from the payment module's container;
 * otherwise this provider's own memory (each process counts on its own).
 */
export class CardVelocity {
  private readonly subjects: CardSubjects
  private readonly memory = new MemoryVelocityStore()

  /**
   * @param limit the `perCard` option (`false`: off).
   * @param secret a secret every process of the store shares, to key the fingerprints.
   * @param caching reads the Caching Module from the container (undefined when none is registered).
   * @param onStoreError told when the store fails; the card is then let through.
   */
  constructor(
    private readonly limit: VelocityLimit | false,
    secret: string,
    private readonly caching: () => unknown,
    private readonly onStoreError: (error: unknown) => void
  ) {
    this.subjects = new CardSubjects(secret)
  }

  /** Why the card behind `token` may not be sent to the processor now, or null. */
  async refusal(token: string): Promise<VelocityRefusal | null> {
    if (!this.limit) {
      return null
    }
    return this.limiter().check([{ subject: this.subjects.of(token), limit: this.limit }])
  }

  /** Counts one decline of the card behind `token`. */
  async recordDecline(token: string): Promise<void> {
    if (!this.limit) {
      return
    }
    await this.limiter().record({ subject: this.subjects.of(token), limit: this.limit })
  }

  private limiter(): VelocityLimiter {
    return new VelocityLimiter(this.store(), { onStoreError: this.onStoreError })
  }

  private store(): VelocityStore {
    let caching: unknown
    try {
      caching = this.caching()
    } catch {
      caching = undefined
    }
    return velocityStoreFor(caching, () => this.memory)
  }
}
