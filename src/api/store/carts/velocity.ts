import type { ILockingModule } from "@medusajs/framework/types"
import type { AuthContext, MedusaNextFunction, MedusaRequest, MedusaResponse } from "@medusajs/framework/http"
import { ContainerRegistrationKeys, Modules } from "@medusajs/framework/utils"
import { VelocityCheck, VelocityLimiter, VelocityReservation } from "../../../lib/velocity/limiter"
import { processMemoryVelocityStore, velocityStoreFor } from "../../../lib/velocity/stores"
import { clientAddressKey, tooManyAttemptsMessage, velocitySubject } from "../../../lib/velocity/subjects"
import { TOO_MANY_ATTEMPTS } from "../../../providers/servicescan/errors"
import { isOutageMessage } from "../../../providers/servicescan/messages"
import { readVelocityOptions, ResolvedVelocityOptions } from "../../../providers/servicescan/velocity-options"
import { pickServiceScanSession, SERVICESCAN_PROVIDER_PREFIX } from "../../../workflows/utils/checkout-session"
import { completionCartSessions } from "./cart-sessions"

/** How long a completion waits to check its limits while another completion of the same client, cart or customer checks theirs. */
const LOCK_TIMEOUT_SECONDS = 5
/** Retry-After when that wait ran out: many completions of one subject at the same moment. */
const BUSY_RETRY_AFTER_SECONDS = 5

/**
 * Middleware of Medusa's `POST /store/carts/:id/complete`, registered before
 * `guardCartCompletion`: velocity limits against card testing on completions
 * paid through a ServiceScan provider, with that provider's `velocity` options.
 *
 * - Per client address (`req.ip`: Express's, under Medusa's one trusted proxy
 *   hop), per cart and per signed-in customer, a completion over a limit is
 *   answered 429 with Retry-After and a plain sentence before anything else
 *   runs: no exchange at the service, no processor call.
 * - Every completion that goes ahead counts as a failure from the start (so
 *   completions at the same moment count against each other; the check and
 *   the count are one step under a lock per subject), and stops counting when
 *   its answer says nothing about a card: an order; a 409 (the outcome is
 *   unknown and the storefront completes the same session again, which tests
 *   no new card); a 5xx or an outage of the service, the processor or the
 *   store's setup (a shopper retrying through it must not be locked out).
 *   Declines, invalid or unknown forms and the guard's refusals keep counting.
 * - Per card, the provider counts declines and refuses a card over its limit
 *   before the processor call (card-velocity.ts); its refusal, a cart error
 *   named `ServiceScanTooManyAttempts`, is answered here as the same 429, with
 *   the card window as Retry-After (the provider's count is not visible here;
 *   the window is when the card is certainly allowed again).
 *
 * The counts live in Medusa's Caching Module when the store registered one
 * (its Redis provider lets every instance count together), otherwise in this
 * process's memory.
 */
export async function limitCompletionVelocity(req: MedusaRequest, res: MedusaResponse, next: MedusaNextFunction) {
  let refused: boolean
  try {
    refused = await applyLimits(req, res)
  } catch (error) {
    return next(error)
  }
  if (!refused) {
    next()
  }
}

/** Answers the completion's refusal and says so (true), or gets it counted and lets it go ahead (false). */
async function applyLimits(req: MedusaRequest, res: MedusaResponse): Promise<boolean> {
  const providerId = await sessionProviderOf(req)
  if (!providerId) {
    return false
  }
  const limits = velocityOptionsOf(req, providerId)
  const checks = completionChecks(req, limits)
  let reservation: VelocityReservation | null = null
  if (checks.length > 0) {
    const logger = req.scope.resolve(ContainerRegistrationKeys.LOGGER)
    const limiter = new VelocityLimiter(
      velocityStoreFor(req.scope.resolve(Modules.CACHING, { allowUnregistered: true }), processMemoryVelocityStore),
      {
        onStoreError: (error) =>
          logger.warn(`servicescan ${JSON.stringify({ event: "velocity_store_failed", detail: describe(error) })}`),
      }
    )
    const locking = req.scope.resolve<ILockingModule>(Modules.LOCKING)
    let outcome: Awaited<ReturnType<VelocityLimiter["reserve"]>>
    try {
      outcome = await locking.execute(
        checks.map((check) => `servicescan:velocity:${check.subject}`).sort(),
        () => limiter.reserve(checks),
        { timeout: LOCK_TIMEOUT_SECONDS }
      )
    } catch (error) {
      if (error instanceof Error && /timed-?out acquiring lock/i.test(error.message)) {
        refuse(res, BUSY_RETRY_AFTER_SECONDS)
        return true
      }
      throw error
    }
    if ("refusal" in outcome) {
      logger.info(
        `servicescan ${JSON.stringify({
          event: "velocity_refused",
          limit: outcome.refusal.subject.split(":")[0],
          cart_id: req.params.id,
          retry_after_s: outcome.refusal.retryAfterSeconds,
        })}`
      )
      refuse(res, outcome.refusal.retryAfterSeconds)
      return true
    }
    reservation = outcome.reservation
  }
  settleOnAnswer(res, reservation, limits.perCard ? limits.perCard.windowSeconds : null)
  return false
}

/** The limits that apply to this completion: the client's address, the cart, and the signed-in customer. */
function completionChecks(req: MedusaRequest, limits: ResolvedVelocityOptions): VelocityCheck[] {
  const checks: VelocityCheck[] = []
  const address = clientAddressKey(req.ip)
  if (limits.perIp && address) {
    checks.push({ subject: velocitySubject("ip", address), limit: limits.perIp })
  }
  if (limits.perCart) {
    checks.push({ subject: velocitySubject("cart", req.params.id), limit: limits.perCart })
  }
  const auth = (req as MedusaRequest & { auth_context?: AuthContext }).auth_context
  if (limits.perCustomer && auth?.actor_type === "customer" && auth.actor_id) {
    checks.push({ subject: velocitySubject("customer", auth.actor_id), limit: limits.perCustomer })
  }
  return checks
}

/** A refused completion: 429, Retry-After, and a sentence that names no limit and no card. */
function refuse(res: MedusaResponse, retryAfterSeconds: number): void {
  res.setHeader("Retry-After", String(retryAfterSeconds))
  res.status(429).json({
    type: "too_many_attempts",
    message: tooManyAttemptsMessage(retryAfterSeconds),
    retry_after: retryAfterSeconds,
  })
}

/**
 * Watches the completion's answer (Medusa's route, the guard's refusal or the
 * error handler all answer through `res.json`): an answer that says nothing
 * about a card stops the completion from counting as a failure; the
 * provider's per-card refusal becomes the 429 every other refusal is.
 */
function settleOnAnswer(res: MedusaResponse, reservation: VelocityReservation | null, cardWindowSeconds: number | null) {
  if (!reservation && cardWindowSeconds === null) {
    return
  }
  const json = res.json.bind(res)
  res.json = (body?: unknown) => {
    res.json = json
    if (reservation && saysNothingAboutTheCard(res.statusCode, body)) {
      void reservation.release()
    }
    if (cardWindowSeconds !== null && cartError(body)?.name === TOO_MANY_ATTEMPTS) {
      refuse(res, cardWindowSeconds)
      return res
    }
    return json(body)
  }
}

function saysNothingAboutTheCard(status: number, body: unknown): boolean {
  return status === 409 || status >= 500 || answerType(body) === "order" || isOutageMessage(cartError(body)?.message)
}

function answerType(body: unknown): unknown {
  return typeof body === "object" && body !== null ? (body as Record<string, unknown>).type : undefined
}

function cartError(body: unknown): Record<string, unknown> | undefined {
  if (answerType(body) !== "cart") {
    return undefined
  }
  const error = (body as Record<string, unknown>).error
  return typeof error === "object" && error !== null ? (error as Record<string, unknown>) : undefined
}

/**
 * The provider of the session Medusa's completion will authorize, when it is
 * a ServiceScan one; null otherwise (the cart is paid some other way). The
 * same read the completion guard makes next (completionCartSessions).
 */
async function sessionProviderOf(req: MedusaRequest): Promise<string | null> {
  return pickServiceScanSession(await completionCartSessions(req))?.provider_id ?? null
}

/** Parsed `velocity` options per configuration and provider id: the configuration does not change while the app runs. */
const parsedOptions = new WeakMap<object, Map<string, ResolvedVelocityOptions>>()

/**
 * The `velocity` options of the ServiceScan provider `providerId`
 * (`pp_servicescan_<id>`), as registered in the payment module's `providers`
 * in medusa-config, validated by the provider's own schema; the defaults when
 * the registration cannot be found.
 */
function velocityOptionsOf(req: MedusaRequest, providerId: string): ResolvedVelocityOptions {
  const config = req.scope.resolve(ContainerRegistrationKeys.CONFIG_MODULE)
  let byProvider = parsedOptions.get(config)
  if (!byProvider) {
    byProvider = new Map()
    parsedOptions.set(config, byProvider)
  }
  let options = byProvider.get(providerId)
  if (!options) {
    const paymentModule = field(config.modules, Modules.PAYMENT)
    const providers = field(field(paymentModule, "options"), "providers")
    const registration = Array.isArray(providers)
      ? providers.find((provider: unknown) => `${SERVICESCAN_PROVIDER_PREFIX}${String(field(provider, "id"))}` === providerId)
      : undefined
    options = readVelocityOptions(field(registration, "options"))
    byProvider.set(providerId, options)
  }
  return options
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
