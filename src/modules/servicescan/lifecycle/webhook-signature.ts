import { createHmac, timingSafeEqual } from "node:crypto"

/**
 * Signature of the chargeback webhook, in the style of Stripe's:
 *
 *   x-servicescan-signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">
 *
 * The timestamp is inside the signed payload, so an attacker cannot replay an
 * old body with a fresh timestamp; the replay window bounds how long a captured
 * request stays usable. Several `v1` values may be sent during a secret
 * rotation; any one matching is enough.
 */
export const WEBHOOK_SIGNATURE_HEADER = "x-servicescan-signature"

export type SignatureCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: "missing" | "malformed" | "stale" | "mismatch" }

export function signWebhookPayload(payload: string | Buffer, secret: string, timestamp: number): string {
  const mac = createHmac("sha256", secret).update(`${timestamp}.`).update(payload).digest("hex")
  return `t=${timestamp},v1=${mac}`
}

export function verifyWebhookSignature(input: {
  payload: string | Buffer
  header: string | string[] | undefined
  secret: string
  toleranceSeconds: number
  nowSeconds?: number
}): SignatureCheck {
  const header = Array.isArray(input.header) ? input.header[0] : input.header
  if (!header) {
    return { ok: false, reason: "missing" }
  }
  let timestamp: number | undefined
  const signatures: string[] = []
  for (const part of header.split(",")) {
    const index = part.indexOf("=")
    if (index < 0) {
      continue
    }
    const key = part.slice(0, index).trim()
    const value = part.slice(index + 1).trim()
    if (key === "t" && /^\d{1,12}$/.test(value)) {
      timestamp = Number(value)
    } else if (key === "v1" && /^[0-9a-f]{64}$/i.test(value)) {
      signatures.push(value.toLowerCase())
    }
  }
  if (timestamp === undefined || signatures.length === 0) {
    return { ok: false, reason: "malformed" }
  }
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000)
  if (Math.abs(now - timestamp) > input.toleranceSeconds) {
    return { ok: false, reason: "stale" }
  }
  const expected = Buffer.from(
    createHmac("sha256", input.secret).update(`${timestamp}.`).update(input.payload).digest("hex"),
    "utf8"
  )
  // Compare every candidate, in constant time each, so timing says nothing about which one was close.
  let matched = false
  for (const signature of signatures) {
    matched = timingSafeEqual(expected, Buffer.from(signature, "utf8")) || matched
  }
  return matched ? { ok: true, timestamp } : { ok: false, reason: "mismatch" }
}
