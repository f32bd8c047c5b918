import { createHash, createHmac, hkdfSync } from "node:crypto"
import { isIPv4, isIPv6 } from "node:net"

/**
 * Who a velocity limit counts: subjects are `<kind>:<digest>`, bounded in
 * length whatever the input (a cart id comes from the URL), and without the
 * raw address, id or card in the cache.
 */

export type VelocitySubjectKind = "ip" | "cart" | "customer" | "card"

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest("base64url").slice(0, 32)

/** The subject of a cart, a customer, or an already normalized client address. */
export function velocitySubject(kind: Exclude<VelocitySubjectKind, "card">, value: string): string {
  return `${kind}:${digest(value)}`
}

/**
 * What a client address is counted as: an IPv4 address as is (an
 * IPv4-mapped IPv6 address as its IPv4 address), an IPv6 address by its /64
 * (one subscriber usually holds a whole /64, so each of its addresses must not
 * count as a new client). Undefined for anything that is not an address.
 */
export function clientAddressKey(ip: string | undefined | null): string | undefined {
  if (!ip) {
    return undefined
  }
  let address = ip.trim().toLowerCase()
  const zone = address.indexOf("%")
  if (zone >= 0) {
    address = address.slice(0, zone)
  }
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address)
  if (mapped && isIPv4(mapped[1])) {
    return mapped[1]
  }
  if (isIPv4(address)) {
    return address
  }
  if (!isIPv6(address)) {
    return undefined
  }
  return `${ipv6Groups(address).slice(0, 4).join(":")}::/64`
}

/** The eight groups of a valid IPv6 address, without leading zeros (an embedded IPv4 tail counts as two). */
function ipv6Groups(address: string): string[] {
  const split = (part: string) => (part ? part.split(":") : [])
  const width = (groups: string[]) => groups.reduce((sum, group) => sum + (group.includes(".") ? 2 : 1), 0)
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined]
  const left = split(head)
  const right = tail === undefined ? [] : split(tail)
  const zeros = tail === undefined ? [] : Array<string>(8 - width(left) - width(right)).fill("0")
  return [...left, ...zeros, ...right].map((group) => (group.includes(".") ? group : parseInt(group, 16).toString(16)))
}

/**
 * Fingerprints processor tokens for the per-card limit: equal tokens (the same
 * card at the same merchant: Worldpay's tokens are per card and merchant),
 * equal subjects. Keyed, because a token is short and partly known (it keeps
 * the card's last four), so a plain hash of one could be reversed by trying
 * them all; the key is derived from a secret every process of the store shares.
 */
export class CardSubjects {
  private readonly key: Buffer

  constructor(secret: string) {
    this.key = Buffer.from(
      hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(0), "servicescan velocity: card v1", 32)
    )
  }

  /** The subject of the card behind `token`. */
  of(token: string): string {
    return `card:${createHmac("sha256", this.key).update(token, "utf8").digest("base64url").slice(0, 32)}`
  }
}

/**
 * The plain sentence of a refusal: no limit, subject or card named, only when
 * to try again (whole minutes, rounded up: never sooner than Retry-After says).
 */
export function tooManyAttemptsMessage(retryAfterSeconds: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60))
  return `Too many payment attempts. Please try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`
}
