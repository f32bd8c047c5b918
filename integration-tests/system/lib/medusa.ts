import { createHmac } from "node:crypto"
import { CANARY } from "./canaries"

/** A JSON answer from a Medusa process. */
export type Answer<T = unknown> = { status: number; body: T; text: string }

/** Calls a Medusa process over HTTP (through the global fetch, which the suites record for the secrets scan). */
export async function call<T = unknown>(
  baseUrl: string,
  path: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {}
): Promise<Answer<T>> {
  const hasBody = init.body !== undefined || init.raw !== undefined
  const response = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? (hasBody ? "POST" : "GET"),
    headers: { ...(hasBody ? { "content-type": "application/json" } : {}), ...init.headers },
    body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  })
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    // not JSON
  }
  return { status: response.status, body: body as T, text }
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, as docs/api.md tells a card network's integrator. */
export function signWebhook(rawBody: string, secret: string = CANARY.webhookSecret, at = Date.now()): string {
  const t = Math.floor(at / 1000)
  const v1 = createHmac("sha256", secret).update(`${t}.${rawBody}`).digest("hex")
  return `t=${t},v1=${v1}`
}

export type ChargebackNotice = {
  external_id: string
  order_id: string
  amount: string
  currency_code: string
  reason?: string
  scan_ids?: string[]
}

/** One signed delivery of the chargeback webhook. A lost connection answers status 0. */
export async function deliverChargeback(baseUrl: string, notice: ChargebackNotice): Promise<Answer> {
  const raw = JSON.stringify(notice)
  try {
    return await call(baseUrl, "/hooks/servicescan/chargebacks", {
      raw,
      headers: { "x-servicescan-signature": signWebhook(raw) },
    })
  } catch (error) {
    return { status: 0, body: undefined, text: (error as Error).message }
  }
}

/**
 * Delivers like a card network: again after anything but a 2xx, with a short
 * backoff, up to `attempts` times. Replays are safe (idempotent by external_id).
 * `answerLost()` decides, per accepted delivery, that the 2xx never reached the
 * sender, who then delivers the same notice again.
 */
export async function deliverUntilAccepted(
  baseUrl: string,
  notice: ChargebackNotice,
  { attempts = 10, answerLost = () => false }: { attempts?: number; answerLost?: () => boolean } = {}
): Promise<{ answer: Answer; deliveries: number }> {
  let answer: Answer = { status: 0, body: undefined, text: "" }
  for (let delivery = 1; delivery <= attempts; delivery++) {
    answer = await deliverChargeback(baseUrl, notice)
    if (answer.status >= 200 && answer.status < 300 && !answerLost()) return { answer, deliveries: delivery }
    await new Promise((resolve) => setTimeout(resolve, 100 * delivery))
  }
  return { answer, deliveries: attempts }
}
