import fc from "fast-check"
import { request } from "node:http"
import type { IncomingHttpHeaders } from "node:http"

/**
 * Tools for the hostile-input suite: a raw HTTP client (axios and fetch
 * normalise paths; an attacker does not), the invariants every answer must
 * keep, and fast-check arbitraries of hostile values.
 */

/** `HOSTILE_INPUT_SCALE=10 npm test -- http -- hostile` for the larger local run. */
export const HOSTILE_SCALE = Math.max(0.1, Number(process.env.HOSTILE_INPUT_SCALE ?? 1) || 1)
export const runs = (base: number) => Math.max(1, Math.round(base * HOSTILE_SCALE))

export type RawRequest = {
  method: string
  /** Sent exactly as given: percent-encode it yourself. */
  path: string
  headers?: Record<string, string>
  body?: string | Buffer
}

export type RawResponse = {
  status: number
  headers: IncomingHttpHeaders
  text: string
  json: unknown
}

export function rawRequest(baseUrl: string, input: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: input.method,
        path: input.path,
        headers: {
          ...(input.body === undefined ? {} : { "content-length": String(Buffer.byteLength(input.body)) }),
          ...input.headers,
        },
        // One connection per request: an answer cut short must not poison the next case.
        agent: false,
        timeout: 60_000,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let json: unknown
          try {
            json = text ? JSON.parse(text) : undefined
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json })
        })
        res.on("error", reject)
      }
    )
    req.on("timeout", () => req.destroy(new Error(`${input.method} ${input.path.slice(0, 200)}: no answer in 60 s`)))
    req.on("error", reject)
    if (input.body !== undefined) {
      req.write(input.body)
    }
    req.end()
  })
}

const LEAKS: [string, RegExp][] = [
  ["a stack trace", /\n\s*at\s+\S+.*:\d+:\d+|\bat\s+(?:async\s+)?[\w$.<>]+\s+\([^)]*:\d+:\d+\)/],
  [
    "an internal path",
    /\/work\/|\/home\/|\/root\/|\/usr\/lib\/|node_modules|\bsrc\/[\w/[\]-]+\.(?:ts|js)\b|[\w-]+\.(?:ts|js|mjs|cjs):\d+/,
  ],
  [
    "an SQL fragment",
    /\b(?:insert\s+into|select\s+[\w"*, .]+\s+from|delete\s+from|update\s+"?\w+"?\s+set)\b|syntax error at or near|violates (?:unique|foreign key|not-null|check) constraint|duplicate key value|SQLSTATE|invalid byte sequence for encoding|unsupported Unicode escape sequence|relation "\w+" does not exist|column "\w+"|\bmikro-?orm\b|\bknex\b|\bservicescan_(?:chargeback|proof_request|scan_evidence)\b/i,
  ],
]

/**
 * What must never be in an answer: a stack trace, an internal path, an SQL
 * fragment. What the request itself sent is removed first, because Medusa's
 * validation messages quote the value they refused.
 */
export function leaksIn(text: string, sent: readonly string[] = []): string[] {
  let scrubbed = text
  for (const value of [...sent].sort((a, b) => b.length - a.length)) {
    if (value.length >= 3) {
      scrubbed = scrubbed.split(value).join("")
      const escaped = JSON.stringify(value).slice(1, -1)
      scrubbed = scrubbed.split(escaped).join("")
    }
  }
  return LEAKS.filter(([, pattern]) => pattern.test(scrubbed)).map(([name]) => name)
}

/** The message of a Medusa-style error answer. */
export function messageOf(res: RawResponse): string | undefined {
  const body = res.json as { message?: unknown } | undefined
  return typeof body?.message === "string" ? body.message : undefined
}

/**
 * The invariants of every answer from the plugin's routes: never a 5xx,
 * nothing internal in the body, and a 4xx carries a message that names a
 * problem (not Medusa's generic "unknown error"). Throws a description of the
 * request and answer, which fast-check prints with the counterexample.
 */
export function checkAnswer(req: RawRequest, res: RawResponse, sent: readonly string[] = []): void {
  const where = `${req.method} ${req.path.slice(0, 300)} -> ${res.status} ${res.text.slice(0, 500)}`
  if (res.status >= 500 || res.status < 100) {
    throw new Error(`5xx: ${where}`)
  }
  const leaks = leaksIn(res.text, sent)
  if (leaks.length) {
    throw new Error(`${leaks.join(", ")} in the answer: ${where}`)
  }
  if (res.status >= 400) {
    // Express's own 404 for a path no route has ("Cannot POST /hooks/servicescan/x") names it too.
    if (res.status === 404 && /^<!DOCTYPE html>[\s\S]*<pre>Cannot [A-Z]+ \//.test(res.text)) {
      return
    }
    const message = messageOf(res)
    if (!message || message.trim().length < 8 || /unknown error/i.test(message)) {
      throw new Error(`a 4xx without a message naming the problem: ${where}`)
    }
  }
}

/** Every string a request carried (decoded path segments, query values, body leaves), for echo scrubbing. */
export function sentStrings(req: RawRequest, ...values: unknown[]): string[] {
  const out: string[] = []
  const [path, query = ""] = req.path.split("?")
  for (const part of [...path.split("/"), ...query.split(/[&=]/)]) {
    try {
      out.push(decodeURIComponent(part.replace(/\+/g, " ")))
    } catch {
      out.push(part)
    }
  }
  const stack = [...values]
  while (stack.length) {
    const value = stack.pop()
    if (typeof value === "string") {
      out.push(value)
    } else if (value && typeof value === "object") {
      for (const [key, item] of Object.entries(value)) {
        out.push(key)
        stack.push(item)
      }
    }
  }
  return out.filter((value) => value.length >= 3)
}

// ---- hostile values ---------------------------------------------------------

/** Values that broke or fooled web backends somewhere, plus what PostgreSQL cannot store. */
export const HOSTILE_CONSTANTS: readonly string[] = [
  "\u0000",
  "a\u0000b",
  "\u0007\u001b[31m",
  "\r\nSet-Cookie: x=1",
  "\ud800",
  "\udfff",
  "😀",
  "\u202egnp.exe",
  "\ufeff",
  "' OR '1'='1",
  "1; DROP TABLE servicescan_chargeback; --",
  "$ne",
  '{"$gt":""}',
  "__proto__",
  "constructor",
  "../../../../etc/passwd",
  "..\\..\\windows\\win.ini",
  "%2e%2e%2f",
  "%ff%fe%00",
  "file:///etc/passwd",
  "http://169.254.169.254/latest/meta-data/",
  "//evil.example/x.jpg",
  "javascript:alert(1)",
  "<script>alert(1)</script>",
  "${7*7}",
  "{{7*7}}",
  "%s%n",
  "-1",
  "-0",
  "0",
  "1e308",
  "-1e308",
  "NaN",
  "Infinity",
  "9007199254740993",
  "0x1f",
  "10.505",
  " 10.50 ",
  "",
  " ",
  "null",
  "true",
  "[]",
  "{}",
  "x".repeat(300),
  "chbk_01ZZZZZZZZZZZZZZZZZZZZZZZZ",
  "order_01ZZZZZZZZZZZZZZZZZZZZZZZZ",
  "3f0c9a52-8d4e-1b7a-9c1d-2e5f6a7b8c9d",
  "3F0C9A52-8D4E-4B7A-9C1D-2E5F6A7B8C9D",
]

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_CONSTANTS) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary-ascii", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 200 }) }
)

/** Placeholders replaced in the serialized body, for what JSON.stringify cannot build (or builds slowly). */
export const DEEP_64 = "@@DEEP_64@@"
export const DEEP_5000 = "@@DEEP_5000@@"
export const HUGE = "@@HUGE_STRING@@"

export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(1e308, -1, -0, 0, 0.1 + 0.2, 10.505, Number.MAX_SAFE_INTEGER + 2, true, null, [], {}),
  },
  { weight: 1, arbitrary: fc.constantFrom(DEEP_64, DEEP_5000, HUGE) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, hostileString, { maxKeys: 3 }) },
  { weight: 1, arbitrary: fc.array(hostileString, { maxLength: 4 }) }
)

const deep = (levels: number) => `${'{"a":'.repeat(levels)}{}${"}".repeat(levels)}`

/** JSON text of `value`, with the placeholders expanded. */
export function serializeHostile(value: unknown): string {
  return JSON.stringify(value)
    .split(JSON.stringify(DEEP_64))
    .join(deep(64))
    .split(JSON.stringify(DEEP_5000))
    .join(deep(5000))
    .split(JSON.stringify(HUGE))
    .join(JSON.stringify("h".repeat(200_000)))
}

/** Sets `key` as an own property even when it is `__proto__`, so it is serialized like any key. */
export function withKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true })
  return target
}

/** A percent-encoded path segment; lone surrogates (which encodeURIComponent refuses) become raw UTF-8 bytes. */
export function encodeSegment(value: string): string {
  return Array.from(value)
    .map((char) => {
      try {
        return encodeURIComponent(char)
      } catch {
        return Buffer.from(char, "utf8")
          .toString("hex")
          .replace(/(..)/g, "%$1")
          .toUpperCase()
      }
    })
    .join("")
}

/** Segments whose percent-encoding is valid UTF-8 (Express can decode them). */
export function isDecodable(segment: string): boolean {
  try {
    decodeURIComponent(segment)
    return true
  } catch {
    return false
  }
}

/** Raw, already-encoded segments an attacker types by hand. */
export const RAW_SEGMENTS: readonly string[] = [
  "%00",
  "chbk%00x",
  "%ff%fe%00",
  "%ff",
  "%c0%ae%c0%ae",
  "..",
  ".",
  "..%2F..%2Fetc%2Fpasswd",
  "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
  "%2F",
  "%5C",
  "%25",
  "%",
  "%zz",
  "http%3A%2F%2F169.254.169.254%2F",
  "%2F%2Fevil.example%2Fx.jpg",
  "a%0d%0aSet-Cookie:%20x=1",
  "x".repeat(2000),
]

export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
  { weight: 3, arbitrary: hostileString.filter((value) => value.length > 0).map((value) => encodeSegment(value.slice(0, 300))) }
)

/** A query string from key/value pairs; bracket keys are kept so qs builds arrays and objects. */
export function queryString(pairs: [string, string][]): string {
  return pairs
    .map(([key, value]) => `${encodeSegment(key).replace(/%5B/gi, "[").replace(/%5D/gi, "]")}=${encodeSegment(value)}`)
    .join("&")
}

export const CONTENT_TYPES: readonly (string | undefined)[] = [
  "application/json",
  "application/json",
  "application/json",
  "application/json; charset=utf-8",
  "application/x-www-form-urlencoded",
  "text/plain",
  "multipart/form-data; boundary=x",
  "application/xml",
  undefined,
]

export const GARBAGE_BODIES: readonly string[] = [
  "",
  "{",
  "[]",
  "null",
  '"a string"',
  '{"a":}',
  "\u0000",
  "{}}",
  "1e400",
  "external_id=dp_1&order_id=order_1&amount=10.50&currency_code=usd",
  "<xml/>",
]
