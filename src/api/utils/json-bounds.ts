/**
 * Bounds for free-form JSON a client may send (chargeback `metadata`, payment
 * session `data`). PostgreSQL's `jsonb` and `text` cannot hold U+0000, and a
 * deeply nested value costs recursion further on (Medusa clones and
 * serialises workflow inputs), so both used to end as a 500 after the
 * request was accepted. Checked iteratively: the check itself never recurses,
 * however deep the value.
 */
export type JsonBounds = {
  /** Nesting levels below the value itself: `{}` is 0, `{ a: {} }` is 1. */
  maxDepth: number
  /** Serialized size in bytes (UTF-8), as stored. */
  maxBytes: number
}

/** Characters PostgreSQL text cannot store (U+0000). */
const NUL = "\u0000"
/**
 * A UTF-16 surrogate without its pair: JSON.stringify writes it as `\ud800`,
 * which PostgreSQL's jsonb refuses (and text would silently turn into U+FFFD).
 */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/**
 * Why a value is outside the bounds, as a sentence naming `field`, or null
 * when it is fine.
 */
export function jsonBoundsProblem(field: string, value: unknown, bounds: JsonBounds): string | null {
  const stack: { value: unknown; depth: number; path: string }[] = [{ value, depth: 0, path: field }]
  let bytes = 0
  while (stack.length) {
    const { value: current, depth, path } = stack.pop() as { value: unknown; depth: number; path: string }
    if (typeof current === "string") {
      if (current.includes(NUL)) {
        return `${path} must not contain NUL characters (\\u0000)`
      }
      if (LONE_SURROGATE.test(current)) {
        return `${path} must be valid Unicode (it has an unpaired surrogate)`
      }
      bytes += Buffer.byteLength(current, "utf8") + 2
    } else if (typeof current === "number") {
      if (!Number.isFinite(current)) {
        return `${path} must be a finite number`
      }
      bytes += 24
    } else if (current === null || typeof current === "boolean") {
      bytes += 5
    } else if (typeof current === "object") {
      if (depth > bounds.maxDepth) {
        return `${field} is nested too deeply (at most ${bounds.maxDepth} levels)`
      }
      const entries: [string, unknown][] = Array.isArray(current)
        ? current.map((item, index) => [String(index), item])
        : Object.entries(current as Record<string, unknown>)
      bytes += 2
      for (const [key, item] of entries) {
        if (!Array.isArray(current)) {
          if (key.includes(NUL)) {
            return `${path} must not have keys containing NUL characters (\\u0000)`
          }
          if (LONE_SURROGATE.test(key)) {
            return `${path} must not have keys with unpaired surrogates (invalid Unicode)`
          }
          bytes += Buffer.byteLength(key, "utf8") + 4
        }
        stack.push({ value: item, depth: depth + 1, path: Array.isArray(current) ? `${path}[${key}]` : `${path}.${printableKey(key)}` })
      }
    } else {
      // undefined, functions, symbols, bigints: not JSON.
      return `${path} must be JSON`
    }
    if (bytes > bounds.maxBytes) {
      return `${field} is too large (at most ${Math.floor(bounds.maxBytes / 1024)} KB)`
    }
  }
  return null
}

/** Keys are echoed in messages: keep them short and printable. */
function printableKey(key: string): string {
  const clean = key.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?")
  return clean.length > 40 ? `${clean.slice(0, 40)}…` : clean
}
