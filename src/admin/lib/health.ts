import { humanize } from "./format"
import type { ProofRequestStatus, ServiceHealth } from "./types"

type Json = Record<string, unknown>

const KEY_LABELS: Record<string, string> = {
  secret_key: "Disputes secret key",
  webhook_secret: "Chargeback webhook secret",
  shareable_key: "Shareable form key",
  payment_token_api_key: "Payment token API key",
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

function str(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value : null
}

function num(value: unknown): number | null {
  const n = typeof value === "string" ? Number(value) : value
  return typeof n === "number" && Number.isFinite(n) ? n : null
}

function bool(value: unknown): boolean | null {
  return typeof value === "boolean" ? value : null
}

function first<T>(...values: (T | null | undefined)[]): T | null {
  for (const value of values) {
    if (value !== null && value !== undefined) {
      return value
    }
  }
  return null
}

/**
 * Reads `GET /admin/servicescan/health` into the one shape the page renders.
 *
 * Keys come out as booleans *only*: whatever the server sends for a key, the
 * page can say "configured" or "missing" and has nothing else to print. That
 * is deliberate defence in depth; the endpoint itself must never send a value.
 */
export function normalizeHealth(raw: unknown): ServiceHealth {
  const body = isObject(raw) ? (isObject(raw.health) ? raw.health : raw) : {}
  const settings = isObject(body.settings) ? body.settings : isObject(body.configuration) ? body.configuration : {}
  const keysSource = isObject(body.keys) ? body.keys : isObject(settings.keys) ? settings.keys : {}
  const keys = Object.entries(keysSource).map(([name, value]) => ({
    name,
    label: KEY_LABELS[name] ?? humanize(name),
    // A string here would be a server bug; it still counts as "set" and is never shown.
    configured: value === true || (typeof value === "string" && value.length > 0),
  }))

  const serviceSource = isObject(body.service) ? body.service : isObject(body.probe) ? body.probe : {}
  const reachable = first(bool(serviceSource.reachable), bool(body.reachable), bool(serviceSource.ok))
  const service = {
    reachable,
    latency_ms: num(serviceSource.latency_ms),
    error: str(serviceSource.error) ?? str(serviceSource.message),
  }

  // The route groups queue figures under `polling`; older drafts used `queue`.
  const queue = isObject(body.polling) ? body.polling : isObject(body.queue) ? body.queue : {}
  const countsSource = isObject(queue.counts) ? queue.counts : isObject(body.counts) ? body.counts : null
  const counts = countsSource
    ? (Object.fromEntries(
        Object.entries(countsSource)
          .map(([status, count]) => [status, num(count)] as const)
          .filter((entry): entry is readonly [string, number] => entry[1] !== null)
      ) as Partial<Record<ProofRequestStatus, number>>)
    : null
  // Waiting on the service: queued or pending. Unconfirmed submissions are
  // counted apart, as worth an admin's look (see needs_attention_count).
  const pendingFromCounts = counts ? (counts.to_submit ?? 0) + (counts.pending ?? 0) : null
  const pending_count = first(
    num(body.pending_count),
    num(queue.pending_count),
    num(body.pending),
    num(queue.pending),
    pendingFromCounts
  )

  const last_polled_at = first(
    str(queue.last_poll_at),
    str(queue.last_polled_at),
    str(body.last_polled_at),
    str(body.last_poll_at)
  )

  const configSource = isObject(body.configuration_error) ? body.configuration_error : null
  const configuration_error = configSource
    ? {
        status: num(configSource.status),
        message: str(configSource.message) ?? "ServiceScan refused the configured credentials.",
        at: str(configSource.at),
      }
    : typeof body.configuration_error === "string" && body.configuration_error
      ? { status: null, message: body.configuration_error, at: null }
      : null

  return {
    keys,
    base_url: first(str(serviceSource.base_url), str(body.base_url), str(settings.base_url)),
    service,
    last_polled_at,
    pending_count,
    counts,
    configuration_error,
    needs_attention_count: first(num(queue.needs_attention_count), counts ? (counts.submitting ?? 0) : null),
    polling_stopped: first(bool(queue.stopped), configuration_error ? true : null),
    poll_interval_ms: first(num(queue.interval_ms), num(body.poll_interval_ms), num(settings.poll_interval_ms)),
    archive_images: first(bool(body.archive_images), bool(settings.archive_images)),
    dispute_gateway: disputeGateway("dispute_gateway" in body ? body.dispute_gateway : settings.dispute_gateway, "dispute_gateway" in body || "dispute_gateway" in settings),
    auto_respond: first(str(body.auto_respond), str(settings.auto_respond)),
  }
}

/**
 * `{ name }` of the configured dispute gateway, `null` when the backend says
 * none is configured, `undefined` when it does not say. Only the name is
 * kept: the gateway's URL and credentials have no business in a page.
 */
function disputeGateway(value: unknown, reported: boolean): { name: string } | null | undefined {
  if (isObject(value)) {
    return { name: str(value.name) ?? "custom" }
  }
  if (typeof value === "string" && value.trim()) {
    return { name: value }
  }
  return reported ? null : undefined
}

/** What a merchant can do about a configuration error, by the status the service answered. */
export function configurationAdvice(status: number | null): string {
  if (status === 401) {
    return "ServiceScan received no API key. Set the secretKey option of the servicescan module (from an environment variable) and restart the server."
  }
  if (status === 403) {
    return "ServiceScan refused the secret key: it is wrong, revoked, or not allowed to use the disputes API. Ask the ServiceScan operator for a disputes secret key, update the secretKey option and restart. Polling resumes once a check succeeds."
  }
  return "Set the secretKey option of the servicescan module in medusa-config (from an environment variable, never in code) and restart the server. Polling resumes once a check succeeds."
}
